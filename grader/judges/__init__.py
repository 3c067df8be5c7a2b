"""What checks conclude from the learner's results, run in the decider alone.

A check's judge (``grader/judges/<check>.py``) holds the expected values it compares with
and the properties it records from them. The check calls it through ``check.judge(name,
...)``: the decider runs it, the runner skips it (it would only record properties the
decider decides anyway), and the runner's sandbox covers this folder, so the learner's
code finds no expected value here to answer with. A judge never calls the learner's code
and returns nothing, so the arguments of the check's next calls never depend on it. A judge
may end the check (``check.fail``, or a finding before ``stop_if_failed``): the runner,
which never ran it, runs on, and the decider gives the exercises after it to a new runner,
which costs that submission time, never a different verdict.

Every check's expected values are here: the exact laws (``grader.oracle``'s ``laws``,
``acceptance``, ``verifier_laws``, ``tree_laws``), the reference's outputs and the
formulas. A judge shared by several checks is called by a dotted name
(``check.judge("loop_properties.law_tests", ...)``). Where a learner's value is not the right
one, ``mistakes.named_mistake`` names the usual mistake that gives it, if one does (KL's
directions swapped, a sum where a mean is meant, log-probabilities where probabilities are,
a temperature left out or applied twice, the axes transposed).
"""
