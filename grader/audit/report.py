"""The audit's report: text to paste into a bug report, one JSON object, and a figure."""
import json
import math

import numpy as np

from grader.audit.pit import ALPHA

SHOWN_POSITIONS = 3  # per-position tests shown by smallest p-value (all in --json)


def verdict_line(tests) -> str:
    rejected = [t for t in tests if t.rejected]
    if rejected:
        return (f"verdict: FAIL — {len(rejected)} of {len(tests)} tests reject exact sampling "
                f"(Holm, family false-alarm rate {ALPHA:g})")
    return (f"verdict: PASS — none of {len(tests)} tests rejects exact sampling "
            f"(Holm, family false-alarm rate {ALPHA:g})")


def test_row(test) -> str:
    mark = "✘" if test.rejected else "✔"
    return f"  {mark} {test.name:<44} {test.statistic:>+10.4g}   p = {test.p_value:.3g}"


def describe_size(value: float | None, form: str) -> str:
    return form.format(value) if value is not None else "not caught within the range searched"


def text(header: dict, tests, statement) -> str:
    """The report of a real-vocabulary audit (``statement``: grader/audit/power.PowerStatement)."""
    lines = [f"grader audit: {header['sampler']}", *(f"{k}: {v}" for k, v in header.items() if k != "sampler"),
             verdict_line(tests), "  tests (statistic: KS distance D, region or mode z, or a count):"]
    pooled = [t for t in tests if "position" not in t.name]
    per_position = sorted((t for t in tests if "position" in t.name), key=lambda t: t.p_value)
    lines += [test_row(t) for t in pooled]
    lines.append(f"  per position ({len(per_position)} tests), the smallest p-values:")
    lines += [test_row(t) for t in per_position[:SHOWN_POSITIONS]]
    lines.append(f"power (chance ≥ {statement.power:g} of a FAIL, at the contexts drawn; tests at Holm's "
                 f"strictest threshold {statement.threshold:.2g}):")
    lines.append("  temperature error: " + describe_size(statement.hotter, "T·(1 + r) for r ≥ {:.3f}") + "; "
                 + describe_size(statement.colder, "T / (1 + r) for r ≥ {:.3f}"))
    lines.append("  drafter-leaning mixture (1 − ε) p + ε q: " + describe_size(statement.mixture, "ε ≥ {:.4f}"))
    return "\n".join(lines)


def exact_text(header: dict, tests, cases) -> str:
    """The report of an enumerable audit (grader/audit/exact.py)."""
    lines = [f"grader audit (exact laws, tiny pair): {header['sampler']}",
             *(f"{k}: {v}" for k, v in header.items() if k != "sampler"), verdict_line(tests)]
    rejected = [t for t in tests if t.rejected]
    lines += [test_row(t) for t in (rejected or sorted(tests, key=lambda t: t.p_value)[:SHOWN_POSITIONS])]
    lines.append("power (chance ≥ 0.99 of a FAIL from each case's joint test alone):")
    lines += [f"  {c.label}: {c.draws} texts, any change of total variation ≥ {c.detectable_tv:.3f}"
              for c in cases if c.detectable_tv is not None]
    return "\n".join(lines)


def as_json(header: dict, tests, **extra) -> str:
    def clean(value):
        return None if isinstance(value, float) and not math.isfinite(value) else value

    return json.dumps({**header, "passed": not any(t.rejected for t in tests), "alpha": ALPHA,
                       "tests": [{k: clean(v) for k, v in vars(t).items()} for t in tests], **extra},
                      ensure_ascii=False)


def figure(path: str, record, tests, threshold: float, title: str) -> None:
    """The u's histogram (pooled) beside each position's p-values, the Holm line drawn."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    u = record.token_stats.u.ravel()
    bins = 20
    left.hist(u, bins=bins, range=(0, 1), color="tab:blue", alpha=0.8)
    left.axhline(len(u) / bins, color="black", linestyle="--", label="exact sampling")
    left.set(xlabel="randomized PIT u", ylabel="tokens", title=f"u over {len(u)} tokens")
    left.legend()
    for kind, colour in (("PIT uniformity", "tab:blue"), ("drafter region", "tab:orange"),
                         ("drafter mode", "tab:green")):
        rows = [(int(t.name.rsplit(" ", 1)[1]), t.p_value) for t in tests
                if t.name.startswith(kind) and "position" in t.name]
        if rows:
            positions, p_values = zip(*rows)
            right.plot(positions, -np.log10(np.maximum(p_values, 1e-300)), "o-", color=colour, label=kind, ms=3)
    right.axhline(-math.log10(threshold), color="black", linestyle="--", label="Holm's strictest threshold")
    right.set(xlabel="position in the generated text", ylabel="−log10 p-value", title="per position")
    right.legend()
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
