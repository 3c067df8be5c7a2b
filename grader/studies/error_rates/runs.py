"""The study every power page repeats: each mutant of some checks under many seeds (how
often its check fails it), the reference under as many (how often a check fails correct
code), and the reference's time, one check at a time, beside the machine's load."""
import functools
import statistics
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from grader.bench.timing import load_averages
from grader.studies import mutants

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "tests" / "mutants"


@dataclass
class Run:
    """One check of a mutant (``label`` its name) or of the reference (label "reference")."""

    label: str
    exercise: str
    seed: int
    status: str
    failed: list  # the failed properties' names, or their findings (``run_all(findings=True)``)
    seconds: float

    @property
    def properties(self) -> list[str]:
        """The failed properties' names."""
        return [getattr(p, "property", p) for p in self.failed]


def add_options(parser, seeds: int = 20, reference_seeds: int = 20, jobs: int = 2,
                seeds_help: str = "seeds per mutant") -> None:
    parser.add_argument("--seeds", type=int, default=seeds, help=seeds_help)
    parser.add_argument("--reference-seeds", type=int, default=reference_seeds, help="seeds for the reference")
    parser.add_argument("--jobs", type=int, default=jobs, help="processes")


def mutants_of(exercises: tuple[str, ...]) -> list[mutants.Mutant]:
    """The mutants of ``tests/mutants/`` that these checks must catch."""
    return [m for m in mutants.all_mutants(FOLDER) if m.exercise in exercises]


def jobs(found: list[mutants.Mutant], seeds, exercises: tuple[str, ...], reference_seeds: int) -> list[tuple]:
    """``mutants.graded``'s jobs: each mutant under ``seeds`` (a count, or {name: seeds}),
    then every check on the reference under ``range(reference_seeds)``."""
    chosen = [(m, seed) for m in found for seed in (range(seeds) if isinstance(seeds, int) else seeds[m.name])]
    return ([(m.name, m.exercise, str(FOLDER / f"{m.name}.py"), seed) for m, seed in chosen]
            + [("reference", e, "solutions", seed) for seed in range(reference_seeds) for e in exercises])


def run_all(work: list[tuple], processes: int, findings: bool = False) -> list[Run]:
    """Every job's ``mutants.graded`` in ``processes`` worker processes, printed as it ends."""
    results = []
    with ProcessPoolExecutor(processes) as pool:
        for result in pool.map(functools.partial(mutants.graded, findings=findings), work):
            run = Run(*result)
            results.append(run)
            print(run.label, run.exercise, run.seed, run.status, f"{run.seconds:.1f}s", flush=True)
    return results


def caught_by(runs: list[Run], name=lambda prop: prop.split(" (")[0], most: int = 2) -> list[tuple[str, int]]:
    """The properties that failed most often, by ``name``, each counted once per run."""
    return Counter(n for run in runs for n in dict.fromkeys(name(p) for p in run.properties)).most_common(most)


def detected(runs: list[Run], label: str) -> tuple[int, int]:
    """(runs that failed the mutant called ``label``, its runs)."""
    mine = [r for r in runs if r.label == label]
    return sum(r.status == "failed" for r in mine), len(mine)


def reference_failures(runs: list[Run], exercise: str) -> list[Run]:
    return [r for r in runs if r.label == "reference" and r.exercise == exercise and r.status != "passed"]


def timed(exercises: tuple[str, ...], runs: int = 3) -> tuple[dict, list[str]]:
    """({check: the seconds of ``runs`` runs on the reference, one at a time, in this
    process}, the load averages before and after): a learner runs one check at a time."""
    load = [load_averages()]
    seconds = {e: [mutants.graded(("reference", e, "solutions", seed))[5] for seed in range(runs)]
               for e in exercises}
    return seconds, load + [load_averages()]


def timing(seconds: dict) -> str:
    """"check 1.2 s (max 1.4 s), ..." from ``timed``'s seconds."""
    return ", ".join(f"{e} {statistics.median(s):.1f} s (max {max(s):.1f} s)" for e, s in seconds.items())


def total(seconds: dict) -> float:
    """The checks' medians added up."""
    return sum(statistics.median(s) for s in seconds.values())
