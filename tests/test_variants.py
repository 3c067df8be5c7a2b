"""Valid variants of the reference (tests/valid_variants/) pass the checks they apply to.

The fast tests run each whole-loop variant under the default seed (the verifier and
n-gram variants have theirs in test_verifiers.py and test_ngram.py). The slow test,
``pytest -m slow tests/test_variants.py -s``, runs every variant under seeds 0–49 for
each check it applies to and prints the failure rate next to the 1e-3 a check allows;
``GRADER_WORKERS`` sets how many checks run at once (default: one per CPU).
"""
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from grader.harness import FAMILY_ERROR_RATE
from grader.variants import all_variants, failed_properties

SEEDS = range(50)
# at 1e-3 per run, two failures in 50 runs happen with probability 1.2e-3
MOST_FAILURES = 1
VARIANTS = all_variants()
WHOLE_LOOP = [v for v in VARIANTS if v.patched is not None and v.patched.module == "speculative"]
PAIRS = [(v, e) for v in VARIANTS for e in v.exercises]


@pytest.mark.parametrize("variant,exercise", [(v, e) for v in WHOLE_LOOP for e in v.exercises],
                         ids=lambda x: x if isinstance(x, str) else x.name)
def test_whole_loop_variant_passes(variant, exercise, tmp_path):
    failed = failed_properties(variant, exercise, 0, tmp_path)
    assert not failed, failed


def _one_run(job: tuple[str, str, int, str]) -> list[str]:
    import torch

    torch.set_num_threads(1)
    name, exercise, seed, folder = job
    variant = next(v for v in VARIANTS if v.name == name)
    own = Path(folder) / str(seed)  # a patched file per run: none is rewritten while imported
    own.mkdir()
    return failed_properties(variant, exercise, seed, own)


@pytest.mark.slow
@pytest.mark.parametrize("variant,exercise", PAIRS, ids=lambda x: x if isinstance(x, str) else x.name)
def test_failure_rate_over_seeds(variant, exercise, tmp_path):
    workers = int(os.environ.get("GRADER_WORKERS", os.cpu_count() or 1))
    jobs = [(variant.name, exercise, seed, str(tmp_path)) for seed in SEEDS]
    with ProcessPoolExecutor(workers) as pool:
        results = list(pool.map(_one_run, jobs))
    failures = {seed: failed for seed, failed in zip(SEEDS, results) if failed}
    print(f"\n{variant.name} / {exercise}: failed {len(failures)} of {len(SEEDS)} seeds "
          f"(rate {len(failures) / len(SEEDS):.3f}; a check allows {FAMILY_ERROR_RATE:g}) {failures}")
    assert len(failures) <= MOST_FAILURES, failures
