"""The kv_cache check's expected forwards: the reference loop's, traced forward by forward
under greedy decoding (tree_generate's judge reuses ``discipline`` with its own loop)."""
from grader.checks.harness import CheckRun
from grader.judged.loops import LoopRun
from grader.observers.trace import traced
from grader.verdict import Hint, joined
from solutions.speculative import speculative_generate

SHOWN_FORWARDS = 6


def discipline(check: CheckRun, run: LoopRun, reference=speculative_generate) -> None:
    """The learner's forwards (``run.forwards``) against the ``reference`` loop's with the
    same keywords (``run.shape``), compared only when the output ``run.ids`` is right (a
    wrong output changes the rounds, and the greedy properties report it), or when the code
    crashed (``run.raised``: what it raised) after a forward the reference does not make;
    ``run.hint`` is the hint's how-to."""
    log, ids, crashed, label, rules = run.forwards, run.ids, run.raised or None, run.label, run.hint
    target, drafter, prompt, kwargs = run.target, run.drafter, run.prompt, run.shape
    reference_ids, _, reference_log = traced(reference, prompt, drafter, target, **kwargs)
    if crashed is None and ids != reference_ids:
        return
    expected = [(c.role, c.fed, c.cached) for c in reference_log]
    seen = [(c.role, c.fed, c.cached) for c in log]
    wrong = next((i for i, (a, b) in enumerate(zip(seen, expected)) if a != b), None)
    if wrong is None and len(seen) != len(expected) and crashed is None:
        wrong = min(len(seen), len(expected))
    if wrong is None:
        if crashed is None:
            check.require("cache discipline", True, "", case=label)
        return
    after = f"; then it raised: {crashed}" if crashed is not None else ""
    got = seen[wrong] if wrong < len(seen) else None
    want = expected[wrong] if wrong < len(expected) else None
    # the other properties rest on this one (and a broken cache often crashes them): the
    # decider stops here, while the runner, which never judges, runs on to no purpose
    check.fail("cache discipline", f"forward {wrong + 1} was {describe(got)}; expected {describe(want)}{after}",
               hint(got, want, rules), table(seen, expected, wrong), case=label)


def describe(forward) -> str:
    if forward is None:
        return "no forward at all"
    role, fed, cached = forward
    return f"the {role} fed {fed} token{'s' * (fed != 1)} with {cached} cached"


def hint(got, want, rules: Hint) -> tuple[str, ...]:
    """What the first wrong forward shows, then the ``rules``' levels."""
    if got is None or want is None or got[0] != want[0]:
        shown = "the forwards come in a different order or number than one round needs;"
    elif got[2] > want[2]:
        shown = "a cache still holds tokens that are no longer in the sequence (rejected drafts);"
    elif got[2] == 0:
        shown = "the cache is empty (created anew for each forward, or never passed in);"
    else:
        shown = "tokens the cache had (or should have) were fed again;"
    return joined(shown, rules)


def table(seen, expected, wrong) -> list[list[str]]:
    rows = [["forward", "model", "fed", "cached", "expected fed", "expected cached"]]
    for i in range(max(0, wrong - SHOWN_FORWARDS + 2), min(wrong + 2, max(len(seen), len(expected)))):
        got = seen[i] if i < len(seen) else ("-", "-", "-")
        want = expected[i] if i < len(expected) else ("-", "-", "-")
        rows.append([str(i + 1), str(got[0]), str(got[1]), str(got[2]), f"{want[0]} {want[1]}", str(want[2])])
    return rows
