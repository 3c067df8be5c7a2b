"""The stubs as the course ships them: every exercise reports "not started", and a stub
that a learner's function calls is named as the culprit. The stubs come from git's HEAD
(tests/conftest.py), so a learner's progress in lessons/ never turns these tests red."""
import ast
import importlib
import re
import sys

import pytest
import torch

from grader import exercises, meanwhile, progress
from grader.studies.in_process import replayed
from grader.verdict import ERROR, NOT_STARTED, format_text
from tests.conftest import PRISTINE, ROOT, run_grader

EXERCISES = list(exercises.EXERCISES)


def require_stubs(exercise) -> None:
    if not progress._has_stubs(exercise, PRISTINE):
        pytest.skip(f"lessons/{exercise.module}.py at HEAD holds written code, not the stubs")


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_shipped_stub_is_not_started(exercise, pristine_lessons):
    require_stubs(exercise)
    verdict = replayed(exercise, PRISTINE, seed=0)
    assert verdict.status == NOT_STARTED, format_text(verdict, verbose=True)


def test_cli_reports_stubs_as_not_started(pristine_lessons):
    for exercise in ("processors", "autoregressive_generate"):
        require_stubs(exercises.get(exercise))
    result = run_grader("check", "processors", "autoregressive_generate", "--impl", PRISTINE,
                        env={"PYTHONPATH": str(pristine_lessons)})
    assert result.returncode == 1
    assert result.stdout.count("not started") == 2, result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_a_stub_called_by_a_written_function_is_named(tmp_path, pristine_lessons):
    """speculative_sampling written, the max_fn it calls still a stub: an error that names
    max_fn, where it raised and what to do, never "speculative_sampling not started"."""
    require_stubs(exercises.get("max_fn"))
    path = tmp_path / "verifier.py"
    path.write_text(f"from {PRISTINE}.residual import max_fn\n"
                    "from solutions.verification import speculative_sampling as reference\n\n\n"
                    "def speculative_sampling(target_dists, proposal_dists, candidate_tokens, "
                    "generator=None):\n"
                    "    max_fn(target_dists)\n"
                    "    return reference(target_dists, proposal_dists, candidate_tokens, generator)\n")
    verdict = replayed(exercises.get("speculative_sampling"), str(path), seed=0)
    assert verdict.status == ERROR, format_text(verdict)
    for words in ("`max_fn`", "residual.py, line", "`grader check max_fn`",
                  "from solutions.residual import max_fn"):
        assert words in verdict.summary, verdict.summary
    assert "max_fn(target_dists)" in verdict.traceback  # `-v` shows where it was called


def test_a_stub_method_of_the_same_exercise_is_named(tmp_path):
    """Lesson 8: the loop written, `Lane.feed` still a stub: "not started", naming Lane.feed."""
    path = tmp_path / "batched.py"
    path.write_text("class Lane:\n"
                    "    def feed(self, tokens, valid):\n"
                    "        raise NotImplementedError\n\n\n"
                    "def batched_speculative_generate(prompts, drafter, target, **kwargs):\n"
                    "    return Lane().feed(None, None)\n")
    verdict = replayed(exercises.get("batched_generate"), str(path), seed=0)
    assert verdict.status == NOT_STARTED, format_text(verdict)
    assert "`batched_speculative_generate` calls `Lane.feed`" in verdict.summary, verdict.summary


def test_notebooks_find_the_unfinished_step_before_running_anything(pristine_lessons, tmp_path, monkeypatch):
    """What a notebook's ``course()`` hands the reference for: a stub, a class with a stub
    method, and a written loop whose verifier is still a stub (that step is named). A
    default argument is no step the loop calls: a loop whose default processor is a stub is
    finished, and runs with the reference's processor in its place when none is passed."""

    from grader import meanwhile

    stubs = importlib.import_module(PRISTINE)
    assert meanwhile.unfinished_step(stubs.speculative_generate, PRISTINE) == "speculative_generate"
    assert meanwhile.unfinished_step(stubs.GreedyProcessor, PRISTINE) == "GreedyProcessor.__call__"
    half = tmp_path / "half_lessons"
    half.mkdir()
    (half / "__init__.py").write_text("")
    (half / "verification.py").write_text("def speculative_sampling(p, q, drafts, generator=None):\n"
                                          "    \"\"\"To write.\"\"\"\n    raise NotImplementedError\n")
    (half / "sampling.py").write_text("class GreedyProcessor:\n    def __init__(self, temperature=1.0):\n"
                                      "        self.temperature = temperature\n\n"
                                      "    def __call__(self, logits):\n        raise NotImplementedError\n")
    (half / "loop.py").write_text("from half_lessons.sampling import GreedyProcessor\n"
                                  "from half_lessons.verification import speculative_sampling\n\n\n"
                                  "def draft_and_verify(p, q, drafts):\n"
                                  "    return [speculative_sampling(p, q, d) for d in drafts]\n\n\n"
                                  "def generate(logits, logits_processor=GreedyProcessor(0.5)):\n"
                                  "    return logits_processor(logits), logits_processor\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    loop = importlib.import_module("half_lessons.loop")
    assert meanwhile.unfinished_step(loop.draft_and_verify, "half_lessons") == "speculative_sampling"
    assert meanwhile.unfinished_step(loop.generate, "half_lessons") is None
    assert meanwhile.unfinished_loops([loop.generate], "`demo`").startswith(  # a command that passes none
        "`demo` runs your own `generate`, and `GreedyProcessor.__call__` (lesson 0, `grader check processors`)")
    solutions = importlib.import_module("solutions")
    said = []
    generate = meanwhile.reference_defaults(loop.generate, "half_lessons", solutions, lambda *a: said.append(a))
    probs, used = generate(torch.tensor([0.0, 2.0, 1.0]))
    assert type(used) is solutions.GreedyProcessor and used.temperature == 0.5
    assert probs.tolist() == [0.0, 1.0, 0.0] and said == [("logits_processor", "GreedyProcessor.__call__")]

    def mine(logits):
        return logits
    assert generate(7, logits_processor=mine) == (7, mine) and len(said) == 1  # the caller's own: not said
    assert loop.generate.__defaults__[0].__class__ is loop.GreedyProcessor  # the learner's untouched
    assert meanwhile.reference_defaults(loop.draft_and_verify, "half_lessons", solutions) is loop.draft_and_verify
    assert [n for n in solutions.__all__ if meanwhile.unfinished_step(getattr(solutions, n), "solutions")] == []


@pytest.fixture(scope="module")
def eagle_on_stubs(pristine_lessons, tmp_path_factory):
    """Lesson 11 written (the reference's eagle.py), lessons 0–10 the shipped stubs: the
    package ``chain_lessons``, on the path for this module's tests."""
    root = tmp_path_factory.mktemp("chain")
    package = root / "chain_lessons"
    package.mkdir()
    for path in (pristine_lessons / PRISTINE).glob("*.py"):
        (package / path.name).write_text(re.sub(rf"\b{PRISTINE}\b", "chain_lessons", path.read_text()))
    written = (ROOT / "solutions" / "eagle.py").read_text()
    (package / "eagle.py").write_text(re.sub(r"\bsolutions\b(?=[.\s])", "chain_lessons", written))
    sys.path.insert(0, str(root))
    yield package
    sys.path.remove(str(root))


def test_a_stubbed_chain_names_every_unfinished_step_at_once(eagle_on_stubs):
    """eagle_generate written, lessons 0–10 stubs: one verdict names speculative_sampling,
    settle and roll_back, each with its lesson, its check and the import that takes the
    reference's meanwhile (it took three runs, one step each)."""
    verdict = replayed(exercises.get("eagle_generate"), "chain_lessons", seed=0)
    assert verdict.status == ERROR, format_text(verdict)
    for words in ("calls `speculative_sampling` (verification.py, line", "3 unfinished steps",
                  "`speculative_sampling` (lesson 2, `grader check speculative_sampling`)",
                  "`settle`, `roll_back` (lesson 3, `grader check speculative_generate`)",
                  "`from solutions.verification import speculative_sampling`",
                  "`from solutions.speculative import roll_back, settle`"):
        assert words in verdict.summary, verdict.summary
    assert "GreedyProcessor" not in verdict.summary  # a default the check does not use is no step


def test_every_stub_a_function_reaches_is_found(eagle_on_stubs):
    """The walk behind it: the names a function's code loads, transitively, a class's
    methods as its instances resolve them, and a stub's own name; nothing of a finished
    reference."""
    from grader import meanwhile

    eagle = importlib.import_module("chain_lessons.eagle")
    names = {name: [s.name for s in meanwhile.unfinished_steps(getattr(eagle, name), "chain_lessons")]
             for name in ("eagle_generate", "eagle_tree_generate", "grow_tree", "feature_draft_step")}
    assert names == {"eagle_generate": ["speculative_sampling", "settle", "roll_back"],
                     "eagle_tree_generate": ["tree_layout", "max_fn", "settle", "roll_back"],
                     "grow_tree": ["tree_layout"], "feature_draft_step": []}
    sampling = importlib.import_module("chain_lessons.sampling")
    assert [s.name for s in meanwhile.unfinished_steps(sampling.TopKProcessor, "chain_lessons")] == [
        "TopKProcessor.__call__", "keep_top_k", "TopKProcessor.sample"]  # inherited: named by the class asked


def test_no_import_is_offered_for_a_step_the_graded_exercise_withholds():
    """eagle_tree_generate's own step walk_deterministic_tree, or grow_tree, which it withholds,
    is to be written, never imported while it is graded; lesson 3's settle may be."""
    from grader.checks.harness import CheckRun
    from grader.meanwhile import Step

    run = CheckRun(exercises.get("eagle_tree_generate"), None, 0)
    assert not run._importable(Step("walk_deterministic_tree", "eagle"))
    assert not run._importable(Step("grow_tree", "eagle"))
    assert run._importable(Step("settle", "speculative")) and run._importable(Step("GreedyProcessor.sample", "sampling"))


STUB_BODIES = {  # a function's body -> whether it is a stub
    "raise NotImplementedError": True,
    'raise NotImplementedError("write the loop first")': True,
    '"""The contract."""\n    raise NotImplementedError': True,
    # the name in a message is no stub (a test of the text, `in ast.unparse(...)`, said it was)
    'raise ValueError("NotImplementedError")': False,
    "ids = []\n    raise NotImplementedError": False,
    "raise": False,
}


@pytest.mark.parametrize("body", STUB_BODIES)
def test_a_stub_is_one_raise_of_not_implemented_error(body, tmp_path, monkeypatch):
    """Read from the syntax tree, the source of a function (`is_stub`, which `progress` uses)
    and a function object (what the notebooks' stand-ins ask) agree."""
    source = f"def step(x):\n    {body}\n"
    assert meanwhile.is_stub(ast.parse(source).body[0]) is STUB_BODIES[body]
    (tmp_path / "stub_probe.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "stub_probe", raising=False)
    step = importlib.import_module("stub_probe").step
    assert (meanwhile.unfinished_step(step, "stub_probe") == "step") is STUB_BODIES[body]
