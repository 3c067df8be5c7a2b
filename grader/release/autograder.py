"""``grader autograder OUT.zip``: a Gradescope autograder for the course, in one zip.

Gradescope unpacks the zip into ``/autograder/source``, runs its ``setup.sh`` once when it builds
the autograder's image, then its ``run_autograder`` for every submission (``gradescope.py``).
The zip holds the two scripts and, under ``course/``, what grading needs (``GRADING``: the
package, its reference, the lessons' stubs; not the tests, whose valid variants are answers, nor
the notebooks, docs or scripts). ``run_autograder`` holds the grading options and the
instructor's private seed, drawn with ``secrets`` when the zip is built unless ``--seed`` gives it.

What it protects (docs/release.md): the learner's code runs in the sandbox, which shows it only
``grader/`` of the course, the graded answers withheld, so neither ``solutions/`` nor the seed
is there. What it does not: the zip holds both in clear, for whoever can read the autograder.
"""
import secrets
import zipfile
from pathlib import Path

from grader import exercises
from grader.release import course

GRADING = ("pyproject.toml", "README.md", "grader", "solutions", "lessons")  # top-level names the zip's course/ keeps
EXECUTABLE, READABLE = 0o100755, 0o100644  # a zip entry's mode: a regular file's type and permissions

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: Python, then the
# course from this zip's copy (course/), with its pinned dependencies and the sandbox's
# bubblewrap, in a virtual environment beside it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
apt-get update
apt-get install -y python3 python3-venv python3-pip
python3 -m venv "$here/venv"
"$here/venv/bin/pip" install torch==2.13.0 -e "$here/course"
# one check of the reference: the build's log shows that the course runs, and whether the sandbox can
"$here/venv/bin/python" -m grader check max_fn --impl solutions
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grader/release/gradescope.py grades it and writes
# results/results.json. AUTOGRADER_ROOT moves Gradescope's folder (default /autograder);
# AUTOGRADER_PYTHON names a Python with the course's dependencies (default: setup.sh's).
root="${AUTOGRADER_ROOT:-/autograder}"
export PYTHONPATH="$root/source/course"  # the zip's course, whatever else that Python has installed
exec "${AUTOGRADER_PYTHON:-$root/source/venv/bin/python}" -m grader.release.gradescope "$root" {options}
"""


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT.zip", help="the zip to write, outside the course's folder")
    parser.add_argument("--seed", type=int, default=None,
                        help="the private seed baked into run_autograder (default: a fresh one drawn "
                             "with secrets; each build draws its own)")
    parser.add_argument("--exercises", nargs="+", default=None, metavar="EXERCISE",
                        help="the exercises this assignment grades (default: all)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade without the sandbox, for a Gradescope whose containers cannot run "
                             "bubblewrap: each submission's code then runs as root beside the reference, "
                             "the seed and results.json (said in every results.json)")


def run(parser, args) -> int:
    for unknown in (e for e in args.exercises or () if e not in exercises.BY_ID):
        parser.error(exercises.unknown_message(unknown))
    seed = secrets.randbits(63) if args.seed is None else args.seed
    try:
        build(args.out, seed, args.exercises or [], sandboxed=not args.no_sandbox)
    except course.ReleaseError as exc:
        parser.error(str(exc))
    graded = ", ".join(args.exercises) if args.exercises else "every exercise"
    print(f"wrote {args.out}: setup.sh, run_autograder ({graded}, {'your' if args.seed is not None else 'a new'} "
          f"private seed{', UNSANDBOXED' if args.no_sandbox else ''}) and course/ ({', '.join(GRADING)}). "
          "Upload it as the assignment's autograder; it holds the reference and the seed, so keep it "
          "from learners.")
    return 0


def build(out: Path, seed: int, exercise_ids: list[str], sandboxed: bool = True) -> None:
    """Write the autograder zip to ``out``, its ``run_autograder`` grading ``exercise_ids`` (all
    when empty) with ``seed``."""
    out = course.outside(out, "the autograder (it holds the reference and the private seed)")
    options = " ".join([f"--seed {seed}", *(["--exercises", *exercise_ids] if exercise_ids else []),
                        *(["--no-sandbox"] if not sandboxed else [])])
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        _add(archive, "setup.sh", SETUP.encode(), EXECUTABLE)
        _add(archive, "run_autograder", RUN_AUTOGRADER.replace("{options}", options).encode(), EXECUTABLE)
        for name, source in course.contents().items():
            if name.split("/")[0] not in GRADING:
                continue
            if isinstance(source, Path):
                archive.write(source, f"course/{name}")  # its mode too
            else:
                _add(archive, f"course/{name}", source, READABLE)


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    entry = zipfile.ZipInfo(name)
    entry.external_attr, entry.compress_type = mode << 16, zipfile.ZIP_DEFLATED
    archive.writestr(entry, data)
