"""What checks conclude from the learner's results, run in the decider alone.

A check's judge (``grader/judges/<check>.py``) holds the expected values it compares with
and the properties it records from them. The check calls it through ``check.judge(name,
...)``: the decider runs it, the runner skips it (it would only record properties the
decider decides anyway), and the runner's sandbox covers this folder, so the learner's
code finds no expected value here to answer with. A judge never calls the learner's code
and returns nothing: what the check calls next never depends on it.

Checks move their expected values here one at a time; docs/grading.md lists which have.
"""
