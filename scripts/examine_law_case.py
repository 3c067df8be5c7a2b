"""Is a failed law test chance or a bug? Re-draw one sampled case of the
`speculative_generate` / `kv_cache` checks many more times than the check does.

A correct loop fails a check now and then (at most 1e-3 of seeds); a real bias in one case
shows up at any sample size, and far more clearly with many draws. This draws ``--draws``
outputs of the case (with and without the cache) and prints the G-test p-values of the
joint law and of each token's law against the exact law.

    python scripts/examine_law_case.py --case 1 --draws 8000 --impl solutions
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from grader import implementation  # noqa: E402
from grader.checks.loop_properties import models  # noqa: E402
from grader.checks.speculative_generate import LAW_CASES  # noqa: E402
from grader.oracle import laws, stats  # noqa: E402
from solutions.autoregressive import as_list  # noqa: E402

G_TEST = {"statistic": "log-likelihood", "min_expected": 20.0}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", type=int, default=0, help=f"index into LAW_CASES (0–{len(LAW_CASES) - 1})")
    parser.add_argument("--draws", type=int, default=8000)
    parser.add_argument("--impl", default="solutions")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    torch.set_num_threads(1)
    generate = implementation.load(args.impl, "speculative").speculative_generate
    target, drafters = models()
    case = LAW_CASES[args.case]
    law = laws.sequence_law(target, case.prompt, case.max_gen_len, case.processor, as_list(case.eos))
    print(case.label)
    for use_cache in (False, True):
        torch.manual_seed(args.seed + use_cache)  # independent draws: the cache changes no draw
        start = time.perf_counter()
        samples = [tuple(generate(case.prompt, drafters[case.drafter], target, **case.keywords,
                                  use_cache=use_cache)[0])
                   for _ in range(args.draws)]
        joint = stats.goodness_of_fit(samples, law, "sequence", **G_TEST).p_value
        tokens = [stats.goodness_of_fit([s[i] if i < len(s) else None for s in samples],
                                        laws.marginal(law, i), **G_TEST).p_value
                  for i in range(case.max_gen_len)]
        print(f"use_cache={use_cache}: {args.draws} draws, joint law p = {joint:.3g}; token by token p = "
              f"{', '.join(f'{p:.3g}' for p in tokens)} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
