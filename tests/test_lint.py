"""ruff, with the rules pyproject.toml selects, passes on the whole course, and mypy on the
typed seams its [tool.mypy] lists (the README's test command runs both through this test)."""
import os
import subprocess
import sys
import tomllib

from tests.conftest import ROOT


def ruff(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_ruff_passes():
    result = ruff(".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_runs_the_configured_rules(tmp_path):
    """A file breaking one rule of each selected family is named, with the course's config."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os, re\nimport sys; x = 1\nsquare = lambda v: v * v\nprint(undefined)\n")
    result = ruff("--config", str(ROOT / "pyproject.toml"), "--output-format", "concise", str(bad), cwd=tmp_path)
    assert result.returncode == 1
    assert {line.split(": ")[1].split()[0] for line in result.stdout.splitlines() if line.startswith("bad.py:")} == {
        "E401", "F401", "E702", "E731", "F821"}


def mypy(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    """mypy with the course's config, no cache read or written (the run takes seconds)."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--no-incremental", "--cache-dir", os.devnull, "--no-color-output", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def test_mypy_passes_on_the_typed_seams():
    """The files pyproject.toml's [tool.mypy] lists agree with their annotations."""
    result = mypy()
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_names_a_type_error_in_a_typed_seam(tmp_path):
    """A copy of protocol.py (and the verdict it imports) with one call against its own
    annotations fails, and mypy's message names the line and the parameter."""
    files = ["grader/protocol.py", "grader/verdict.py"]
    assert set(files) <= set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"])
    for name in files:
        copy = tmp_path / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text((ROOT / name).read_text())
    planted = tmp_path / "grader" / "protocol.py"
    line = len(planted.read_text().splitlines()) + 1
    planted.write_text(planted.read_text() + '_keys({}, {"start"}, what=3)\n')
    result = mypy(*files, cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f'grader/protocol.py:{line}: error: Argument "what" to "_keys" has incompatible type "int"; ' \
           f'expected "str"  [arg-type]' in result.stdout, result.stdout
    assert "Found 1 error in 1 file" in result.stdout
