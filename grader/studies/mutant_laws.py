"""The exact laws of known bugs (the mutants of ``tests/mutants/``), for the power
studies: how far each bug moves the law a check tests, and how surely the check sees it.

The laws of a correct implementation, which the checks test against, are the oracle's
(``grader/oracle/``); these are the same laws walked with one bug, built from its parts.
"""
import itertools

import numpy as np

from grader.oracle import acceptance, tree_laws, verifier_laws

VERIFIER_BUGS = ("correction_from_p", "ratio_q_over_p", "accept_only_if_p_above_q", "residual_q_minus_p",
                 "bonus_from_row_k_minus_1")  # the mutants of tests/mutants/ whose round law is below


def buggy_emission_law(p: np.ndarray, q: np.ndarray, bug: str) -> dict:
    """``verifier_laws.emission_law`` of a verifier with one known bug (one of
    ``VERIFIER_BUGS``): draft i kept with probability ``kept`` (min(1, q/p) upside down,
    or 1 iff p ≥ q), the stop's token from p or from norm(max(0, q − p)), or the bonus
    from p_(k−1)."""
    rows = p[: len(q)]
    with np.errstate(divide="ignore", invalid="ignore"):
        if bug == "ratio_q_over_p":
            kept = np.where(rows > 0, np.minimum(1.0, q / rows), 1.0)
        elif bug == "accept_only_if_p_above_q":
            kept = (rows >= q).astype(float)
        else:
            kept = np.where(q > 0, np.minimum(1.0, rows / q), 1.0)
    rejected = (q * (1 - kept)).sum(axis=-1, keepdims=True)
    excess = np.maximum(q - rows if bug == "residual_q_minus_p" else rows - q, 0.0)
    totals = excess.sum(axis=-1, keepdims=True)
    after = rows if bug == "correction_from_p" else np.divide(excess, totals, out=np.zeros_like(excess),
                                                               where=totals > 0)
    bonus = p[-2:-1] if bug == "bonus_from_row_k_minus_1" else p[-1:]
    return verifier_laws.round_law(q * kept, np.vstack([rejected * after, bonus]))


def enumerated_rule_law(p: np.ndarray, q: np.ndarray, m: int, order=None, updated: bool = True,
                        final=None, shared_uniform: bool = False) -> dict:
    """The law of ``(index, token)`` of a multi-draft rule, over every draft tuple: the
    known bugs of ``multi_draft_sampling`` as exact laws. Drafts are tried in
    ``order(drafts)`` (default: as drawn), each against the updated residual (or p when
    not ``updated``); the final token comes from ``final`` (default: the last residual).
    With ``shared_uniform`` one uniform u decides every draft: draft i is accepted iff
    u < its ratio, so given the earlier rejections (u ≥ each earlier ratio) with
    probability max(0, ratio − the largest earlier ratio)."""
    r = tree_laws.residuals(p, q, m)
    last = final if final is not None else (r[m] if updated else r[1])
    law: dict = {}
    for drafts in itertools.product(range(len(p)), repeat=m):
        reach = float(np.prod(q[list(drafts)]))
        if reach == 0:
            continue
        level = 0.0  # shared_uniform: u is known to be at least this
        for step, i in enumerate(order(drafts) if order else range(m)):
            ratio = min(1.0, (r[step] if updated else p)[drafts[i]] / q[drafts[i]])
            if shared_uniform:  # P(u < ratio | u ≥ level); nothing is left once level is 1
                accept = max(0.0, ratio - level) / (1.0 - level) if level < 1.0 else 0.0
            else:
                accept = ratio
            law[i, drafts[i]] = law.get((i, drafts[i]), 0.0) + reach * accept
            reach *= 1 - accept
            level = max(level, ratio) if shared_uniform else level
        for t in np.flatnonzero(last):
            law[m, int(t)] = law.get((m, int(t)), 0.0) + reach * last[t]
    return law


MULTI_DRAFT_BUGS = {  # mutant (tests/mutants/) -> its exact law of (index, token)
    "multi_draft_residual_not_updated": lambda p, q, m: enumerated_rule_law(p, q, m, updated=False),
    "multi_draft_best_ratio_first": lambda p, q, m: enumerated_rule_law(
        p, q, m, order=lambda d: sorted(range(m), key=lambda i: -p[d[i]] / q[d[i]])),
    "multi_draft_correction_from_p": lambda p, q, m: enumerated_rule_law(p, q, m, final=p),
    "multi_draft_shared_uniform": lambda p, q, m: enumerated_rule_law(p, q, m, shared_uniform=True),
}


def multi_draft_tested(law: dict) -> list[tuple[str, dict]]:
    """The laws the multi_draft check tests, from a law of ``(index, token)``: the joint
    law, the token's and the index's."""
    return [("joint law", law), ("law of the token", tree_laws.marginal(law, lambda o: o[1])),
            ("law of the index", tree_laws.marginal(law, lambda o: o[0]))]


LOOP_BUGS = {  # mutant (tests/mutants/) -> the rule its speculative loop verifies with
    "spec_correction_from_p": acceptance.Rule(correction_from_p=True),
    "spec_accept_when_p_ge_q": acceptance.Rule(accept_if_p_ge_q=True),
    "spec_q_not_processed": acceptance.Rule(q_unprocessed=True),
    "spec_first_token_from_drafter": acceptance.Rule(first_from_drafter=True),
}
