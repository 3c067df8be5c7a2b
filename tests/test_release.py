"""lessons/ is written from solutions/ (grader/release/lessons.py): one source for every
exercise, its stub, its docstring and the code provided around it."""
import subprocess
import sys

import pytest

from grader.release import lessons as release
from tests.conftest import ROOT, shipped_lessons

SOURCE = '''"""A module."""
import torch

# BEGIN SOLUTION
from solutions.residual import max_fn
# LESSON
# from lessons.residual import max_fn
#
# # a note for the learner
# END SOLUTION


# BEGIN SOLUTION
@torch.no_grad()
# END SOLUTION
def f(x):
    """Its contract, which may quote a marker:
    # BEGIN SOLUTION
    """
    # BEGIN SOLUTION
    return max_fn(x)
    # LESSON
    # raise NotImplementedError
    # END SOLUTION
'''

LESSON = '''"""A module."""
import torch

from lessons.residual import max_fn

# a note for the learner


def f(x):
    """Its contract, which may quote a marker:
    # BEGIN SOLUTION
    """
    raise NotImplementedError
'''


def test_the_shipped_lessons_are_written_from_solutions():
    """Every file of lessons/ equals what the generator writes: git's HEAD copy (what the
    course ships), or the working copy where it was just written and not yet committed.
    A learner's work changes neither, so it never turns this red."""
    written, shipped = release.lessons(), shipped_lessons()
    assert set(shipped) <= set(written), f"lessons without a module in solutions/: {set(shipped) - set(written)}"
    working = {name: path.read_text() for name in written if (path := ROOT / "lessons" / name).is_file()}
    stale = [name for name, text in written.items() if text not in (shipped.get(name), working.get(name))]
    assert not stale, f"lessons/ {stale} differ from solutions/: run `python -m grader.release.lessons`"


def test_a_lesson_keeps_the_shared_text_and_its_own_part():
    assert release.lesson_source(SOURCE) == LESSON


@pytest.mark.parametrize("source, error", [
    ("# END SOLUTION\n", "line 1: '# END SOLUTION' cannot stand outside a block"),
    ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n", "line 2: '# BEGIN SOLUTION' cannot stand inside its '# BEGIN"),
    ("# BEGIN SOLUTION\nx = 1\n", "'# BEGIN SOLUTION' has no '# END SOLUTION'"),
    ("# BEGIN SOLUTION\n# LESSON\nx = 1\n# END SOLUTION\n", "line 3: a lesson line must start with '# '"),
    ("def f():\n    # BEGIN SOLUTION\n    pass\n# END SOLUTION\n", "line 4: '# END SOLUTION' is not indented"),
])
def test_misplaced_markers_are_named(source, error):
    with pytest.raises(release.MarkerError, match=error):
        release.lesson_source(source)


def test_the_command_writes_the_lessons_without_torch(tmp_path):
    """``python -m grader.release.lessons FOLDER``, importable where torch is not installed."""
    probe = (f"import runpy, sys\nsys.argv = ['lessons', {str(tmp_path)!r}]\n"
             "runpy.run_module('grader.release.lessons', run_name='__main__')\n"
             "assert 'torch' not in sys.modules, 'torch was imported'\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert {p.name: p.read_text() for p in tmp_path.glob("*.py")} == release.lessons()
