"""Mutants: the reference with one known bug, to prove that a check catches it.

A mutant is a small file in ``tests/mutants/``::

    \"\"\"What the bug is, in one line.\"\"\"
    EXERCISE = "processors"        # the check that must fail
    MODULE = "sampling"            # the solutions module it patches
    PATCHES = [("old text", "new text")]

``build`` applies the patches to ``solutions/<MODULE>.py`` (each old text must occur
exactly once) and writes the result to a new file, which ``--impl`` can check.

A mutant of ``tests/mutants/`` also holds what tests/test_mutants.py expects of it
beyond failing, each an optional non-empty string::

    NAMED = "the name"        # words the message of its verdict's first finding must hold:
                              # a usual mistake (grader/judges/mistakes.py) named
    FIRST_HINT = "the words"  # words the hint of its first failing property must hold
    SLOW = "why"              # it runs only under ``pytest -m slow``, and why (its seconds)

A slow mutant holds no NAMED or FIRST_HINT (the words are checked in the default run).

A valid variant (``tests/valid_variants/``) has the same form: the reference written
another correct way, which its checks must pass. It may name several checks
(``EXERCISES = ("speculative_generate", "kv_cache")``) and the properties that do not
apply to it, by name, with the reason (``NOT_APPLICABLE = {"acceptance rate": "why"}``:
every case of "acceptance rate").

``graded`` runs one check on a mutant or on the reference under one seed, for the scripts
that measure a check's power and false failures (``grader/studies/error_rates/``).
"""
import importlib.util
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SOLUTIONS = Path(importlib.util.find_spec("solutions").origin).parent  # however the course is installed


@dataclass
class Mutant:
    name: str
    description: str
    exercises: tuple[str, ...]  # the checks it is run by: a mutant must fail, a variant pass
    module: str
    patches: list[tuple[str, str]]
    not_applicable: dict[str, str] = field(default_factory=dict)  # property name -> why
    named: str = ""  # NAMED: words its verdict's first finding's message must hold ("": none)
    first_hint: str = ""  # FIRST_HINT: words that finding's hint must hold ("": none)
    slow: str = ""  # SLOW: why it runs only under -m slow ("": it runs by default)

    @property
    def exercise(self) -> str:
        return self.exercises[0]

    def applies(self, name: str) -> bool:
        """Whether the property ``name`` (a finding's name, any case) applies to this variant."""
        return name not in self.not_applicable


EXPECTATIONS = {"NAMED": "the words its verdict must use for its mistake",  # field -> what its text is
                "FIRST_HINT": "the words the hint of its first failing property must hold",
                "SLOW": "why it runs only under -m slow"}
FIELDS = {"EXERCISE", "EXERCISES", "MODULE", "PATCHES", "NOT_APPLICABLE", *EXPECTATIONS}


def load(path: Path) -> Mutant:
    """The mutant or patched variant in the file ``path``.

    Raises ValueError naming the file for an upper-case name that is no field (a misspelt
    ``FIRST_HINTS`` would leave its words unchecked) and for an expectation that is not a
    non-empty string (an empty one is in every text)."""
    spec = importlib.util.spec_from_file_location(f"mutant_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    unknown = sorted(n for n in vars(module) if n.isupper() and not n.startswith("_") and n not in FIELDS)
    if unknown:
        raise ValueError(f"{path}: unknown field {', '.join(unknown)}; a mutant's fields are {', '.join(sorted(FIELDS))}")
    expected = {}
    for name, meaning in EXPECTATIONS.items():
        if hasattr(module, name):
            value = getattr(module, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{path}: {name} must be a non-empty string, {meaning}; got {value!r}")
            expected[name.lower()] = value
    exercises = getattr(module, "EXERCISES", None) or (module.EXERCISE,)
    return Mutant(path.stem, " ".join((module.__doc__ or "").split()), tuple(exercises), module.MODULE,
                  list(module.PATCHES), dict(getattr(module, "NOT_APPLICABLE", {})), **expected)


def build(mutant: Mutant, directory: Path) -> Path:
    source = (SOLUTIONS / f"{mutant.module}.py").read_text()
    for old, new in mutant.patches:
        count = source.count(old)
        if count != 1:
            raise ValueError(f"mutant {mutant.name}: {old!r} occurs {count} times in "
                             f"solutions/{mutant.module}.py; it must occur exactly once")
        source = source.replace(old, new)
    path = directory / f"{mutant.name}.py"
    path.write_text(source)
    return path


def all_mutants(folder: Path) -> list[Mutant]:
    return [load(p) for p in sorted(folder.glob("*.py")) if not p.name.startswith("_")]


def graded(job: tuple[str, str, str, int], findings: bool = False) -> tuple[str, str, int, str, list, float]:
    """(label, exercise, seed, status, failed properties, seconds) of one check.

    ``job`` is (label, exercise, impl, seed): ``impl`` is a mutant's file, built into a
    temporary folder, or, when the label is "reference", the implementation itself
    ("solutions"). One torch thread, so that several can run side by side in worker
    processes. With ``findings`` the failed properties are the ``Finding`` objects, not
    their names (a statistical one has a p-value).
    """
    import torch

    from grader import exercises
    from grader.studies.in_process import run_check

    torch.set_num_threads(1)
    label, exercise, impl, seed = job
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        if label != "reference":
            impl = str(build(load(Path(impl)), Path(folder)))
        verdict = run_check(exercises.get(exercise), impl, seed)
    failed = list(verdict.findings) if findings else [f.property for f in verdict.findings]
    return label, exercise, seed, verdict.status, failed, time.perf_counter() - start
