"""Check `kv_cache`: `speculative_generate` with ``use_cache=True``.

First the cache discipline: both models wrapped so that every forward records how many
tokens it was fed and how many its cache already held, under greedy decoding, where the
rounds are known in advance. After the prefill each forward must feed only tokens the
model has not seen, and after each round both caches must hold exactly the sequence but
its last token (the rejected drafts cropped away), forward by forward as the reference
loop does it (grader/judges/kv_cache.py, the decider's alone). Then every property of
lesson 3.
"""
from grader.checks.harness import CheckRun, Stop
from grader.checks.loop_properties import GREEDY, NO_EOS, Judge, LoopRun, models
from grader.checks.speculative_generate import generated, run_loop_checks
from grader.observers.trace import LoggedModel
from grader.verdict import ERROR, Hint

SCENARIOS = [  # (drafter, prompt, gamma, first_target)
    ("near", [2, 3], 3, True),
    ("near", [1, 4, 0], 4, False),
    ("GPT-2", [0], 2, True),
]
RULES = ("each model's cache must hold exactly the text it has seen: fed only what it lacks, and "
         "rolled back after each round so that rejected drafts leave it.",
         "one cache per model for the whole call; feed each model only the tokens past its cache's "
         "length; after each round cut both caches back to the new sequence length minus one (the "
         "last token is fed next round).",
         "one DynamicCache per model before the loop; model(ids[:, cache.get_seq_length():end], "
         "cache=cache); cache.crop(-n) removes the last n")
DISCIPLINE: Judge[LoopRun] = Judge("kv_cache.discipline")


def run(check: CheckRun) -> None:
    generate = check.function("speculative_generate")
    target, drafters = models()
    for name, prompt, gamma, first_target in SCENARIOS:
        check_discipline(check, generate, target, drafters[name], prompt,
                         dict(gamma=gamma, first_target=first_target, logits_processor=GREEDY,
                              max_gen_len=12, eos_tokens_id=NO_EOS, use_cache=True),
                         f"{name} drafter, prompt {prompt}, gamma={gamma}, first_target={first_target}")
    run_loop_checks(check, generate, target, drafters, use_cache=True)


def check_discipline(check: CheckRun, generate, target, drafter, prompt: list[int], kwargs: dict, label: str,
                     returned=generated, judge: Judge[LoopRun] = DISCIPLINE, rules: Hint = RULES) -> None:
    """One greedy run on wrapped models, its forwards judged by ``judge`` against a reference
    loop's (grader/judges/kv_cache.py), ``rules`` the hint's how-to. ``returned`` reads the
    learner's result. A crash is the verdict after the judge, which may say first what the
    forwards did wrong."""
    log, crash, ids = [], None, None
    try:
        ids, _ = returned(check, generate, prompt, LoggedModel(drafter, "drafter", log, check.observation),
                          LoggedModel(target, "target", log, check.observation), **kwargs,
                          what=f"(greedy, {label})")
    except Stop as stop:
        if stop.status != ERROR:
            raise
        crash = stop
    with check.observing():  # the forwards as the wrappers logged them
        judge(check, LoopRun(label, prompt, target, drafter, kwargs, ids=ids, raised=crash.summary if crash else "",
                             forwards=log, hint=rules))
    if crash is not None:
        raise crash
