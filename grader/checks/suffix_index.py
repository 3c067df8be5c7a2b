"""Check `SuffixIndex` (lesson 12): the longest suffix of a context found in the text,
followed by a token, and how often each token follows it (``match``, provided, reads the
learner's ``find`` and the counts ``extend`` keeps), on texts whose answers are known:
repeats, overlapping occurrences, a text appended in pieces (the automaton's clones), a
match that occurs only at the text's end, the empty match and the empty text; then random
texts over two and three tokens. The brute-force answers are the decider's alone
(grader/judges/suffix_index.py)."""
from dataclasses import dataclass

import torch

from grader.checks.harness import CheckRun
from grader.judged.trees import Answers


@dataclass(frozen=True)
class Case:
    """``SuffixIndex(first)``, then for each ``(tokens, queries)`` of ``steps``: ``extend(tokens)``
    (when not empty), then ``match(query)`` for each query."""
    name: str
    first: tuple[int, ...]
    steps: tuple[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], ...]


CASES = [
    Case("repeats", (1, 2, 1, 2, 1, 2, 3), (((), ((1, 2), (2, 1, 2), (7, 1), (3,), (2, 3), ())),)),
    Case("overlapping occurrences", (5, 5, 5, 5, 5), (((), ((5,), (5, 5), (5, 5, 5, 5), (5,) * 7, (0, 5))),)),
    Case("appended in pieces", (1, 2, 3), (((), ((1, 2), (3,))), ((1, 2), ((1, 2), (0, 1), (2,))),
                                          ((4, 1, 2, 3, 1), ((1, 2), (2, 3), (3, 1), (9, 1))),
                                          ((2, 4), ((1, 2), (4,), (2, 4), (1, 2, 4))))),
    Case("clones: ab, then b alone, then ab again", (1, 2), (((2,), ((2,), (1, 2), (2, 2))),
                                                           ((1, 2, 2, 1), ((2,), (2, 2), (1,), (2, 1))))),
    Case("a clone's count: the [2, 3] of [1, 2, 3] seen again", (1, 2, 3, 2, 3), (((), ((), (2,), (1, 2))),)),
    Case("the empty match", (0, 1, 0, 2), (((), ((), (4,), (3, 4), (1, 3))),)),
    Case("an empty text", (), (((), ((), (1,))), ((3,), ((3,), ())), ((3,), ((3,), (3, 3), ())))),
]

RANDOM_TEXTS = 4  # texts drawn from the check's seed, over vocabularies of 2 and 3 tokens
RESULT_HINT = ("match(context) returns (length, counts): length a Python int, counts a dict {token: count} "
               "of Python ints; it calls your find(context), which returns (length, state), and children(state), "
               "which reads your count[]")


def random_cases(check: CheckRun) -> list[Case]:
    """Texts of 40 tokens appended in four pieces, queried after each piece with suffixes of
    the text (found, then cut short by a foreign token) and random contexts."""
    generator = check.generator("random texts")
    cases = []
    for number in range(RANDOM_TEXTS):
        vocab = 2 + number % 2
        text = torch.randint(0, vocab, (40,), generator=generator).tolist()
        steps = []
        for start in range(0, 40, 10):
            so_far = text[:start + 10]
            contexts = [tuple(so_far[-length:]) for length in (1, 3, 6)]
            contexts += [tuple(torch.randint(0, vocab + 1, (length,), generator=generator).tolist())
                         for length in (2, 5, 8)]
            steps.append((tuple(text[start:start + 10]), tuple(contexts)))
        cases.append(Case(f"random text {number + 1} over {vocab} tokens", (), tuple(steps)))
    return cases


def run(check: CheckRun) -> None:
    index_class = check.function("SuffixIndex")
    for case in CASES + random_cases(check):
        check_case(check, index_class, case)


def check_case(check: CheckRun, index_class, case: Case) -> None:
    what = f"({case.name})"
    index = check.call(index_class, list(case.first), what=f"(SuffixIndex({list(case.first)}), {case.name})")
    text, answers = list(case.first), []
    for tokens, queries in case.steps:
        if tokens:
            check.call(index.extend, list(tokens), what=f"(extend({list(tokens)}), {case.name})")
            text += tokens
        for query in queries:
            got = check.call(index.match, list(query), what=f"(match({list(query)}) after {text}, {case.name})")
            answers.append((list(text), list(query), plain(check, got, f"match({list(query)}) {what}")))
    check.judge("answers", Answers(case.name, answers))


def plain(check: CheckRun, result, what: str) -> tuple[int, dict[int, int]]:
    """``(length, counts)`` after checking their types."""
    length, counts = result if isinstance(result, tuple) and len(result) == 2 else (None, None)
    if not (isinstance(length, int) and not isinstance(length, bool) and isinstance(counts, dict)
            and all(isinstance(k, int) and isinstance(v, int) for k, v in counts.items())):
        check.fail("return type", f"{what} returned {str(result)[:120]}", RESULT_HINT)
    return length, counts
