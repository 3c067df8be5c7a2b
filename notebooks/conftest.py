"""The notebooks as tests (nbval), on the course ``COURSE_IMPL`` names: the reference in CI.

Every cell runs, its studies on less work (``grader.notebook.study_size``). Each
``check("ID")`` cell must show its exercise passed with every property its check declares
(``Exercise.properties``): in CI the reference's verdicts through the sandboxed runner a
learner's notebook uses. On a learner's own ``lessons`` (the default) a check cell shows
their progress, and nothing is asserted.
"""
import os
import re

import pytest

from grader import exercises
from grader.notebook import QUICK_VARIABLE, current_impl

CHECK_CELL = re.compile(r'check\("(\w+)"\)')  # a notebook's check cell, as they are all written


def pytest_configure(config):
    os.environ[QUICK_VARIABLE] = "1"  # the kernels nbval starts inherit it


def check_cell_problem(exercise_id: str, shown: str) -> str | None:
    """What is wrong with ``shown``, the text a ``check(exercise_id)`` cell printed, or None
    when it says the exercise passed with all its declared properties."""
    expected = exercises.get(exercise_id).properties
    passed = re.search(rf"^✔ {exercise_id}: passed\n  all (\d+) properties hold", shown, re.M)
    if passed is None:
        return f"check({exercise_id!r}) did not pass:\n{shown}"
    if int(passed.group(1)) != expected:
        return (f"check({exercise_id!r}) evaluated {passed.group(1)} properties, and "
                f"grader/exercises.py's COMPLETE_PROPERTIES says {expected}: set it to the count")
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    cell = CHECK_CELL.fullmatch(getattr(getattr(item, "cell", None), "source", "").strip())
    if cell and current_impl() != "lessons":
        shown = "".join(output.get("text", "") + output.get("data", {}).get("text/plain", "")
                        for output in item.test_outputs)  # nbval's record of what the cell printed
        problem = check_cell_problem(cell.group(1), shown)
        if problem:
            pytest.fail(f"COURSE_IMPL={current_impl()}: {problem}", pytrace=False)
    return result
