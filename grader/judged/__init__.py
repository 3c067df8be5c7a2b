"""What a check hands its judges: every judge's one frozen dataclass argument, and the values
that argument carries, one module per family (``verifiers``, ``loops``, ``losses``, ``trees``;
suffix_tree's apart, in ``suffix_tree``, since its case imports the reference's SuffixIndex,
which suffix_index's runner withholds).

The rule: a judge's argument is declared here, never in a check or a judge. Both halves
import it: a check (grader/checks/, the runner's half) builds one, the decider's judge
(grader/judges/, the half the sandbox hides) reads it. So this room imports nothing of
either half, only what both may import (the oracle, observers, models, the verdict's types
and the reference); tests/test_layout.py holds it to that.
"""
