"""The grader's parts import only what their role allows (grader/__init__.py says why)."""
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.decider import sandbox
from tests.conftest import ROOT, run_grader

SHARED = {"exercises", "verdict", "wire", "protocol", "implementation", "sources"}
FRONTS = {"__init__", "__main__", "cli", "commands", "notebook", "grade", "gradebook", "progress"}
CORE = ("checks", "judged", "judges", "oracle", "decider", "runner", "observers", "models", *sorted(SHARED))  # grading
TOOLS = ("bench", "figures", "audit", "studies")  # measuring, drawing, the audit, the studies: beside grading
ALLOWED = {  # part -> the grader's parts and course packages it may import
    "oracle": set(),  # exact laws from their inputs alone: no reference code
    "observers": set(),
    "models": set(),
    "exercises": {"sources"},  # EXPORTS, read from the text of solutions/: MODULES and each module's __all__
    "verdict": set(),
    "wire": set(),
    "protocol": {"verdict"},  # a runner's Stop carries findings and a status
    "implementation": {"sources"},
    "sources": set(),
    "checks": {"exercises", "judged", "meanwhile", "models", "observers", "oracle", "solutions", "verdict"},  # meanwhile:
    # a stub's verdict names every unfinished step the exercise reaches
    "judged": {"models", "observers", "oracle", "solutions", "verdict"},  # what a check hands a judge: what both
    # halves may import, and neither half
    "judges": {"checks", "judged", "models", "observers", "oracle", "solutions", "verdict"},  # the decider's alone
    "decider": {"checks", "exercises", "observers", "protocol", "sources", "verdict", "wire"},
    "runner": {"checks", "exercises", "implementation", "observers", "protocol", "sources", "wire"},
    "meanwhile": {"exercises"},
    "arguments": {"exercises", "implementation"},  # the command line's value parsers and usage error
    "release": {"arguments", "decider", "exercises", "implementation", "sources"},  # lessons/ and the public reference written from the
    # reference's files, never importing them (the public one stubbed as the decider stubs a grading runner's)
    "bench": {"arguments", "figures", "implementation", "meanwhile", "models", "observers", "solutions"},
    "figures": {"observers", "solutions"},  # drawing what the bench and the observers measured
    "audit": {"arguments", "bench", "checks", "implementation", "models", "oracle", "solutions"},  # bench: its Phases timer
    "studies": {"bench", "checks", "decider", "exercises", "implementation", "models", "observers", "oracle",
                "runner", "solutions", "verdict"},  # the grader's studies of itself, never part of grading
    **{front: {"arguments", "audit", "bench", "checks", "commands", "decider", "exercises", "implementation",
               "meanwhile", "models", "observers", "progress", "grade", "gradebook", "notebook", "cli", "release",
               "sources", "verdict"}
       for front in FRONTS},
}


def part(module: str) -> str:
    """``grader.decider.run`` -> ``decider``; ``solutions.trees`` -> ``solutions``."""
    names = module.split(".")
    if names[0] != "grader":
        return names[0]
    return names[1] if len(names) > 1 else "__init__"


def part_of(path: Path, root: Path) -> str:
    """The part a file of ``root/grader`` belongs to."""
    return part(".".join(path.relative_to(root).with_suffix("").parts))


def imported(tree: ast.Module) -> set[str]:
    """Every module an import statement names, anywhere in the file (inside functions too)."""
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "grader":  # `from grader import notebook` names a part
                modules.update(f"grader.{alias.name}" for alias in node.names)
            else:
                modules.add(node.module)
    return modules


def violations(root: Path) -> list[str]:
    """'grader/x.py imports y' for every import of the course's code its part may not make."""
    found = []
    for path in sorted((root / "grader").rglob("*.py")):
        relative, here = path.relative_to(root), part_of(path, root)
        for module in sorted(imported(ast.parse(path.read_text()))):
            there = part(module)
            if module.split(".")[0] not in ("grader", "lessons", "solutions") or there == here:
                continue
            if there not in ALLOWED.get(here, set()):
                found.append(f"{relative} ({here}) imports {module}")
    return found


def test_every_part_imports_only_what_its_role_allows():
    assert violations(ROOT) == []


def test_every_part_of_the_grader_has_a_rule():
    parts = {part_of(path, ROOT) for path in (ROOT / "grader").rglob("*.py")}
    assert parts <= ALLOWED.keys(), f"parts without a rule: {sorted(parts - ALLOWED.keys())}"


@pytest.mark.parametrize("where, code, module", [
    ("decider/run.py", "from grader import implementation", "grader.implementation"),
    ("oracle/tree_laws.py", "from solutions.trees import MEDUSA_ALPHA", "solutions.trees"),
    ("decider/replay.py", "from grader.runner.record import RecordingCheckRun", "grader.runner.record"),
    ("checks/max_fn.py", "import lessons.residual", "lessons.residual"),
    ("oracle/laws.py", "from grader.checks import harness", "grader.checks"),
    ("runner/record.py", "def load():\n    from lessons import residual", "lessons"),
    ("judged/loops.py", "from grader.checks.loop_properties import models", "grader.checks.loop_properties"),
    ("judged/trees.py", "from grader.judges import tree_suite", "grader.judges"),
])
def test_a_forbidden_import_is_named(tmp_path, where, code, module):
    path = tmp_path / "grader" / where
    path.parent.mkdir(parents=True)
    path.write_text(f"import torch\n{code}\n")
    assert violations(tmp_path) == [f"{Path('grader', where)} ({where.split('/')[0]}) imports {module}"]


# Where a judge's argument lives (grader/judged/__init__.py): the one frozen dataclass a judge
# takes, and the types it carries, are declared in grader/judged/, which both halves import;
# a judge imports of the runner's half (grader/checks/) only the check run's type.


def bindings(tree: ast.Module) -> dict[str, str]:
    """{name: the module it is imported from, or "" where the file declares the class itself}."""
    bound = {alias.asname or alias.name: node.module for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}
    bound.update({node.name: "" for node in ast.walk(tree) if isinstance(node, ast.ClassDef)})
    return bound


def judge_arguments_declared_elsewhere(root: Path) -> list[str]:
    """"judges/x.py f: T from M" for each judge (a function of the judges whose first parameter
    is ``check``) whose second parameter's type is a class of the course declared outside
    grader/judged/, or carries one (``LawRounds[C]``) declared outside it and the oracle (M: the
    module it comes from; "here": the judge's own file)."""
    found = []
    for path in sorted((root / "grader" / "judges").glob("*.py")):
        tree = ast.parse(path.read_text())
        bound = bindings(tree)
        for node in tree.body:
            arguments = node.args.args if isinstance(node, ast.FunctionDef) else []
            if len(arguments) < 2 or arguments[0].arg != "check" or arguments[1].annotation is None:
                continue
            annotation = arguments[1].annotation
            if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                annotation = ast.parse(annotation.value, mode="eval").body
            outer = annotation.value if isinstance(annotation, ast.Subscript) else annotation
            for name in sorted({n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}):
                module = bound.get(name)
                if module is None or module and part(module) not in ("checks", "judged", "judges", "oracle"):
                    continue  # a builtin, or no class of the grader's (typing, torch, the reference)
                rooms = ("grader.judged",) if isinstance(outer, ast.Name) and outer.id == name else \
                    ("grader.judged", "grader.oracle")
                if not module.startswith(rooms):
                    found.append(f"judges/{path.name} {node.name}: {name} from {module or 'here'}")
    return found


def judges_importing_checks(root: Path) -> list[str]:
    """"judges/x.py imports M" for each module of grader/checks/ a judge imports (anywhere in
    the file, TYPE_CHECKING included) beyond the check run's type."""
    return [f"judges/{path.name} imports {module}" for path in sorted((root / "grader" / "judges").glob("*.py"))
            for module in sorted(imported(ast.parse(path.read_text())))
            if part(module) == "checks" and module != "grader.checks.harness"]


def test_every_judges_argument_is_declared_in_the_judged_room():
    assert judge_arguments_declared_elsewhere(ROOT) == []


def test_a_judge_imports_of_the_checks_only_the_check_runs_type():
    assert judges_importing_checks(ROOT) == []


@pytest.mark.parametrize("code, named", [
    ("from grader.checks.max_fn import Outputs\n\ndef compare(check, judged: Outputs):\n    pass\n",
     ["judges/max_fn.py compare: Outputs from grader.checks.max_fn", "judges/max_fn.py imports grader.checks.max_fn"]),
    ("from __future__ import annotations\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
     "    from grader.checks.loop_properties import LoopRun\n\ndef greedy(check, run: 'LoopRun') -> None:\n    pass\n",
     ["judges/max_fn.py greedy: LoopRun from grader.checks.loop_properties",
      "judges/max_fn.py imports grader.checks.loop_properties"]),
    ("from dataclasses import dataclass\nfrom grader.judged.verifiers import LawRounds\n\n@dataclass(frozen=True)\n"
     "class Case:\n    p: list\n\ndef laws(check, rounds: LawRounds[Case]) -> None:\n    pass\n",
     ["judges/max_fn.py laws: Case from here"]),
    ("from grader.oracle.verifier_cases import RoundCase\n\ndef laws(check, case: RoundCase) -> None:\n    pass\n",
     ["judges/max_fn.py laws: RoundCase from grader.oracle.verifier_cases"]),
    ("from grader.checks.harness import CheckRun\nfrom grader.judged.verifiers import Outputs, Recorder\n\n"
     "def compare(check: Recorder, judged: Outputs) -> None:\n    pass\n\ndef gap(check: CheckRun, got: float):\n"
     "    pass\n", []),
])
def test_a_judges_argument_declared_elsewhere_is_named(tmp_path, code, named):
    """A judge taking a check's dataclass (at run time or for types only), or declaring its own,
    is named; one taking the room's, and a helper taking a number, are not."""
    path = tmp_path / "grader" / "judges" / "max_fn.py"
    path.parent.mkdir(parents=True)
    path.write_text(code)
    assert judge_arguments_declared_elsewhere(tmp_path) + judges_importing_checks(tmp_path) == named


def test_the_reference_imports_nothing_of_the_grader():
    """``solutions`` owns its exports (``MODULES``, each module's ``__all__``): the grader reads them, never the reverse."""
    assert not [f"{path.relative_to(ROOT)} imports {module}" for path in sorted((ROOT / "solutions").glob("*.py"))
                for module in imported(ast.parse(path.read_text())) if part(module) == "grader"
                and module != "grader.runner.reference"]  # lesson stubs' ReferenceWithheld: the release's


def test_the_grader_reads_the_references_exports():
    import solutions
    from grader import exercises
    assert exercises.EXPORTS == solutions.EXPORTS
    assert solutions.__all__ == [name for names in exercises.EXPORTS.values() for name in names]


@pytest.mark.parametrize("init, residual, said", [
    ("MODULES = tuple(['residual'])\n", "__all__ = ['max_fn']\n",
     "solutions/__init__.py has no `MODULES = (module, ...)` literal"),
    ("MODULES = ('residual',)\n", "__all__ = [f.__name__ for f in (max_fn,)]\n",
     "solutions/residual.py has no `__all__ = [name, ...]` literal"),
    ("MODULES = ('residual', 'verification')\n", "__all__ = ['max_fn']\n",
     "no source of the module `solutions.verification`")])
def test_exports_must_be_literals(tmp_path, monkeypatch, init, residual, said):
    """``EXPORTS`` is read from the reference's text, so ``MODULES`` and each module's
    ``__all__`` must be written as literals, and every module listed must exist."""
    from grader import sources
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "__init__.py").write_text(init)
    (tmp_path / "solutions" / "residual.py").write_text(residual)
    monkeypatch.setattr(sources.importlib.util, "find_spec",
                        lambda name: sources.importlib.util.spec_from_file_location(
                            name, tmp_path / "solutions" / "__init__.py"))
    with pytest.raises(ValueError, match=re.escape(said)):
        sources.exports()
    assert "solutions.residual" not in sys.modules or sys.modules["solutions.residual"].__file__ != str(
        tmp_path / "solutions" / "residual.py")  # read, never imported


def test_the_oracles_medusa_constants_are_the_references_defaults():
    from grader.oracle import tree_laws
    from solutions import trees
    assert (tree_laws.MEDUSA_THRESHOLD, tree_laws.MEDUSA_ALPHA) == (trees.MEDUSA_THRESHOLD, trees.MEDUSA_ALPHA)


def test_whether_the_reference_is_installed_is_asked_of_implementation():
    """The fronts ask ``grader.implementation`` (``has_reference``, ``has_checks``), not the release."""
    asked = {path.relative_to(ROOT).as_posix() for path in (ROOT / "grader").rglob("*.py")
             if re.search(r"\b(student|release)\.has_(reference|checks)\b", path.read_text())}
    assert asked == set()
    from grader import implementation
    assert implementation.has_checks() and implementation.has_reference()


def test_importing_grader_has_no_side_effect():
    """``import grader`` installs no import hook and imports nothing else of the course; the
    processes that need the source-only finder install it (``sources.course_alone``)."""
    probe = ("import sys\nbefore = list(sys.meta_path)\nimport grader\n"
             "print(sys.meta_path == before, sorted(m for m in sys.modules if m.startswith(('grader', 'solutions'))))\n"
             "from grader import sources\nsources.course_alone()\n"
             "print(type(sys.meta_path[0]).__name__)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                            timeout=120, check=True)
    assert result.stdout.split("\n")[:2] == ["True ['grader']", "SourceOnlyFinder"]


def test_no_part_of_grading_imports_a_tool():
    assert {core: sorted(ALLOWED[core] & set(TOOLS)) for core in CORE} == {core: [] for core in CORE}


@pytest.mark.parametrize("core", CORE)
@pytest.mark.parametrize("tool", TOOLS)
def test_a_tool_imported_by_grading_is_named(tmp_path, core, tool):
    where = f"{core}.py" if core in SHARED else f"{core}/probe.py"
    path = tmp_path / "grader" / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"def later():\n    from grader.{tool} import anything\n")
    assert violations(tmp_path) == [f"{Path('grader', where)} ({core}) imports grader.{tool}"]


def test_the_decider_process_never_imports_the_learners_code(tmp_path):
    """The learner's file is imported by the runner alone: the decider's ``sys.modules``
    holds neither it nor the code that would import it. Unsandboxed, so that the file can
    leave a mark of the process that imported it."""
    marker = tmp_path / "imported_by"
    learner = tmp_path / "my_max_fn.py"
    learner.write_text(f"import os\nopen({str(marker)!r}, 'a').write(str(os.getpid()) + '\\n')\n"
                       "def max_fn(x):\n    x = x.clamp(min=0)\n    s = x.sum(-1, keepdim=True)\n"
                       "    return x / s.where(s > 0, 1)\n")
    probe = ("import os, sys\n"
             "from grader.decider import run_isolated\n"
             f"verdict, = run_isolated(['max_fn'], {str(learner)!r}, 0, sandboxed=False)\n"
             "print(verdict.status, os.getpid())\n"
             "print(sorted(m for m in sys.modules if m.startswith(('lessons', 'learner_'))\n"
             "             or m in ('grader.implementation', 'grader.runner')))\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    status_line, modules = result.stdout.splitlines()[-2:]
    status, decider_pid = status_line.split()
    assert status == "passed"  # the file was imported, called and tested: by the runner
    importers = marker.read_text().split()
    assert importers and decider_pid not in importers
    assert modules == "[]"


def test_the_runner_never_imports_a_judge(tmp_path):
    """The judges (the checks' expected values) are the decider's: a runner, even unsandboxed,
    has none of them in ``sys.modules`` while the learner's code runs."""
    learner = tmp_path / "lists_modules.py"
    learner.write_text("import sys\n\ndef max_fn(x):\n"
                       "    print('judges:', sorted(m for m in sys.modules if m.startswith('grader.judges')))\n"
                       "    return x\n")
    result = run_grader("check", "max_fn", "--impl", str(learner), "--no-sandbox", "--json")
    verdict = json.loads(result.stdout.strip().splitlines()[-1])["checks"][0]
    assert verdict["status"] == "failed" and "judges: []" in verdict["output"], verdict


def test_no_check_imports_what_the_sandbox_covers():
    """The runner imports every check it runs; none may import a judge or an exact law
    (``sandbox.DECIDER_ONLY``), which the sandbox covers: they are used in judges alone."""
    script = ("import importlib, pkgutil, sys, grader.checks, grader.runner.record\n"
              "for m in pkgutil.iter_modules(grader.checks.__path__):\n"
              "    importlib.import_module(f'grader.checks.{m.name}')\n"
              "print(sorted(sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                            timeout=300, check=True).stdout
    covered = [p.removesuffix(".py").replace("/", ".") for p in sandbox.DECIDER_ONLY if "__pycache__" not in p]
    assert not [m for m in ast.literal_eval(loaded) if m.startswith(tuple(covered))]


# The replay rule (grader/checks/harness.py, rule 1): the runner and the decider run the same
# check code, so they must draw the same numbers; a check draws only from generators it seeds
# (``check.generator(key)``, ``np.random.default_rng(seed)``), never from a global one.
TORCH_DRAWS = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
               "multinomial", "bernoulli", "normal", "poisson"}
TENSOR_DRAWS = {"multinomial", "bernoulli", "bernoulli_", "normal_", "uniform_", "exponential_",
                "geometric_", "cauchy_", "log_normal_", "random_"}  # methods, in place or not
TORCH_SEEDS = {"manual_seed", "manual_seed_all", "seed", "seed_all"}
NUMPY_GENERATORS = {"default_rng", "Generator", "SeedSequence", "PCG64"}  # seeded where they are made
GLOBAL_RANDOM_ALLOWED = {  # (file, what) -> why
    ("grader/checks/harness.py", "the random module"): "seed_everything seeds the learner's global "
        "generators from the check's key, so that code drawing from them draws the same in both runs",
    ("grader/checks/harness.py", "torch.manual_seed"): "seed_everything (as above)",
    ("grader/checks/harness.py", "np.random.seed"): "seed_everything (as above)",
}


def dotted(node: ast.AST) -> str | None:
    """``torch.random.manual_seed`` for that attribute chain; None unless it starts at a name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def global_draws(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, what) for every use of a global random number generator in a module: torch's
    (its seeding, and draws without ``generator=``), numpy's module-level ``np.random.*``
    functions, and the random module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and "random" in [alias.name for alias in node.names] \
                or isinstance(node, ast.ImportFrom) and node.module == "random":
            found.append((node.lineno, "the random module"))
        if isinstance(node, ast.ImportFrom) and node.module == "numpy.random" \
                and {alias.name for alias in node.names} - NUMPY_GENERATORS:
            found.append((node.lineno, "np.random"))
        parts = (dotted(node) or "").split(".") if isinstance(node, ast.Attribute) else []
        if len(parts) == 3 and parts[0] in ("np", "numpy") and parts[1] == "random" \
                and parts[2] not in NUMPY_GENERATORS:
            found.append((node.lineno, f"np.random.{parts[2]}"))
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name, attr = dotted(node.func) or "", node.func.attr
        seeded = any(keyword.arg == "generator" for keyword in node.keywords)
        if name.startswith("torch.") and attr in TORCH_SEEDS:
            found.append((node.lineno, f"torch.{attr}"))
        elif not seeded and (name == f"torch.{attr}" and attr in TORCH_DRAWS or attr in TENSOR_DRAWS):
            found.append((node.lineno, f"{name or '<tensor>.' + attr} without generator="))
    return sorted(found)


def global_random_use(root: Path) -> list[tuple[str, str]]:
    """(file:line, what) for each use of a global generator in grader/checks."""
    found = []
    for path in sorted((root / "grader" / "checks").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        found += [(f"{relative}:{line}", what) for line, what in global_draws(ast.parse(path.read_text()))]
    return found


def not_allowed(found: list[tuple[str, str]]) -> list[str]:
    return [f"{where} {what}" for where, what in found
            if (where.split(":")[0], what) not in GLOBAL_RANDOM_ALLOWED]


def test_checks_draw_from_no_global_generator():
    found = global_random_use(ROOT)
    assert not_allowed(found) == []
    used = {(where.split(":")[0], what) for where, what in found}
    assert GLOBAL_RANDOM_ALLOWED.keys() <= used, "an allowance that no longer matches anything"


@pytest.mark.parametrize("code, what", [
    ("x = torch.rand(2, 5)", "torch.rand without generator="),
    ("torch.manual_seed(0)", "torch.manual_seed"),
    ("i = torch.multinomial(q, 1)", "torch.multinomial without generator="),
    ("i = q.multinomial(1)", "q.multinomial without generator="),
    ("x = torch.empty(3).normal_()", "<tensor>.normal_ without generator="),
    ("x = np.random.dirichlet(np.ones(4))", "np.random.dirichlet"),
    ("np.random.seed(0)", "np.random.seed"),
    ("import random", "the random module"),
    ("from random import shuffle", "the random module"),
])
def test_a_global_draw_in_a_check_is_named(tmp_path, code, what):
    """Planted after draws the lint allows (seeded generators), the global one alone is named."""
    lines = ["import numpy as np", "import torch", "", "def run(check):", "    g = check.generator('key')",
             "    x = torch.rand(2, generator=g)", "    q = np.random.default_rng(0).dirichlet(np.ones(4))",
             "    return torch.Generator().manual_seed(1), x.multinomial(1, generator=g)", code]
    path = tmp_path / "grader" / "checks" / "planted.py"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    assert not_allowed(global_random_use(tmp_path)) == [f"grader/checks/planted.py:{len(lines)} {what}"]
