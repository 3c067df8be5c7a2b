"""The audit's family false-alarm rate on whole texts drawn autoregressively on the tiny pair
(grader/audit/text_study.py): each simulated audit draws 96 texts × 40 tokens token by token
from the target's law, then is decided by the audit's own code (weighted Holm at 1e-3).

    python scripts/audit_text_study.py [--arms float64 float32-cache] [--audits 3000] [--seed 0]
                                       [--first 0] [--out FILE.jsonl] [--pvalues FILE.jsonl]
                                       [--summary FILE.txt]
    python scripts/audit_text_study.py --summarize FILE.jsonl [--summary FILE.txt]
    python scripts/audit_text_study.py --resample TEXTS AUDITS [--arms float64] [--summary FILE.txt]

Arms: ``float64`` (each token from the law the audit computes: the dependence between a text's
tokens alone), ``float32-cache`` (drawn as a sampler does, float32 with a KV cache, the audit in
float64), ``colder`` (half the temperature: not exact, it must alarm). ``--out`` gets one short
JSON line per audit as it is decided (verdict, rejected tests, pooled p-values, each kind's
smallest per-position p-value, the law gap, seconds); ``--pvalues`` one line per audit with
every test's p-value (what ``--summarize`` reads: a run cut short keeps what it decided).
The summary (alarms, exact bounds, each test's uniformity and lower tail) goes to stdout and
``--summary``. The arms take turns, 25 audits at a time (drawn in one batch); one torch thread; the one-minute load is
printed every 100 audits and at the start and end.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

BATCH = 25  # audits drawn at once per arm (their texts in one batch); the seeds depend on it


def main() -> int:
    from grader.audit import text_study

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", nargs="+", choices=text_study.ARMS, default=list(text_study.NULL_ARMS))
    parser.add_argument("--audits", type=int, default=3000, help="simulated audits per arm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help=f"index of the first audit (to continue a run: a multiple of {BATCH})")
    parser.add_argument("--out", default=None, help="one short JSON line per audit (appended)")
    parser.add_argument("--pvalues", default=None, help="one JSON line per audit with every p-value (appended)")
    parser.add_argument("--summary", default=None, help="write the summary here too")
    parser.add_argument("--summarize", metavar="PVALUES.jsonl", help="run nothing: summarize an earlier --pvalues")
    parser.add_argument("--pair", choices=["tiny", "shipped"], default="tiny",
                        help="with --resample: the tiny pair (default) or the shipped one (its float64 arm is the "
                             "float32 model's own law, as its real audits compute it)")
    parser.add_argument("--resample", nargs=2, type=int, metavar=("TEXTS", "AUDITS"),
                        help="instead of audits: draw TEXTS texts of each of --arms, then resample AUDITS audits of "
                             "96 of them and count the pooled drafter tests' normal p-values at or below 1e-3, "
                             "1.25e-4 (the pooled threshold), 1e-5 and 1.6e-6 (text_study.pooled_z_tail)")
    args = parser.parse_args()
    if args.resample:
        return resample(args)
    if args.audits < 1 or args.first < 0 or args.first % BATCH:
        parser.error(f"--audits must be positive and --first a multiple of {BATCH} (each batch's seed is its first's)")
    if args.summarize:
        by_arm = read_pvalues(Path(args.summarize))
    else:
        by_arm = study(args)
    text = json.dumps({arm: text_study.summary(found) for arm, found in by_arm.items()}, indent=1)
    print(text)
    if args.summary:
        Path(args.summary).write_text(text + "\n")
    return 0


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def study(args) -> dict:
    """Each arm's audits, decided one by one; lines appended to ``--out`` and ``--pvalues``."""
    import torch

    from grader.audit import text_study

    torch.set_num_threads(1)
    pair = text_study.StudyPair.tiny()
    by_arm = {arm: [] for arm in args.arms}
    start, before = time.perf_counter(), load()
    with open(args.out or os.devnull, "a") as out, open(args.pvalues or os.devnull, "a") as full:
        for first in range(args.first, args.first + args.audits, BATCH):  # the arms in turn: a run cut short has each
            count = min(BATCH, args.first + args.audits - first)
            for arm in args.arms:
                for index, audit in enumerate(text_study.audit_batch(pair, arm, first, count, args.seed), first):
                    by_arm[arm].append(audit)
                    out.write(json.dumps(short_line(arm, index, audit)) + "\n")
                    full.write(json.dumps({"arm": arm, "audit": index, "alarm": audit.alarm,
                                           "rejected": audit.rejected, "law_gap": audit.law_gap,
                                           "seconds": round(audit.seconds, 3),
                                           "p": {name: float(f"{p:.5g}") for name, p in audit.p_values.items()}}) + "\n")
                    if audit.alarm:
                        print(f"{arm} audit {index}: ALARM {audit.rejected}", file=sys.stderr, flush=True)
                out.flush(), full.flush()
            print(f"{first + count - args.first} audits per arm, {time.perf_counter() - start:.0f} s, load {load()}",
                  file=sys.stderr, flush=True)
    print(f"{args.audits} audits per arm ({', '.join(args.arms)}): {time.perf_counter() - start:.0f} s wall, "
          f"load {before} -> {load()}", file=sys.stderr, flush=True)
    return by_arm


def resample(args) -> int:
    """The pooled drafter z's law under the texts' real dependence: per-text sums, resampled."""
    import numpy as np
    import torch

    from grader.audit import text_study

    torch.set_num_threads(1)
    pair, found = getattr(text_study.StudyPair, args.pair)(), {}
    for arm in args.arms:
        start, before = time.perf_counter(), load()
        rows = text_study.text_sums(pair, arm, args.resample[0], args.seed,
                                    batch=2400 if args.pair == "tiny" else 240)  # the shipped logits: 280 MB a batch
        found[arm] = {"texts": args.resample[0], "audits": args.resample[1],
                      "seconds_drawing": round(time.perf_counter() - start, 1), "load": f"{before} -> {load()}"}
        for kind, sums in rows.items():
            s, v = sums[:, 0], sums[:, 1]
            found[arm][kind] = {"mean_S": float(s.mean()), "sd_S": float(s.std()), "sqrt_mean_V": float(np.sqrt(v.mean())),
                                "skewness": float(np.mean((s - s.mean()) ** 3) / s.std() ** 3),
                                "excess_kurtosis": float(np.mean((s - s.mean()) ** 4) / s.std() ** 4 - 3),
                                "at_or_below": text_study.pooled_z_tail(sums, args.resample[1],
                                                                        (1e-3, 1.25e-4, 1e-5, 1.6e-6), args.seed + 1)}
    text = json.dumps(found, indent=1)
    print(text)
    if args.summary:
        Path(args.summary).write_text(text + "\n")
    return 0


def short_line(arm: str, index: int, audit) -> dict:
    """The verdict, the pooled p-values and each per-position kind's smallest p-value."""
    from grader.audit.text_study import test_kind

    smallest = {}
    for name, p in audit.p_values.items():
        kind = test_kind(name)
        if kind != name:
            smallest[kind] = min(p, smallest.get(kind, 1.0))
    return {"arm": arm, "audit": index, "alarm": audit.alarm, "rejected": audit.rejected,
            "pooled": {name: float(f"{p:.4g}") for name, p in audit.p_values.items() if test_kind(name) == name},
            "smallest_at_a_position": {kind: float(f"{p:.4g}") for kind, p in smallest.items()},
            "law_gap": float(f"{audit.law_gap:.3g}"), "seconds": round(audit.seconds, 3)}


def read_pvalues(path: Path) -> dict:
    from grader.audit.text_study import StudyAudit

    by_arm = {}
    for row in map(json.loads, path.read_text().splitlines()):
        by_arm.setdefault(row["arm"], []).append(StudyAudit(row["alarm"], row["rejected"], row["p"], row["law_gap"],
                                                            row["seconds"]))
    return by_arm


if __name__ == "__main__":
    sys.exit(main())
