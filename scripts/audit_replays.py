"""Audit every replayed engine bug (tests/audit_samplers/, one file per published issue) on the
shipped pair and print one row each: the verdict, the smallest p-value (pooled, and over every
test), the diagnosis, and the verdict the replay records for ``--quick`` (``QUICK_VERDICT``).

    python scripts/audit_replays.py [--texts 16] [--new-tokens 40] [--seed 0] [--only NAME ...] [--json]

The default draws are ``grader audit --quick``'s (16 texts × 40 tokens after the held-out
prompts), at the audit's default settings (temperature 0.8, top-p 0.95, gamma 4). One torch
thread; the machine's one-minute load is printed before and after each replay, as other work
slows every timing. Exit 0 when every verdict is the recorded one, 1 otherwise (at other
draws than --quick's a recorded PASS may fairly become a FAIL: more draws, more power).
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

from grader.audit import command

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "audit_samplers"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=command.QUICK_TEXTS)
    parser.add_argument("--new-tokens", type=int, default=command.DEFAULT_NEW_TOKENS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="replays by file name, e.g. openvino_4190")
    parser.add_argument("--json", action="store_true", help="one JSON object per replay")
    args = parser.parse_args()

    import torch

    from grader.audit import adapters
    from grader.audit.diagnosis import diagnose
    from grader.audit.pit import is_pooled
    from grader.audit.replay import replays
    from grader.models import load_pair

    torch.set_num_threads(1)
    chosen = [r for r in replays(FOLDER) if not args.only or r.path.stem in args.only]
    if args.only and len(chosen) != len(args.only):
        parser.error(f"--only names a replay that is not in {FOLDER}: {sorted(args.only)}")
    target, drafter, tokenizer = load_pair("cpu")
    settings = adapters.Sampling(0.8, None, 0.95)
    as_recorded = True
    for replay in chosen:
        load_before, start = os.getloadavg()[0], time.perf_counter()
        adapter = adapters.load_adapter_file(str(replay.path), target, drafter, settings, args.new_tokens)
        _, record, tests, _ = command.shipped_audit(adapter, tokenizer, args.texts, args.new_tokens, args.seed, drafter)
        verdict = "FAIL" if any(t.rejected for t in tests) else "PASS"
        smallest = min(tests, key=lambda t: t.p_value)
        smallest_pooled = min((t for t in tests if is_pooled(t)), key=lambda t: t.p_value)
        row = {"replay": replay.path.stem, "engine": replay.engine, "issue": replay.issue, "verdict": verdict,
               "quick_verdict": replay.quick_verdict, "rejected": sum(t.rejected for t in tests), "tests": len(tests),
               "smallest_p": [smallest.name, smallest.p_value, float(smallest.statistic)],
               "smallest_pooled_p": [smallest_pooled.name, smallest_pooled.p_value],
               "diagnosis": diagnose(tests, record.token_stats), "seconds": round(time.perf_counter() - start, 1),
               "load": [round(load_before, 2), round(os.getloadavg()[0], 2)]}
        as_recorded &= verdict == replay.quick_verdict
        if args.json:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        else:
            print(f"{replay.path.stem:<22} {replay.issue:<38} {verdict} (--quick: {replay.quick_verdict}), "
                  f"{row['rejected']} of {len(tests)} tests; smallest p {smallest.p_value:.3g} ({smallest.name}, "
                  f"statistic {smallest.statistic:+.4g}); "
                  f"pooled {smallest_pooled.p_value:.3g} ({smallest_pooled.name}); {row['seconds']} s, "
                  f"load {row['load'][0]} -> {row['load'][1]}", flush=True)
            for line in row["diagnosis"]:
                print(f"    diagnosis: {line}", flush=True)
    return 0 if as_recorded else 1


if __name__ == "__main__":
    sys.exit(main())
