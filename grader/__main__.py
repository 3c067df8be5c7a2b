from grader import sources

sources.course_alone()  # before the command imports anything: `python -m` put the working folder first
from grader.cli import entry  # noqa: E402

entry()
