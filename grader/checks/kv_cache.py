"""Check `kv_cache`: `speculative_generate` with ``use_cache=True``.

First the cache discipline: both models wrapped so that every forward records how many
tokens it was fed and how many its cache already held, under greedy decoding, where the
rounds are known in advance. After the prefill each forward must feed only tokens the
model has not seen, and after each round both caches must hold exactly the sequence but
its last token (the rejected drafts cropped away). Then every property of lesson 3.
"""
from grader.checks.harness import CheckRun, Stop
from grader.checks.loop_properties import GREEDY, NO_EOS, models
from grader.checks.speculative_generate import generated, run_loop_checks
from grader.observers.trace import LoggedModel, traced
from grader.verdict import ERROR
from solutions.speculative import speculative_generate as reference_generate

SCENARIOS = [  # (drafter, prompt, gamma, first_target)
    ("near", [2, 3], 3, True),
    ("near", [1, 4, 0], 4, False),
    ("GPT-2", [0], 2, True),
]
SHOWN_FORWARDS = 6
RULES = ("create one DynamicCache per model before the loop; feed each model only "
         "ids[:, cache.get_seq_length():end]; after each round crop both caches to the new "
         "sequence length minus one (cache.crop(-n) removes the last n), so that rejected "
         "drafts leave the cache")


def run(check: CheckRun) -> None:
    generate = check.function("speculative_generate")
    target, drafters = models()
    for name, prompt, gamma, first_target in SCENARIOS:
        check_discipline(check, generate, target, drafters[name], prompt,
                         dict(gamma=gamma, first_target=first_target, logits_processor=GREEDY,
                              max_gen_len=12, eos_tokens_id=NO_EOS, use_cache=True),
                         f"{name} drafter, prompt {prompt}, gamma={gamma}, first_target={first_target}")
    run_loop_checks(check, generate, target, drafters, use_cache=True)


def check_discipline(check, generate, target, drafter, prompt, kwargs, label,
                     reference=reference_generate, returned=generated, rules: str = RULES):
    """Forward by forward against the ``reference`` loop, under greedy decoding. Compared
    only when the output is right (a wrong output changes the rounds, and the greedy
    properties report it), or when the code crashed after a forward the reference does not
    make. ``returned`` reads the learner's result; ``rules`` is the hint's how-to."""
    reference_ids, _, reference_log = traced(reference, prompt, drafter, target, **kwargs)
    expected = [(c.role, c.fed, c.cached) for c in reference_log]
    log, crash, ids = [], None, None
    try:
        ids, _ = returned(check, generate, prompt, LoggedModel(drafter, "drafter", log),
                          LoggedModel(target, "target", log), **kwargs, what=f"(greedy, {label})")
    except Stop as stop:
        if stop.status != ERROR:
            raise
        crash = stop
    if crash is None and ids != reference_ids:
        return
    with check.observing():  # the forwards as the wrappers logged them
        seen = [(c.role, c.fed, c.cached) for c in log]
        wrong = next((i for i, (a, b) in enumerate(zip(seen, expected)) if a != b), None)
        if wrong is None and len(seen) != len(expected) and crash is None:
            wrong = min(len(seen), len(expected))
        if wrong is None:
            if crash is not None:
                raise crash
            check.require(f"cache discipline ({label})", True, "")
            return
        after = f"; then it raised: {crash.summary}" if crash is not None else ""
        got = seen[wrong] if wrong < len(seen) else None
        want = expected[wrong] if wrong < len(expected) else None
        # the other properties rest on this one (and a broken cache often crashes them)
        check.fail(f"cache discipline ({label})",
                   f"forward {wrong + 1} was {describe(got)}; expected {describe(want)}{after}",
                   hint(got, want, rules), table(seen, expected, wrong))


def describe(forward) -> str:
    if forward is None:
        return "no forward at all"
    role, fed, cached = forward
    return f"the {role} fed {fed} token{'s' * (fed != 1)} with {cached} cached"


def hint(got, want, rules: str) -> str:
    if got is None or want is None or got[0] != want[0]:
        return "the forwards come in a different order or number than one round needs: " + rules
    if got[2] > want[2]:
        return "a cache still holds tokens that are no longer in the sequence (rejected drafts): " + rules
    if got[2] == 0:
        return "the cache is empty: is it created anew for each forward, or not passed in? " + rules
    return "tokens the cache had (or should have) were fed again: " + rules


def table(seen, expected, wrong) -> list[list[str]]:
    rows = [["forward", "model", "fed", "cached", "expected fed", "expected cached"]]
    for i in range(max(0, wrong - SHOWN_FORWARDS + 2), min(wrong + 2, max(len(seen), len(expected)))):
        got = seen[i] if i < len(seen) else ("-", "-", "-")
        want = expected[i] if i < len(expected) else ("-", "-", "-")
        rows.append([str(i + 1), str(got[0]), str(got[1]), str(got[2]), f"{want[0]} {want[1]}", str(want[2])])
    return rows
