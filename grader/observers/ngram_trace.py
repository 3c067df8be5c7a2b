"""Trace a drafter-free run (n-gram drafts, prompt lookup) from the target's forwards alone.

With no drafter model, a round is one target forward, and what that forward saw (the
tokens its cache held, then the tokens it was fed) is the text so far followed by the
round's drafts. Walking the forwards in order beside the final output tells where each
round started, what it drafted and how many drafts were accepted: an exact verifier
never emits a rejected point-mass draft (the residual gives it no mass), so the accepted
drafts are exactly the leading ones that agree with the output. The rounds come out as
``grader.observers.trace.Round``s, so ``round_colours.to_html`` (grader/bench) and ``trace.acceptance_by_position`` apply.
"""
from grader.observers.trace import Call, LoggedModel, Round, classify


def traced(generate, prompt: list[int], storage, target, **kwargs):
    """Run ``generate(prompt, storage, target, **kwargs)``; returns (ids, rate, log)."""
    log: list[Call] = []
    ids, rate = generate(prompt, storage, LoggedModel(target, "target", log), **kwargs)
    return ids, rate, log


def rounds(log: list[Call], prompt: list[int], ids: list[int],
           partial: bool = False) -> tuple[list[Round], str | None]:
    """The rounds of a run, and the first way the forwards fail to explain the output
    (None when they explain it: every forward saw the output so far, and together the
    rounds emitted exactly ``ids``; with ``partial``, the log of a run cut short by an
    exception, the first part of ``ids`` is enough)."""
    sequence = list(prompt) + list(ids)
    found: list[Round] = []
    seen: list[int] = []  # what the target has seen, as its cache holds it
    start = len(prompt)
    for number, call in enumerate(log, 1):
        seen = seen[: call.cached] + list(call.ids)
        if seen[:start] != sequence[:start]:
            return found, (f"target forward {number} saw the text {seen[:start]} where the output "
                           f"so far was {sequence[:start]}")
        if start == len(sequence):
            return found, f"target forward {number} came after the output was complete"
        drafts = seen[start:]
        left = sequence[start:]
        accepted = 0
        while accepted < min(len(drafts), len(left)) and drafts[accepted] == left[accepted]:
            accepted += 1
        tokens = left[: accepted + 1]  # all of them when an end token among the drafts ended it
        found.append(Round(start, drafts, tokens, classify(tokens, drafts), call.cached, None))
        start += len(tokens)
    if start != len(sequence) and not partial:
        return found, (f"the {len(log)} target forwards explain only the first "
                       f"{start - len(prompt)} of the {len(ids)} generated tokens")
    return found, None


def acceptance(found: list[Round]) -> tuple[int, int]:
    """(accepted drafts, drafted tokens) over the rounds."""
    return sum(r.accepted for r in found), sum(len(r.drafts) for r in found)
