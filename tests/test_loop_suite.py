"""The loop suite (grader/checks/loop_properties.py and grader/judges/loop_properties.py):
its typed judge references resolve, the loop judges import no check but the suite, its one
`generated` helper turns a wrong return into the failure it names, and the law cases keep the
labels that seed their draws."""
import ast
import importlib
import types
from pathlib import Path

import pytest

from grader import exercises
from grader.checks import harness
from grader.checks import loop_properties as suite
from grader.verdict import FAILED

ROOT = Path(__file__).resolve().parents[1]
LOOP_CHECKS = ["loop_properties", "autoregressive", "speculative_generate", "kv_cache", "ngram", "adaptive_generate",
               "eagle_generate", "eagle_tree_generate", "tree_generate", "suffix_generate", "batched_generate",
               "static_cache", "fast_suffix_generate"]
LOOP_JUDGES = ["loop_properties", "speculative_generate", "kv_cache", "ngram", "adaptive_generate", "eagle_generate",
               "tree_generate", "suffix_generate", "batched_generate"]
SUITE = {"grader.checks.harness", "grader.checks.loop_properties"}


def judge_references() -> list[tuple[str, str, suite.Judge]]:
    """(check module, attribute, reference) of every module-level `Judge` of the loop checks."""
    found = []
    for name in LOOP_CHECKS:
        module = importlib.import_module(f"grader.checks.{name}")
        found += [(name, attribute, value) for attribute, value in vars(module).items()
                  if isinstance(value, suite.Judge)]
    return found


def unresolved(references: list[tuple[str, str, suite.Judge]]) -> list[str]:
    """"check.ATTRIBUTE: name" of each reference naming no function of grader.judges (a bare
    name is the check's own judge module's)."""
    missing = []
    for check, attribute, reference in references:
        module, _, function = reference.name.rpartition(".")
        judges = importlib.import_module(f"grader.judges.{module or check}")
        if not callable(getattr(judges, function, None)):
            missing.append(f"{check}.{attribute}: {reference.name}")
    return missing


def test_every_judge_reference_resolves():
    references = judge_references()
    assert len(references) >= 20
    assert unresolved(references) == []


def test_a_reference_that_resolves_nowhere_is_named():
    assert unresolved([("ngram", "X", suite.Judge("ngram.no_such_judge")), ("suffix_generate", "Y", suite.Judge("forward")),
                       ("ngram", "Z", suite.Judge("loop_properties.greedy"))]) == \
        ["ngram.X: ngram.no_such_judge", "suffix_generate.Y: forward"]


def runtime_imports(path: Path) -> set[str]:
    """The grader.checks modules a file imports when it runs (not under ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text())
    guarded = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
               and getattr(block.test, "id", "") == "TYPE_CHECKING" for node in ast.walk(block)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("grader.checks"):
            found |= {node.module} if node.module != "grader.checks" else {f"grader.checks.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("grader.checks")}
    return found


@pytest.mark.parametrize("name", LOOP_JUDGES)
def test_loop_judges_import_only_the_suite(name):
    """Hint texts and argument types come from the suite's runner half, never an exercise's check
    (tree_generate's judge still reads the law-test options through verifier_rounds)."""
    allowed = SUITE | ({"grader.checks.verifier_rounds"} if name == "tree_generate" else set())
    assert runtime_imports(ROOT / "grader" / "judges" / f"{name}.py") - allowed == set()


def test_runtime_imports_sees_a_check_import(tmp_path):
    planted = tmp_path / "judge.py"
    planted.write_text("from typing import TYPE_CHECKING\nfrom grader.checks import ngram\n"
                       "if TYPE_CHECKING:\n    from grader.checks.tree_generate import Case\n")
    assert runtime_imports(planted) == {"grader.checks.ngram"}


def checked_with(result) -> harness.CheckRun:
    module = types.SimpleNamespace(loop=lambda *args, **kwargs: result)
    return harness.CheckRun(exercises.get("autoregressive_generate"), module, seed=0)


@pytest.mark.parametrize("returns, result, prop, words", [
    (None, ([1, 2], 0.5), "return type", "expected a list of Python ints"),
    (None, [1, 2.0], "return type", "expected a list of Python ints"),
    (suite.RATE, [1, 2], "return type", "expected a tuple (ids, acceptance_rate)"),
    (suite.RATE, ([1, 2], 1.5), "acceptance rate", "expected a Python float in [0, 1]"),
    (suite.RATE, ([1, 2], True), "acceptance rate", "expected a Python float in [0, 1]"),
])
def test_generated_names_a_wrong_return(returns, result, prop, words):
    check = checked_with(result)
    with pytest.raises(harness.Stop) as stopped:
        suite.generated(check, check.module.loop, [0], what="(a test)", returns=returns)
    finding, = stopped.value.findings
    assert stopped.value.status == FAILED and finding.name == prop and words in finding.message


def test_generated_gives_a_right_return_and_fills_defaults():
    seen = {}

    def loop(prompt, **kwargs):
        seen.update(kwargs)
        return [3, 4], 0.25

    check = checked_with(None)
    assert suite.generated(check, loop, [0], what="", returns=suite.RATE, defaults=suite.GREEDILY,
                           max_gen_len=2) == ([3, 4], 0.25)
    assert list(seen) == ["max_gen_len", "logits_processor"] and seen["logits_processor"] is suite.GREEDY


def test_law_case_labels_are_unchanged():
    """A law case's label seeds its draws: these are the labels the cases had before the suite."""
    from grader.checks import (adaptive_generate, autoregressive, batched_generate, eagle_tree_generate, ngram,
                               speculative_generate, static_cache, suffix_generate, tree_generate)
    from grader.judged.loops import LawCase, row_label
    assert [c.label for c in autoregressive.LAW_CASES][1] == \
        "MultinomialProcessor(temperature=0.6), prompt [2, 3, 4, 5], use_cache=True"
    assert adaptive_generate.LAW_CASES[2].label == \
        "TopKProcessor(temperature=1.0, top_k=3), near drafter, prompt [3], gamma=4, threshold=0.5, max_gen_len=5"
    assert suffix_generate.LAW_CASES[0].label == \
        "MultinomialProcessor(temperature=1.0), random corpus, prompt [0], max_nodes=6, threshold=0.05, max_gen_len=4"
    assert eagle_tree_generate.LAW_CASES[1].label == \
        "MultinomialProcessor(temperature=0.6), prompt [2, 3, 4, 5], depth=3, top_k=3, total=6, max_gen_len=4"
    assert static_cache.AUTOREGRESSIVE_LAW.label == "MultinomialProcessor(temperature=0.6), prompt [2, 3, 4, 5]"
    assert speculative_generate.ACCEPTANCE_CASE.label == \
        "MultinomialProcessor(temperature=2.0), prompt [3, 5], gamma=3, near drafter, max_gen_len=4, first_target=False"
    assert static_cache.LAW_CASES[0].label == \
        "MultinomialProcessor(temperature=1.0), prompt [0], gamma=2, near drafter, max_gen_len=4, first_target=True"
    assert ngram.LAW_CASES[3].label == \
        "MultinomialProcessor(temperature=1.5), prompt [0, 5, 0, 5, 0, 5], PromptLookup(NGramStorage(4, 6)), " \
        "gamma=1, max_gen_len=4, first_target=False, stop_if_unknown=True"
    assert tree_generate.LAW_CASES[1].label == \
        "MultinomialProcessor(temperature=0.8), prompt [2, 3], branching=(2, 2), GPT-2 drafter, max_gen_len=4, " \
        "eos_tokens_id=1000000, use_cache=True"
    assert row_label(batched_generate.LAW_CASES[1], 1) == \
        "row 1, prompt [3] of MultinomialProcessor(temperature=0.6), prompts [[5, 1, 2], [3]], gamma=3, GPT-2 " \
        "drafter, max_gen_len=4, pad_token_id=3, eos_tokens_id=[2]"
    for module in (autoregressive, adaptive_generate, suffix_generate, eagle_tree_generate, speculative_generate,
                   static_cache, ngram, tree_generate, batched_generate):
        ids = [c.id for c in module.LAW_CASES]
        assert all(ids) and len(set(ids)) == len(ids), module.__name__
        assert all(isinstance(c, LawCase) for c in module.LAW_CASES), f"{module.__name__}: one case type"
