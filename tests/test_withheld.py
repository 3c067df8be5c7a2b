"""The reference a grading runner gets (grader/decider/reference.py, grader/runner/reference.py):
the graded exercises' names are stubs, nothing of their bodies is left, the rest works."""
import ast
import json
import subprocess
import sys

from grader import exercises
from grader.decider.reference import reference_sources
from grader.release import lessons as release
from tests.conftest import ROOT

USE_STUBS = """
import json, sys, torch
from grader.runner.reference import ReferenceWithheld, SentReference
SentReference(json.loads(sys.stdin.read()))
import solutions.residual, solutions.sampling, solutions.autoregressive
seen = {"as_list": solutions.autoregressive.as_list(3), "repr": repr(solutions.sampling.GreedyProcessor())}
for name, call in (("max_fn", lambda: solutions.residual.max_fn(torch.zeros(3))),
                   ("greedy", lambda: solutions.sampling.GreedyProcessor()(torch.zeros(3)))):
    try:
        call()
        seen[name] = "ran"
    except ReferenceWithheld as exc:
        seen[name] = str(exc)
print(json.dumps(seen))
"""


def test_withheld_names_raise_and_the_rest_of_the_reference_works():
    sent = json.dumps(reference_sources(("max_fn", "processors")))
    result = subprocess.run([sys.executable, "-c", USE_STUBS], input=sent, capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["as_list"] == [3] and seen["repr"] == "GreedyProcessor()"
    assert seen["max_fn"].startswith("`solutions.residual.max_fn` is withheld while max_fn is graded")
    assert "`solutions.sampling.GreedyProcessor.__call__` is withheld while processors" in seen["greedy"]


def test_nothing_of_a_withheld_body_is_sent():
    for exercise in exercises.EXERCISES:
        sent = ast.parse(reference_sources((exercise.id,))[f"solutions.{exercise.module}"])
        full = ast.parse((ROOT / "solutions" / f"{exercise.module}.py").read_text())
        for name in exercise.withheld:
            stub, = [n for n in sent.body if getattr(n, "name", None) == name]
            original, = [n for n in full.body if getattr(n, "name", None) == name]
            statements = {ast.dump(s) for f in ast.walk(original) if isinstance(f, ast.FunctionDef)
                          and not f.name.startswith("__") for s in f.body[1:]}
            assert not statements & {ast.dump(s) for s in ast.walk(stub) if isinstance(s, ast.stmt)}, \
                (exercise.id, name)


def test_every_stub_a_learner_writes_is_withheld_with_its_exercise():
    """A lesson's function that raises NotImplementedError belongs to an exercise of its module
    (``functions`` or ``helpers``): otherwise a grading runner would hold its reference. The
    lessons as written from solutions/, so a learner's own stubs in lessons/ are theirs."""
    for file, source in release.lessons().items():
        module = file.removesuffix(".py")
        withheld = {name for e in exercises.EXERCISES if e.module == module for name in e.withheld}
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and "NotImplementedError" in ast.unparse(node):
                assert node.name in withheld, f"lessons/{file}: {node.name}"
