"""What a failing audit means, in plain words, chosen by a small table of rules.

Each rule names a test (by the start of its name, grader/audit/pit.py) and the sign of its
statistic that failed: a region or mode z above 0 means the drafter's tokens came out more
often than the target's law gives them; a KS distance signed + means the u's lie too low, the
likely tokens too often (the law too concentrated). A rule matches the rejected tests, pooled
or per position; a failure seen only at some positions says so, the first token by name.
"""
import numpy as np

from grader.audit.pit import Test, is_pooled

RULES = [  # (test, sign of the failing statistic: +1, −1, 0 for either, what it means)
    ("support", 0,
     "tokens outside the support: the target's law after the settings gives them probability 0 — a "
     "top-k or top-p filter is missing from a law the sampler draws from (drafts, correction or bonus)"),
    ("drafter region", +1,
     "drafts are accepted too often: the output leans towards the drafter's law — the q you verify with "
     "is not the law you drafted from, or a rejected draft is replaced from p instead of max(p − q, 0)"),
    ("drafter region", -1,
     "drafts are accepted too rarely: the output shies away from the drafter's law — the acceptance "
     "ratio or the residual over-corrects (p and q swapped in min(1, p/q), or q subtracted twice)"),
    ("drafter mode", +1,
     "the drafter's top token comes out too often: the drafts come from a law more concentrated than the q "
     "the verifier uses — drafts chosen greedily (argmax q), or drawn after a temperature or filter that q "
     "lacks (q the raw softmax)"),
    ("drafter mode", -1,
     "the drafter's top token comes out too rarely: the verifier corrects against a q the drafts were "
     "not drawn from"),
    ("PIT uniformity", +1,
     "too cold: the mass is too concentrated on the likely tokens — a temperature below the settings' "
     "(or one applied twice), or a filter stricter than the settings"),
    ("PIT uniformity", -1,
     "too hot: the mass is too spread over unlikely tokens — a temperature above the settings' (or "
     "none), or a filter looser than the settings"),
]
ROW_EARLY = ("tokens outside the support, drawn from the row one position early: most of them are inside "
             "the support of the previous position's law — a bonus token from p[k − 1] instead of p[k], or a "
             "token taken from the row before the one it is emitted at (the rows misaligned by one)")
ROW_LATE = ("tokens outside the support, drawn from another position's law rather than from this one without "
            "its filter: they lie deep in the tail of their own row's unfiltered law (tail PIT mean {mean:.2f}, "
            "where a forgotten filter gives 0.5) — a token drawn one position late (from the row after a "
            "rejected draft, which that draft conditions) or from a misaligned row")
NEAR_UNIFORM = ("tokens outside the support, drawn nearly uniformly over the vocabulary: they rank anywhere in "
                "their row's unfiltered law (mean rank {rank:.0%} of the vocabulary, where any context's law puts "
                "its tokens near the top) — a softmax of probabilities where a normalisation belongs (the "
                "residual max(p − q, 0) passed through softmax), or a law built from the wrong numbers")
UNIFORM_RANK = 0.3  # the mean vocab_rank above which the outside tokens look uniform over the vocabulary
EARLY_SHARE = 0.5  # of the tokens outside the support (past the first position), inside the previous row's support
TAIL_Z = 4.0  # how far above 0.5 the tail PIT mean must lie, in standard errors (sd of U(0,1): 1/√12)
COLD_MODE = ("the drafter's top token comes out too often, as a law too concentrated makes it (the drafter and "
             "the target favour the same tokens): read it with the too-cold line above, not as greedy drafts")
FIRST_TOKEN = ("the first generated token is wrong: it comes from the first target forward, before "
               "any draft is verified (the prompt's last logits, a cache or an off-by-one)")


def position(test: Test) -> int | None:
    """The position a per-position test looks at (1 = the first generated token); None pooled."""
    return None if is_pooled(test) else int(test.name.rsplit(" ", 1)[1])


def diagnose(tests: list[Test], token_stats=None) -> list[str]:
    """One line per rule that the rejected ``tests`` match, each saying where it failed, the
    most significant first (smallest p-value; ties in the table's order): the later lines may
    follow from the first (a too-cold sampler also emits the drafter's top token too often, as
    both models favour the same tokens; greedy drafts also make the law too concentrated). When
    the too-cold line is the more significant, the drafter's-top-token line says it follows from
    the coldness (``COLD_MODE``) instead of naming greedy drafts. Then, when no pooled test failed, a line for the position-specific failure. Empty when
    nothing was rejected. With ``token_stats`` (grader/audit/pit.py's TokenStatistics, its row
    evidence computed) the support line says which row the outside tokens came from
    (``support_meaning``)."""
    rejected = [t for t in tests if t.rejected]
    found = {}
    for name, failing_sign, meaning in RULES:
        matched = [t for t in rejected if t.name.startswith(name) and failing_sign in (0, np.sign(t.statistic))]
        if matched:
            if name == "support":
                meaning = support_meaning(token_stats) or meaning
            found[name, failing_sign] = (min(t.p_value for t in matched), meaning, where(matched))
    cold, mode = found.get(("PIT uniformity", +1)), found.get(("drafter mode", +1))
    if cold and mode and cold[0] < mode[0]:  # the coldness is the stronger evidence: the mode excess follows from it
        found["drafter mode", +1] = (mode[0], COLD_MODE, mode[2])
    lines = [f"{meaning} ({place})" for _, meaning, place in sorted(found.values(), key=lambda f: f[0])]
    if rejected and not any(map(is_pooled, rejected)):
        positions = sorted({position(t) for t in rejected})
        lines.append(FIRST_TOKEN if positions == [1] else
                     f"a position-specific failure: only at position{'s' * (len(positions) > 1)} "
                     f"{', '.join(map(str, positions))} of every text, where something differs from the "
                     "other positions (a round boundary, the bonus token after a full acceptance, a cache "
                     "rolled back too far)")
    return lines


def where(tests: list[Test]) -> str:
    """"pooled" and/or "at positions 1, 5": where the matched tests looked."""
    positions = sorted(p for p in map(position, tests) if p is not None)
    parts = ["pooled over all tokens"] if any(map(is_pooled, tests)) else []
    if positions:
        parts.append(f"at position{'s' * (len(positions) > 1)} {', '.join(map(str, positions))}")
    return "; ".join(parts)


def support_meaning(token_stats) -> str | None:
    """Which row the tokens outside p's support came from, or None when the evidence is missing
    or points at the row's own unfiltered law (the table's missing-filter line then stands).

    One position early when at least ``EARLY_SHARE`` of them (past each text's first position)
    lie inside the support of the row before; nearly uniform over the vocabulary when their
    mean rank in their row's unfiltered law is above ``UNIFORM_RANK`` of it; another row's law
    when their tail PIT under that law (``pit.row_evidence``) has a mean ``TAIL_Z`` standard
    errors above 0.5. A forgotten filter draws them from that unfiltered law: tail mean 0.5."""
    if token_stats is None or token_stats.tail_u is None:
        return None
    outside = token_stats.p_token <= 0
    before = token_stats.p_row_before[outside]
    before = before[~np.isnan(before)]
    if before.size and np.mean(before > 0) >= EARLY_SHARE:
        return ROW_EARLY
    rank = token_stats.vocab_rank[outside]
    rank = rank[~np.isnan(rank)]
    if rank.size and rank.mean() > UNIFORM_RANK:
        return NEAR_UNIFORM.format(rank=rank.mean())
    tail = token_stats.tail_u[outside]
    tail = tail[~np.isnan(tail)]
    if tail.size and (tail.mean() - 0.5) * np.sqrt(12 * tail.size) > TAIL_Z:
        return ROW_LATE.format(mean=tail.mean())
    return None
