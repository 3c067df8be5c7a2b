"""Audit every replayed engine bug (tests/audit_samplers/, one file per published issue) on the
shipped pair and print one row each: the verdict, the smallest p-value (pooled, and over every
test), the diagnosis, and the verdict the replay records for ``--quick`` (``QUICK_VERDICT``).

    python scripts/audit_replays.py [--texts 16] [--new-tokens 40] [--seed 0] [--only NAME ...] [--json]

The default draws are ``grader audit --quick``'s (16 texts × 40 tokens after the held-out
prompts), at the audit's default settings (temperature 0.8, top-p 0.95, gamma 4) unless a
replay declares its own (``SETTINGS``: a bug that shows only with top-k, say). One torch
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
    parser.add_argument("--table", nargs=2, metavar=("QUICK.jsonl", "DEFAULT.jsonl"),
                        help="audit nothing: print docs/audit.md's table from two --json runs (--quick's draws, "
                             "then --texts 96), a replay missing from the second left blank there")
    args = parser.parse_args()
    if args.table:
        print(table(*map(read_rows, args.table)))
        return 0

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
    defaults = adapters.Sampling(0.8, None, 0.95)
    as_recorded = True
    for replay in chosen:
        load_before, start = os.getloadavg()[0], time.perf_counter()
        settings = replay.settings or defaults
        adapter = adapters.load_adapter_file(str(replay.path), target, drafter, settings, args.new_tokens)
        _, record, tests, statement = command.shipped_audit(adapter, tokenizer, args.texts, args.new_tokens, args.seed,
                                                            drafter)
        verdict = "FAIL" if any(t.rejected for t in tests) else "PASS"
        smallest = min(tests, key=lambda t: t.p_value)
        smallest_pooled = min((t for t in tests if is_pooled(t)), key=lambda t: t.p_value)
        row = {"replay": replay.path.stem, "engine": replay.engine, "issue": replay.issue, "settings": str(settings),
               "verdict": verdict,
               "quick_verdict": replay.quick_verdict, "rejected": sum(t.rejected for t in tests), "tests": len(tests),
               "smallest_p": [smallest.name, smallest.p_value, float(smallest.statistic)],
               "smallest_pooled_p": [smallest_pooled.name, smallest_pooled.p_value],
               "diagnosis": diagnose(tests, record.token_stats), "power": vars(statement),
               "seconds": round(time.perf_counter() - start, 1),
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


def read_rows(path: str) -> dict[str, dict]:
    """The rows a --json run printed, by replay name (a later row of the same replay wins)."""
    rows = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["replay"]] = row
    return rows


def table(quick: dict[str, dict], default: dict[str, dict]) -> str:
    """docs/audit.md's table of the replays: each replay's verdict and smallest p-value at
    ``--quick``'s draws and at the default's, and, where it passed, the smallest colder
    temperature error and drafter mixture its draws catch (the power statement)."""
    def verdict(row):
        if row is None:
            return "not run"
        smallest = row["smallest_p"][0]
        for words in (" (KS)", " (z)", " (tokens with p(x) = 0)"):
            smallest = smallest.replace(words, "")
        rejected = f", {row['rejected']} tests" if row["rejected"] > 1 else ""
        return f"{row['verdict']}{rejected}; p = {row['smallest_p'][1]:.2g} ({smallest})"

    def power(row):
        if row is None or row["verdict"] == "FAIL" or "power" not in row:  # rows of runs before it was recorded
            return ""
        cold, mixture = row["power"]["colder"], row["power"]["mixture"]
        return (f"T / (1 + r) from r = {cold:.2f}" if cold else "T / (1 + r) not within r ≤ 4") + \
            (f"; ε = {mixture:.3f}" if mixture else "")

    from grader.audit.replay import replays

    mechanisms = {r.path.stem: r.mechanism for r in replays(FOLDER)}
    lines = [("| engine | issue | mechanism replayed | `--quick` (16 texts) | default (96 texts) | power where passed "
              "(quick; default) | `--quick` time (load) |"), "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, row in sorted(quick.items(), key=lambda item: (item[1]["engine"], item[0])):
        full = default.get(name)
        powers = "; ".join(filter(None, (power(row), power(full) and f"default: {power(full)}")))
        lines.append(f"| {row['engine']} | {row['issue']} | {mechanisms[name]} | {verdict(row)} | {verdict(full)} | "
                     f"{powers} | {row['seconds']:.0f} s ({row['load'][0]:.1f} → {row['load'][1]:.1f}) |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
