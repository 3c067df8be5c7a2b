import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
torch.set_num_threads(1)  # the tiny models run faster on one thread


@pytest.fixture(autouse=True)
def private_progress(tmp_path, monkeypatch):
    """Each test keeps its own progress file, never the user's."""
    monkeypatch.setenv("GRADER_STATE_DIR", str(tmp_path / "state"))


def run_grader(*args: str, timeout: float = 600, env: dict | None = None):
    """Run ``python -m grader ARGS`` from the repository root; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


PRISTINE = "pristine_lessons"  # the package name the shipped stubs are imported under


@pytest.fixture(scope="session")
def pristine_lessons(tmp_path_factory) -> Path:
    """The `lessons` package as the repository ships it, importable as `pristine_lessons`.

    The files come from git's HEAD (the working copy where there is no git), so a learner's
    work in `lessons/` never changes what the stub tests see. Their imports of `lessons.*`
    are renamed, so a half-written lesson of the learner's is never imported either.
    Returns the directory to put on the path (``PYTHONPATH`` for a subprocess).
    """
    root = tmp_path_factory.mktemp("pristine")
    package = root / PRISTINE
    package.mkdir()
    for name, text in shipped_lessons().items():
        (package / name).write_text(re.sub(r"\blessons\b(?=[.\s])", PRISTINE, text))
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))


def shipped_lessons() -> dict[str, str]:
    """{file name: text} of lessons/*.py at HEAD, or of the working copy without git."""
    git = shutil.which("git")
    listing = subprocess.run([git, "ls-tree", "--name-only", "HEAD", "lessons/"], cwd=ROOT,
                             capture_output=True, text=True) if git else None
    if listing is None or listing.returncode != 0:
        return {p.name: p.read_text() for p in (ROOT / "lessons").glob("*.py")}
    names = [Path(line).name for line in listing.stdout.split() if line.endswith(".py")]
    return {name: subprocess.run([git, "show", f"HEAD:lessons/{name}"], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout for name in names}
