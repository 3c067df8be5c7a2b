"""The learner's progress board: what `grader list` shows.

The status comes from the last `grader check` of the same code (the exercise's own
functions and the module's shared code, not the other exercises of the file), kept in a
small JSON file of the grader's own, written atomically; code not checked since it last
changed is "not started" while one of its functions only raises NotImplementedError.
"""
import ast
import hashlib
import json
import os
import tempfile
from pathlib import Path

from grader import implementation, meanwhile
from grader.exercises import EXERCISES, Exercise
from grader.verdict import NOT_STARTED, PASSED, Verdict

CHANGED = "changed since last check"
UNCHECKED = "not checked yet"
FAILING = "failing"


def state_file() -> Path:
    base = os.environ.get("GRADER_STATE_DIR") or Path.home() / ".cache" / "speculative-decoding-course"
    return Path(base) / "progress.json"


def _fingerprint(exercise: Exercise, impl: str) -> str | None:
    """A hash of the code the exercise's verdict depends on: its own functions and the
    module's shared code, not the functions of other exercises in the same file."""
    path = implementation.source_file(impl, exercise.module)
    if path is None or not path.is_file():
        return None
    source = path.read_text(errors="replace")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return hashlib.sha256(source.encode()).hexdigest()
    others = {name for e in EXERCISES for name in e.functions} - set(exercise.functions)
    kept = [ast.dump(node) for node in tree.body if getattr(node, "name", None) not in others]
    return hashlib.sha256("\n".join(kept).encode()).hexdigest()


def _key(exercise: Exercise, impl: str) -> str:
    return f"{impl}::{exercise.id}"


def _read() -> dict:
    try:
        return json.loads(state_file().read_text())
    except (OSError, ValueError):
        return {}


def record(verdicts: list[Verdict], impl: str, exercises: dict[str, Exercise]) -> None:
    """Remember each verdict with the fingerprint of the code it judged."""
    state = _read()
    for verdict in verdicts:
        exercise = exercises[verdict.exercise]
        state[_key(exercise, impl)] = {"status": verdict.status,
                                       "fingerprint": _fingerprint(exercise, impl)}
    path = state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as tmp:
        json.dump(state, tmp, indent=1)
    os.replace(tmp.name, path)  # atomic: a reader sees the old file or the new one


def status(exercise: Exercise, impl: str) -> str:
    entry = _read().get(_key(exercise, impl))
    if entry and entry["fingerprint"] == _fingerprint(exercise, impl):
        return entry["status"] if entry["status"] in (PASSED, NOT_STARTED) else FAILING
    if _has_stubs(exercise, impl):
        return NOT_STARTED
    return CHANGED if entry else UNCHECKED


def _has_stubs(exercise: Exercise, impl: str) -> bool:
    """True when a function or method of the exercise still only raises NotImplementedError."""
    return any(meanwhile.is_stub(f) for f in _functions(exercise, impl))


def _functions(exercise: Exercise, impl: str) -> list[ast.FunctionDef]:
    """The exercise's functions, and the methods of its classes, in the code under test."""
    path = implementation.source_file(impl, exercise.module)
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, AttributeError):
        return []
    functions = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in exercise.functions:
            functions += [n for n in node.body if isinstance(n, ast.FunctionDef)]
        elif isinstance(node, ast.FunctionDef) and node.name in exercise.functions:
            functions.append(node)
    return functions
