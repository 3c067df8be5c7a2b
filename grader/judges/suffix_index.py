"""The suffix_index check's expected answers, by brute force over the text: the longest
suffix of the context that occurs followed by a token, and the tokens that follow it."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.trees import Answers

LENGTH_HINT = ("the match is the longest suffix of the context that occurs in the text followed by a token.",
               "walk the context through the transitions; when a token has none, follow suffix links "
               "(the length becomes the state's length) until one has it, or the root; at the end, while "
               "the state has no transitions (its strings occur only at the text's end), follow the link once "
               "more")
COUNT_HINT = ("the length is right, the counts are not: counts[token] is your count[] of the state the transition "
              "leads to, its strings' number of end positions, which extend must keep exact as the text grows "
              "(an appended token ends more strings than the new state's; a clone shares the end positions of the "
              "state it splits).",
              "after each append, the new state and every state on its suffix-link path gain one end position "
              "(+1 each); a clone starts with the count of the state it splits")
END_ONLY = ("; a match that occurs only at the text's end, where nothing follows it: fall back along the suffix "
            "links while the state has no transitions")


def brute_force(text: list[int], context: list[int]) -> tuple[int, dict[int, int]]:
    """``(length, {token: count})`` of the longest suffix of ``context`` followed by a token in ``text``."""
    for length in range(len(context), -1, -1):
        pattern, counts = context[len(context) - length:], {}
        for start in range(len(text) - length):
            if text[start:start + length] == pattern:
                counts[text[start + length]] = counts.get(text[start + length], 0) + 1
        if counts or length == 0:
            return length, counts
    raise AssertionError("unreachable: length 0 always answers")


def answers(check: CheckRun, given: Answers) -> None:
    """Each query's ``(length, counts)`` against ``brute_force``'s: the first wrong one shown."""
    case, asked = given.name, given.asked
    wrong = [(text, context, got, brute_force(text, context)) for text, context, got in asked
             if got != brute_force(text, context)]
    if not wrong:
        check.require("the longest match and its counts", True, "", case=case)
        return
    text, context, got, expected = wrong[0]
    found_at_end = got[0] > expected[0] and context[len(context) - got[0]:] == text[len(text) - got[0]:]
    counts_only = got[0] == expected[0]
    check.fail("the longest match and its counts",
               f"{len(wrong)} of {len(asked)} answers wrong; the first: after the text {text}, match({context}) "
               f"returned {got}; expected {expected}" + (END_ONLY if found_at_end else ""),
               COUNT_HINT if counts_only else LENGTH_HINT, case=case)
