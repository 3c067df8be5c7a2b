"""Notebook prose that states a check's constants (draws, cases, γ, thresholds, the error rate)
says what the check's code holds: each statement is read from the notebook's text and compared
with the constant it states."""
import json
import re

import pytest

from grader.checks import ngram, speculative_generate, verify_numpy
from grader.checks.harness import FAMILY_ERROR_RATE
from grader.oracle.stats import LAW_TEST
from tests.conftest import ROOT

WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
         "ten": 10}


def prose(notebook: str) -> str:
    """The markdown of a notebook, its lines joined with spaces (a statement may wrap)."""
    cells = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text())["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")


def stated(text: str, pattern: str) -> tuple[str, ...]:
    """The groups of ``pattern``'s one match in ``text``; fails when it is absent or repeated."""
    found = re.findall(pattern, text)
    assert len(found) == 1, f"expected one statement matching {pattern!r}, found {found}"
    return found[0] if isinstance(found[0], tuple) else (found[0],)


def integers(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)]


def number(word: str) -> int:
    return WORDS[word] if word in WORDS else int(word.replace(",", ""))


def rate(text: str) -> float:
    """``1e-3`` or ``$10^{-3}$`` as a float."""
    power = re.fullmatch(r"\$10\^\{(-?\d+)\}\$", text)
    return 10.0 ** int(power.group(1)) if power else float(text)


CLAIMS = {  # what the notebook states -> (notebook, pattern, its reading, the check's value)
    "the numpy verifier's rounds per case": (
        "01_max_fn", r"for ([\d,]+) rounds on each of (\w+) fixed", lambda s: (number(s[0]), number(s[1])),
        (verify_numpy.LAW_DRAWS, len(verify_numpy.CASES))),
    "the numpy verifier's draft lengths": (
        "01_max_fn", r"\$k \\in \\\{([\d, ]+)\\\}\$", lambda s: sorted(integers(s[0])),
        sorted({case.k for case in verify_numpy.CASES})),
    "the verifier tests' pooling": (
        "01_max_fn", r"cells pooled until each is expected (\d+) times", lambda s: float(s[0]),
        LAW_TEST["min_expected"]),
    "the verifier's family error rate": (
        "01_max_fn", r"a correct verifier fails at about (\$10\^\{-\d+\}\$)", lambda s: rate(s[0]), FAMILY_ERROR_RATE),
    "the loop's greedy gammas": (
        "03_speculative_generate", r"greedy output equal to the target's alone \(γ = ([\d, ]+),",
        lambda s: integers(s[0]), [kwargs["gamma"] for _, kwargs in speculative_generate.GREEDY_RUNS]),
    "the loop's law draws": (
        "03_speculative_generate", r"against (\d+)–(\d+) runs of your loop", lambda s: (int(s[0]), int(s[1])),
        (min(c.draws for c in [*speculative_generate.LAW_CASES, speculative_generate.ACCEPTANCE_CASE]),
         max(c.draws for c in [*speculative_generate.LAW_CASES, speculative_generate.ACCEPTANCE_CASE]))),
    "the loop's law gammas": (
        "03_speculative_generate", r"γ ∈ \{([\d, ]+)\}", lambda s: sorted(integers(s[0])),
        sorted({c.shape["gamma"] for c in [*speculative_generate.LAW_CASES, speculative_generate.ACCEPTANCE_CASE]})),
    "the loop's family error rate": (
        "03_speculative_generate", r"a correct loop fails with probability at most (1e-\d)", lambda s: rate(s[0]),
        FAMILY_ERROR_RATE),
    "the n-gram loop's law draws": (
        "05_ngram", r"against (\d+) runs of your loop", lambda s: {int(s[0])}, {c.draws for c in ngram.LAW_CASES}),
}


@pytest.mark.parametrize("claim", CLAIMS)
def test_notebook_prose_states_the_checks_constants(claim):
    notebook, pattern, reading, value = CLAIMS[claim]
    assert reading(stated(prose(notebook), pattern)) == value, f"notebooks/{notebook}.ipynb on {claim}"


@pytest.mark.parametrize("claim, old, new", [("the numpy verifier's rounds per case", "2,000 rounds", "3,000 rounds"),
                                              ("the loop's law gammas", "γ ∈ {1, 2, 3, 4}", "γ ∈ {1, 2, 4}"),
                                              ("the loop's law draws", "300–400 runs", "300–500 runs")])
def test_prose_that_differs_from_the_check_is_caught(claim, old, new):
    notebook, pattern, reading, value = CLAIMS[claim]
    text = prose(notebook)
    assert old in text
    assert reading(stated(text.replace(old, new), pattern)) != value
