"""The audit's report: text to paste into a bug report, one JSON object, and a figure."""
import json
import math

from grader.audit.diagnosis import diagnose
from grader.audit.pit import ALPHA, POOLED_SHARE, is_pooled, pooled_threshold

SHOWN_POSITIONS = 3  # per-position tests shown by smallest p-value, or every rejected one (all in --json)
WEIGHTED = f"weighted Holm, {POOLED_SHARE:g} of it on the pooled tests"  # the shipped pair's procedure


def verdict_line(tests, procedure: str = "Holm") -> str:
    rejected = [t for t in tests if t.rejected]
    if rejected:
        return (f"verdict: FAIL — {len(rejected)} of {len(tests)} tests reject exact sampling "
                f"({procedure}, family false-alarm rate {ALPHA:g})")
    return (f"verdict: PASS — none of {len(tests)} tests rejects exact sampling "
            f"({procedure}, family false-alarm rate {ALPHA:g})")


def test_row(test) -> str:
    mark = "✘" if test.rejected else "✔"
    return f"  {mark} {test.name:<44} {test.statistic:>+10.4g}   p = {test.p_value:.3g}"


def describe_size(value: float | None, form: str) -> str:
    return form.format(value) if value is not None else "not caught within the range searched"


def text(header: dict, tests, statement, token_stats=None) -> str:
    """The report of a real-vocabulary audit (``statement``: grader/audit/power.PowerStatement;
    ``token_stats``: the record's, for the diagnosis of tokens outside the support)."""
    lines = [f"grader audit: {header['sampler']}", verdict_line(tests, WEIGHTED),
             *(f"  diagnosis: {line}" for line in diagnose(tests, token_stats)),
             *(f"{k}: {v}" for k, v in header.items() if k != "sampler"),
             "  tests (statistic: KS distance D, + when too concentrated; region or mode z; or a count):"]
    pooled = [t for t in tests if is_pooled(t)]
    per_position = sorted((t for t in tests if not is_pooled(t)), key=lambda t: t.p_value)
    lines += [test_row(t) for t in pooled]
    shown = max(SHOWN_POSITIONS, sum(t.rejected for t in per_position))
    lines.append(f"  per position ({len(per_position)} tests), the smallest p-values:")
    lines += [test_row(t) for t in per_position[:shown]]
    lines.append(f"power (chance ≥ {statement.power:g} of a FAIL, at the contexts drawn; pooled tests at "
                 f"{statement.threshold:.2g}, weighted Holm's first step):")
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


def as_json(header: dict, tests, token_stats=None, **extra) -> str:
    def clean(value):
        return None if isinstance(value, float) and not math.isfinite(value) else value

    return json.dumps({**header, "passed": not any(t.rejected for t in tests), "alpha": ALPHA,
                       "diagnosis": diagnose(tests, token_stats),
                       "tests": [{k: clean(v) for k, v in vars(t).items()} for t in tests], **extra},
                      ensure_ascii=False)


def figure(path: str, record, tests, title: str) -> None:
    """``draw_figure`` written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed
    import matplotlib.pyplot as plt

    fig = draw_figure(record, tests, title)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_figure(record, tests, title: str):
    """Three panels: the u's histogram (pooled), every pooled test's −log10 p beside its
    threshold, and each position's p-values beside theirs; every rejected test is drawn red."""
    import matplotlib.pyplot as plt

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4), gridspec_kw={"width_ratios": [4, 3, 5]})
    u = record.token_stats.u.ravel()
    bins = 20
    left.hist(u, bins=bins, range=(0, 1), color="tab:blue", alpha=0.8)
    left.axhline(len(u) / bins, color="black", linestyle="--", label="exact sampling")
    left.set(xlabel="randomized PIT u (likely tokens at the left)", ylabel="tokens", title=f"u over {len(u)} tokens")
    left.legend()
    pooled = [t for t in tests if is_pooled(t)]
    heights = [minus_log10(t.p_value) for t in pooled]
    middle.barh([t.name.split(",")[0] for t in pooled], heights,
                color=["tab:red" if t.rejected else "tab:grey" for t in pooled])
    middle.axvline(-math.log10(pooled_threshold(tests)), color="black", linestyle="--", label="fails the audit")
    middle.invert_yaxis()
    middle.set(xlabel="−log10 p-value (red: rejected)", title="pooled tests")
    middle.legend(loc="lower right")
    for kind, colour in (("PIT uniformity", "tab:blue"), ("drafter region", "tab:orange"),
                         ("drafter mode", "tab:green")):
        rows = [(int(t.name.rsplit(" ", 1)[1]), minus_log10(t.p_value), t.rejected) for t in tests
                if t.name.startswith(kind) and not is_pooled(t)]
        if rows:
            positions, heights, failed = zip(*rows)
            right.plot(positions, heights, "o-", color=colour, label=kind, ms=3)
            right.plot([x for x, f in zip(positions, failed) if f], [h for h, f in zip(heights, failed) if f],
                       "x", color="tab:red", ms=9, mew=2)
    positions = len(tests) - len(pooled)
    right.axhline(-math.log10(ALPHA * (1 - POOLED_SHARE) / positions), color="black", linestyle="--",
                  label="the strictest threshold (red ×: rejected)")
    right.set(xlabel="position in the generated text", ylabel="−log10 p-value", title="per position")
    right.legend(fontsize=8)
    rejected = sum(t.rejected for t in tests)
    headlines = [line.split(":")[0] for line in diagnose(tests, record.token_stats)]
    verdict = f"FAIL: {rejected} of {len(tests)} tests reject ({'; '.join(headlines)})" if rejected else "PASS"
    fig.suptitle(f"{verdict} — {title}", fontsize=9, color="tab:red" if rejected else "black")
    fig.tight_layout()
    return fig


def minus_log10(p_value: float) -> float:
    return -math.log10(max(p_value, 1e-300))
