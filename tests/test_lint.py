"""ruff, with the rules pyproject.toml selects, passes on the whole course (the README's test
command runs it through this test)."""
import subprocess
import sys

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
