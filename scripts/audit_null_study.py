"""The audit's family false-alarm rate on exact draws (grader/audit/null_study.py): a few real
exact audits at the default draws lend their contexts, then thousands of simulated exact audits
at those contexts are decided by the audit's own rule.

    python scripts/audit_null_study.py [--samplers hf-assisted lessons] [--audits 1500] [--seed 0]
                                       [--texts 96] [--new-tokens 40] [--out FILE.jsonl]

Each real audit (``--samplers``: hf-assisted, prompt-lookup or lessons, the reference loop from
solutions; seed ``--seed`` + its index) is an exact audit too: its verdict is printed. Then
``--audits`` simulated audits per real one. One line of JSON per simulated audit goes to
``--out`` as it is decided (a run cut short keeps its counts), and a summary to stdout: alarms,
the rate's exact 95 % interval, per pooled test the p-values below 1e-3 against those expected,
and (``--compare``) the same pooled p-values of real exact audits recorded earlier beside them.
``--summarize OUT.jsonl`` prints that summary from an earlier (or unfinished) run's lines.
One torch thread; the one-minute load is printed before and after each part.
"""
import argparse
import json
import os
import re
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samplers", nargs="+", default=["hf-assisted", "lessons"],
                        choices=["hf-assisted", "prompt-lookup", "lessons"])
    parser.add_argument("--audits", type=int, default=1500, help="simulated audits per real audit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--texts", type=int, default=96)
    parser.add_argument("--new-tokens", type=int, default=40)
    parser.add_argument("--out", default=None, help="one JSON line per simulated audit")
    parser.add_argument("--summarize", metavar="OUT.jsonl", help="run nothing: the summary of an earlier --out")
    parser.add_argument("--compare", nargs="+", metavar="REAL.txt", default=[],
                        help="real exact audits' pooled p-values (docs/data/audit_exact_*.txt, rows of "
                             "scripts/audit_too_cold.py) to compare with the simulated ones")
    args = parser.parse_args()
    if min(args.audits, args.texts, args.new_tokens) < 1:
        parser.error("--audits, --texts and --new-tokens must be positive")
    if args.summarize:
        from grader.audit.null_study import NullAudit, summary

        found = [NullAudit(row["alarm"], row["rejected"], row["pooled"])
                 for row in map(json.loads, Path(args.summarize).read_text().splitlines())]
        print(json.dumps({"simulated": summary(found), "compared": compare(found, args.compare)}, indent=1))
        return 0

    with open(args.out or os.devnull, "a") as out:
        return study(args, out)


def study(args, out) -> int:
    """The real audits, then the simulated ones at their contexts; one JSON line per simulated
    audit to ``out``, the summary to stdout."""
    import torch

    from grader.audit import adapters, command
    from grader.audit.null_study import NullLaws, simulate, summary
    from grader.models import load_pair

    torch.set_num_threads(1)
    target, drafter, tokenizer = load_pair("cpu")
    settings = adapters.Sampling(0.8, None, 0.95)
    processor = settings.processor(target.config.vocab_size)
    found, real = [], []
    for index, sampler in enumerate(args.samplers):
        seed = args.seed + index
        load, start = os.getloadavg()[0], time.perf_counter()
        adapter = adapters.make(sampler, target, drafter, settings, args.new_tokens, impl="solutions")
        _, record, tests, _ = command.shipped_audit(adapter, tokenizer, args.texts, args.new_tokens, seed, drafter,
                                                    colder=0)  # NullLaws reads every text at `settings`
        smallest = min(tests, key=lambda t: t.p_value)
        real.append({"sampler": sampler, "seed": seed, "alarm": any(t.rejected for t in tests),
                     "smallest_p": [smallest.name, smallest.p_value]})
        print(f"real audit {sampler} seed {seed}: {'FAIL' if real[-1]['alarm'] else 'PASS'}, smallest p "
              f"{smallest.p_value:.3g} ({smallest.name}); {time.perf_counter() - start:.0f} s, load {load:.2f} -> "
              f"{os.getloadavg()[0]:.2f}", flush=True)
        vocab = target.config.vocab_size
        laws = NullLaws.of(processor(record.target_logits.reshape(-1, vocab).double()),
                           processor(record.drafter_logits.reshape(-1, vocab).double()), record.outputs.shape)
        load, start = os.getloadavg()[0], time.perf_counter()
        for block in range(0, args.audits, 100):  # blocks of 100: progress, and the lines written as they come
            audits = simulate(laws, min(100, args.audits - block), seed=seed * 1_000_003 + block)
            found += audits
            out.writelines(json.dumps({"sampler": sampler, "seed": seed, **vars(audit)}) + "\n" for audit in audits)
            out.flush()
            print(f"  {len(found)} simulated audits, {sum(a.alarm for a in found)} alarms; "
                  f"{time.perf_counter() - start:.0f} s, load {load:.2f} -> {os.getloadavg()[0]:.2f}", flush=True)
        del laws
    print(json.dumps({"real": real, "simulated": summary(found), "compared": compare(found, args.compare)}, indent=1))
    return 0


REAL_ROW = re.compile(r"(PIT uniformity|drafter region|drafter mode) \((?:KS|z)\) p = ([0-9.eE+-]+)")


def compare(found, paths: list[str]) -> dict:
    """Per pooled test, the real exact audits' p-values in ``paths`` (one ``| seed | … p = …``
    row per audit) against the simulated ones: how many of each fell at or below 1e-3, and a
    two-sample KS test of their laws (do the shortcut's p-values behave like real audits'?)."""
    from scipy import stats

    real = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if line.startswith("| "):
                for kind, value in REAL_ROW.findall(line):
                    real.setdefault(kind, []).append(float(value))
    compared = {}
    for kind, values in real.items():
        simulated = [a.pooled[kind] for a in found if kind in a.pooled]
        compared[kind] = {"real": len(values), "real_below_1e-3": sum(v <= 1e-3 for v in values),
                          "simulated": len(simulated), "simulated_below_1e-3": sum(v <= 1e-3 for v in simulated),
                          "same_law_p": float(stats.ks_2samp(values, simulated).pvalue) if simulated else None}
    return compared


if __name__ == "__main__":
    sys.exit(main())
