"""The scripts and notebooks name only modules and names the course has: every import in
them resolves (inside functions too), every name a script reads from a course module
exists, and every script answers --help. A rename in the
package cannot break them silently."""
import ast
import importlib
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
COURSE = ("grader", "solutions", "lessons")


def source(path) -> str:
    if path.suffix == ".py":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return "\n".join(line for cell in code for line in cell.splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def unresolved(path) -> list[str]:
    """'module.name' for every import of the course's code in ``path`` that fails."""
    missing = []
    for node in ast.walk(ast.parse(source(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in COURSE:
            module = importlib.import_module(node.module)
            for alias in (a for a in node.names if not hasattr(module, a.name)):
                try:  # a submodule not imported yet
                    importlib.import_module(f"{node.module}.{alias.name}")
                except ImportError:
                    missing.append(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in (a for a in node.names if a.name.split(".")[0] in COURSE):
                try:
                    importlib.import_module(alias.name)
                except ImportError:
                    missing.append(alias.name)
    return missing


def unread(path) -> list[str]:
    """'module.name' for every ``name`` that ``path`` reads from a course module it imported
    by name (``from grader.checks import tree_generate`` ... ``tree_generate.models()``) and
    that the module lacks: what a move of a function to another module leaves behind."""
    tree = ast.parse(source(path))
    modules = {}  # the name a course module is bound to -> the module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in COURSE:
            for alias in node.names:
                value = getattr(importlib.import_module(node.module), alias.name, None)
                if value is None:  # a submodule not imported yet
                    value = importlib.import_module(f"{node.module}.{alias.name}")
                if isinstance(value, type(ast)):
                    modules[alias.asname or alias.name] = value
        elif isinstance(node, ast.Import):
            for alias in (a for a in node.names if a.asname and a.name.split(".")[0] in COURSE):
                modules[alias.asname] = importlib.import_module(alias.name)
    return sorted({f"{node.value.id}.{node.attr}" for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                   and isinstance(node.value, ast.Name) and node.value.id in modules
                   and not hasattr(modules[node.value.id], node.attr)})


@pytest.mark.parametrize("path", SCRIPTS + NOTEBOOKS, ids=lambda p: p.name)
def test_every_import_resolves(path):
    assert unresolved(path) == []


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_name_read_from_a_course_module_exists(path):
    assert unread(path) == []


# Each script run as a program with --help, all in one fresh Python: torch and the course are
# imported once, not once a script (about 5 s each)
ANSWER_HELP = """
import contextlib, io, json, runpy, sys
answers = {}
for path in sys.argv[1:]:
    sys.argv, printed, code = [path, "--help"], io.StringIO(), None
    with contextlib.redirect_stdout(printed):
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as stop:
            code = stop.code
        except Exception as error:  # this script's failure alone
            code = repr(error)
    answers[path] = [code, printed.getvalue()]
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def help_answers() -> dict[str, list]:
    """{script's path: [its exit code (None where it did not exit, the error where it raised),
    what it printed]}."""
    result = subprocess.run([sys.executable, "-c", ANSWER_HELP, *map(str, SCRIPTS)], capture_output=True,
                            text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_script_answers_help(path, help_answers):
    code, printed = help_answers[str(path)]
    assert code == 0 and "usage" in printed.lower(), (code, printed[-2000:])
