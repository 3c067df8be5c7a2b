"""Valid variants of the reference (``tests/valid_variants/``): correct code written
another way, which the checks must pass; their failure rates over many seeds measure
each check's false failures.

Two forms: a file that is itself an implementation of lesson 2's verifiers (checked by
the two statistical verifier checks), and a patch of a solutions module in the form of
a mutant (``grader/studies/mutants.py``) that may name several checks and the properties that
do not apply to it.
"""
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader import exercises
from grader.studies import mutants
from grader.studies.in_process import run_check
from grader.verdict import PASSED

FOLDER = Path(__file__).resolve().parents[2] / "tests" / "valid_variants"
VERIFIER_CHECKS = ("speculative_decoding_verify", "speculative_sampling")


@dataclass
class Variant:
    name: str
    exercises: tuple[str, ...]
    patched: mutants.Mutant | None  # None: the file is itself the implementation

    def implementation(self, folder: Path) -> str:
        """A path ``--impl`` accepts; a patched variant is written into ``folder``."""
        if self.patched is None:
            return str(FOLDER / f"{self.name}.py")
        return str(mutants.build(self.patched, folder))

    def applies(self, name: str) -> bool:
        return self.patched is None or self.patched.applies(name)


def all_variants(folder: Path = FOLDER) -> list[Variant]:
    found = [Variant(p.stem, VERIFIER_CHECKS, None) for p in sorted(folder.glob("*.py"))]
    for path in sorted(folder.glob("*/*.py")):
        patched = mutants.load(path)
        found.append(Variant(patched.name, patched.exercises, patched))
    return found


def failed_properties(variant: Variant | None, exercise: str, seed: int, folder: Path) -> list[str]:
    """The properties that apply to ``variant`` (None: the reference) and failed under
    ``seed``. A check that did not run to its end (an error, or a failed property that
    the later ones depend on) fails as a whole: what it did not run cannot pass."""
    impl = "solutions" if variant is None else variant.implementation(folder)
    verdict = run_check(exercises.get(exercise), impl, seed)
    if verdict.status != PASSED and (verdict.stopped or not verdict.findings):
        return [f"{verdict.status}: {verdict.summary}"]
    return [f.property for f in verdict.findings if variant is None or variant.applies(f.name)]


def run_one(name: str, exercise: str, seed: int) -> list[str]:
    """``failed_properties`` for the variant called ``name`` ("reference": the solutions),
    on one thread, its patched file in a folder of its own: a worker process's job."""
    import torch

    torch.set_num_threads(1)
    variant = next((v for v in all_variants() if v.name == name), None)
    with tempfile.TemporaryDirectory() as folder:
        return failed_properties(variant, exercise, seed, Path(folder))
