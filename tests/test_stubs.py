"""The stubs as the course ships them: every exercise reports "not started", and a stub
that a learner's function calls is named as the culprit. The stubs come from git's HEAD
(tests/conftest.py), so a learner's progress in lessons/ never turns these tests red."""
import pytest

from grader import exercises, progress
from grader.studies.in_process import replayed
from grader.verdict import ERROR, NOT_STARTED, format_text
from tests.conftest import PRISTINE, run_grader

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
    method, and a written loop whose verifier, or whose default processor, is still a stub
    (that step is named)."""
    import importlib

    from grader import meanwhile

    stubs = importlib.import_module(PRISTINE)
    assert meanwhile.unfinished_step(stubs.speculative_generate, PRISTINE) == "speculative_generate"
    assert meanwhile.unfinished_step(stubs.GreedyProcessor, PRISTINE) == "GreedyProcessor.__call__"
    half = tmp_path / "half_lessons"
    half.mkdir()
    (half / "__init__.py").write_text("")
    (half / "verification.py").write_text("def speculative_sampling(p, q, drafts, generator=None):\n"
                                          "    \"\"\"To write.\"\"\"\n    raise NotImplementedError\n")
    (half / "sampling.py").write_text("class GreedyProcessor:\n    def __call__(self, logits):\n"
                                      "        raise NotImplementedError\n")
    (half / "loop.py").write_text("from half_lessons.sampling import GreedyProcessor\n"
                                  "from half_lessons.verification import speculative_sampling\n\n\n"
                                  "def draft_and_verify(p, q, drafts):\n"
                                  "    return [speculative_sampling(p, q, d) for d in drafts]\n\n\n"
                                  "def generate(logits, logits_processor=GreedyProcessor()):\n"
                                  "    return logits_processor(logits)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    loop = importlib.import_module("half_lessons.loop")
    assert meanwhile.unfinished_step(loop.draft_and_verify, "half_lessons") == "speculative_sampling"
    assert meanwhile.unfinished_step(loop.generate, "half_lessons") == "GreedyProcessor.__call__"
    solutions = importlib.import_module("solutions")
    assert [n for n in solutions.__all__ if meanwhile.unfinished_step(getattr(solutions, n), "solutions")] == []
