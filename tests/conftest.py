import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
torch.set_num_threads(1)  # the tiny models run faster on one thread


@pytest.fixture(autouse=True)
def private_progress(tmp_path, monkeypatch):
    """Each test keeps its own progress file, never the user's."""
    monkeypatch.setenv("GRADER_STATE_DIR", str(tmp_path / "state"))


def run_grader(*args: str, timeout: float = 600, env: dict | None = None):
    """Run ``python -m grader ARGS`` from the repository root; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})
