"""``grader autograder OUT.zip``: a Gradescope autograder for the course, in one zip.

Gradescope unpacks the zip into ``/autograder/source``, runs its ``setup.sh`` once when it builds
the autograder's image, then its ``run_autograder`` for every submission (``gradescope.py``).
The zip holds the two scripts and, under ``course/``, what grading needs (``GRADING``: the
package, its reference, the lessons' stubs; not the tests, whose valid variants are answers, nor
the notebooks, docs or scripts). ``run_autograder`` holds the grading options; ``secret`` the
instructor's grading secret (grader/release/secret.py), drawn when the zip is built unless
``--secret-file`` gives it, and kept beside the zip too (mode 0600); ``grading.toml`` the
grading config, where ``--config`` gives one (grader/release/grading_config.py).

What it protects (docs/release.md): the learner's code runs in the sandbox, which shows it only
``grader/`` of the course, the graded answers withheld, so neither ``solutions/`` nor the secret
is there. What it does not: the zip holds both in clear, for whoever can read the autograder.
"""
import zipfile
from pathlib import Path

from grader import exercises
from grader.arguments import UsageError, exercise_id
from grader.release import course, grading_config, secret

GRADING = ("pyproject.toml", "README.md", "grader", "solutions", "lessons")  # top-level names the zip's course/ keeps
EXECUTABLE, READABLE, PRIVATE = 0o100755, 0o100644, 0o100600  # a zip entry's mode: a regular file's
# type and permissions
CPU_TORCH = "--index-url https://download.pytorch.org/whl/cpu "  # torch's CPU build (a few hundred
# MB), where pip's default index gives a CUDA build of several GB that grading never uses

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: Python, then torch
# (the course's pinned version; its CPU build unless the zip was built with --gpu-torch), then the
# course from this zip's copy (course/), with its pinned dependencies and the sandbox's
# bubblewrap, in a virtual environment beside it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
apt-get update
apt-get install -y python3 python3-venv python3-pip
python3 -m venv "$here/venv"
"$here/venv/bin/pip" install {torch_index}torch==2.13.0
"$here/venv/bin/pip" install -e "$here/course"
# one check of the reference: the build's log shows that the course runs, and whether the sandbox can
"$here/venv/bin/python" -m grader check max_fn --impl solutions
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grader/release/gradescope.py grades it and writes
# results/results.json. AUTOGRADER_ROOT moves Gradescope's folder (default /autograder);
# AUTOGRADER_PYTHON names a Python with the course's dependencies (default: setup.sh's).
root="${AUTOGRADER_ROOT:-/autograder}"
export PYTHONPATH="$root/source/course"  # the zip's course, whatever else that Python has installed
export PYTHONSAFEPATH=1  # no Python it starts puts its working folder (a submission's?) on its import path
exec "${AUTOGRADER_PYTHON:-$root/source/venv/bin/python}" -P -m grader.release.gradescope "$root" {options}
"""


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT.zip", help="the zip to write, outside the course's folder")
    parser.add_argument("--secret-file", type=Path, default=None, metavar="FILE",
                        help="the grading secret put in the zip: read from FILE where it exists, else drawn "
                             "and kept there (mode 0600). Default: drawn for this build and kept beside the "
                             "zip, as OUT.secret; the path is printed")
    parser.add_argument("--config", type=Path, default=None, metavar="TOML",
                        help="the grading config put in the zip: points, partial credit, what Gradescope "
                             "shows (docs/grading.md). Default: 1 point an exercise, partial credit, visible")
    parser.add_argument("--exercises", nargs="+", default=None, metavar="EXERCISE", type=exercise_id,
                        help="the exercises this assignment grades (default: all)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade without the sandbox, for a Gradescope whose containers cannot run "
                             "bubblewrap: each submission's code then runs as root beside the reference, "
                             "the secret and results.json (said in every results.json)")
    parser.add_argument("--gpu-torch", action="store_true",
                        help="setup.sh installs torch from pip's default index (a CUDA build of several GB) "
                             "instead of its CPU build")


def run(args) -> int:
    """`grader autograder OUT.zip`; what stops the build (a bad config, a secret in the way) is a UsageError."""
    kept = args.secret_file or args.out.with_suffix(".secret")
    drawn = not kept.exists() or args.secret_file is None
    try:
        grading_config.load(args.config, args.exercises or [e.id for e in exercises.EXERCISES])
        if drawn and kept.exists():  # never replace a secret: grades given may rest on it
            raise secret.SecretError(f"{kept} exists: pass --secret-file {kept} to build with that secret, "
                                     "or move it aside")
        key = secret.draw() if drawn else secret.read(kept)
        build(args.out, key, args.exercises or [], not args.no_sandbox,
              args.config.read_bytes() if args.config else None, args.gpu_torch)
        if drawn:
            secret.write(kept, key)
    except (OSError, course.ReleaseError, grading_config.ConfigError, secret.SecretError) as exc:
        raise UsageError(str(exc)) from None
    graded = ", ".join(args.exercises) if args.exercises else "every exercise"
    print(f"wrote {args.out}: setup.sh (torch's {'default' if args.gpu_torch else 'CPU'} build), run_autograder "
          f"({graded}{', UNSANDBOXED' if args.no_sandbox else ''}), secret, "
          f"{'grading.toml, ' if args.config else ''}course/ ({', '.join(GRADING)}).\n"
          f"The grading secret {'drawn for it is kept in' if drawn else 'is the one in'} {kept} (mode 0600): "
          "every seed is derived from it, and no seed shown gives it back. Upload the zip as the "
          "assignment's autograder; it holds the reference and the secret, so keep it from learners.")
    return 0


def build(out: Path, key: bytes, exercise_ids: list[str], sandboxed: bool = True, config: bytes | None = None,
          gpu_torch: bool = False) -> None:
    """Write the autograder zip to ``out``: its ``run_autograder`` grading ``exercise_ids`` (all
    when empty) with the secret ``key`` and the grading ``config`` (TOML, or None: the defaults)."""
    out = course.outside(out, "the autograder (it holds the reference and the grading secret)")
    options = " ".join(['--secret-file "$root/source/secret"',
                        *(['--config "$root/source/grading.toml"'] if config else []),
                        *(["--exercises", *exercise_ids] if exercise_ids else []),
                        *(["--no-sandbox"] if not sandboxed else [])])
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        _add(archive, "setup.sh", SETUP.replace("{torch_index}", "" if gpu_torch else CPU_TORCH).encode(),
             EXECUTABLE)
        _add(archive, "run_autograder", RUN_AUTOGRADER.replace("{options}", options).encode(), EXECUTABLE)
        _add(archive, "secret", (key.hex() + "\n").encode(), PRIVATE)
        if config is not None:
            _add(archive, "grading.toml", config, READABLE)
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
