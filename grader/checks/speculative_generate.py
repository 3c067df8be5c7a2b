"""Check `speculative_generate` (lesson 3, ``use_cache=False``); `kv_cache` and
`static_cache` reuse it.

Deterministic properties under greedy decoding, where the output must equal target-only
greedy decoding token for token (grader/checks/loop_properties.py, shared by every loop):
end tokens inside a draft, ``max_gen_len`` reached in the middle of a draft, a drafter
identical to the target (every draft accepted); then what each model is fed. Statistical
properties against exact laws computed by enumeration through the tiny target: the law of
the first L generated tokens (jointly, and token by token) under several processors,
gammas, prompts and drafters, and the law of the acceptance rate the loop returns
(grader/oracle/acceptance.py). The reference loop's forwards and the exact laws are the
decider's alone (grader/judges/speculative_generate.py).
"""
import functools

from grader.checks.harness import CheckRun
from grader.checks.loop_properties import (
    GREEDY_LENGTH,
    NO_EOS,
    LawCase,
    Loop,
    check_greedy_properties,
    COUNTS_GAMMA_HINT,
    GREEDILY,
    LAW_JUDGE,
    RATE,
    Judge,
    LoopRun,
    Samples,
    check_shipped_greedy,
    models,
)
from grader.checks.loop_properties import generated as suite_generated
from grader.observers.trace import LoggedModel
from grader.verdict import STATISTICAL, joined
from solutions import sampling

FORWARDS: Judge[LoopRun] = Judge("speculative_generate.forwards")
ACCEPTANCE_RATE: Judge[Samples] = Judge("speculative_generate.acceptance_rate")
GREEDY_RUNS = [([0], {"gamma": 1}), ([2, 3, 4], {"gamma": 2}), ([5, 1], {"gamma": 4})]


def law_case(id: str, processor: sampling.LogitsProcessor, prompt: list[int], gamma: int, drafter: str,
             length: int, draws: int, first_target: bool = True, eos: int = 1) -> LawCase:
    """One sampled setting of the loop whose output law is known exactly: ``drafter`` a name
    of ``models()``'s drafters, ``length`` the ``max_gen_len`` of its runs."""
    label = (f"{processor!r}, prompt {prompt}, gamma={gamma}, {drafter} drafter, max_gen_len={length}, "
             f"first_target={first_target}")
    return LawCase(id, label, draws, processor, prompt, length, eos, {"gamma": gamma, "first_target": first_target},
                   drafter)


LAW_CASES = [
    law_case("law-1", sampling.MultinomialProcessor(temperature=1.0), [0], 1, "near", 4, 300),
    law_case("law-2", sampling.MultinomialProcessor(temperature=0.6), [2, 3, 4, 5], 2, "near", 4, 300),
    law_case("law-3", sampling.TopKProcessor(temperature=1.0, top_k=3), [3], 4, "near", 5, 300,
              first_target=False),
    law_case("law-4", sampling.NucleusProcessor(temperature=1.0, top_p=0.6), [4, 4], 2, "GPT-2", 4, 300,
              first_target=False),
]
# no end token, so that the rate counts every round (its exact law: grader/oracle/acceptance.py)
ACCEPTANCE_CASE = law_case("acceptance", sampling.MultinomialProcessor(temperature=2.0), [3, 5], 3, "near", 4, 400,
                           first_target=False, eos=NO_EOS)


def run(check: CheckRun) -> None:
    generate = check.function("speculative_generate")
    run_loop_checks(check, generate, *models(), use_cache=False)


def run_loop_checks(check: CheckRun, generate, target, drafters: dict, use_cache: bool) -> None:
    """Every property of the loop, with or without the cache."""
    check.revise(same_processor_hint({case.label: case.processor for case in [ACCEPTANCE_CASE, *LAW_CASES]}))
    check_greedy_properties(check, as_loop(check, generate, use_cache), target, drafters, GREEDY_RUNS)
    if not use_cache:
        with check.observing():
            check_forwards(check, generate, target, drafters["near"])
    check_shipped_pair(check, generate, use_cache)
    check_acceptance(check, generate, target, drafters, ACCEPTANCE_CASE, use_cache)
    for case in LAW_CASES:
        check_law(check, generate, target, drafters, case, use_cache)


SEQUENCE_HINT = ("the output must follow the target's law: accept draft i with probability "
                 "min(1, p_i/q_i), resample a rejection from max_fn(p_i - q_i), take the bonus from "
                 "p_k when all k drafts are accepted, and let the target choose the first token")
PROCESSOR_HINT = ("only settings whose logits_processor is not plain sampling at T = 1 fail, "
                  "which usually means q is not the processed distribution: turn the drafter's "
                  "logits into q with the same logits_processor as p (temperature, top-k, top-p "
                  "applied), sample the draft from that q and verify against that same q, not "
                  "softmax(logits). If yours already does, ")


def same_processor_hint(settings: dict):
    """A revision (``check.revise``) of the statistical findings on ``settings`` (a case's
    label, which its findings carry -> the logits processor its draws use): when they fail
    only away from plain sampling at T = 1, the usual cause is q computed apart from p's
    processor: say so instead of the generic hint."""
    def revise(findings) -> None:
        laws_failed = [f for f in findings if f.kind in STATISTICAL and f.case in settings
                       and f.hint != COUNTS_GAMMA_HINT]  # a rate explained by counting gamma: not q
        if laws_failed and not any(plain_sampling(settings[f.case]) for f in laws_failed):
            for finding in laws_failed:
                finding.hint = PROCESSOR_HINT + finding.hint
    return revise


def plain_sampling(processor) -> bool:
    """Sampling from softmax(logits) itself: the one processor whose q a loop gets right
    without applying it."""
    return type(processor) is sampling.MultinomialProcessor and processor.temperature == 1.0


def generated(check: CheckRun, generate, *args, what: str, **kwargs) -> tuple[list[int], float]:
    """The learner's (ids, rate), greedy unless told otherwise (the suite's `generated`)."""
    return suite_generated(check, generate, *args, what=what, returns=RATE, defaults=GREEDILY, **kwargs)

GREEDY_HINT = ("under greedy decoding the output must be the target's own greedy text: each draft is "
               "verified against the target's prediction for its own position.",
               "the target's logits of the last k + 1 positions: one row before each draft, and the last "
               "row for the bonus; after k accepted drafts add the target's own token.",
               "target(ids).logits[0, -(k + 1):], row i verifying draft i, row k the bonus")
SAME_MODEL_HINT = ("with the drafter equal to the target, p == q and every draft must be accepted: "
                   "min(1, p/q) = 1.",
                   "compare u * q < p (or u < p/q) so that equal probabilities always accept, and count "
                   "accepted / drafted")
ROLLED_BACK_HINT = ("With a cache, the drafter's must hold exactly the accepted tokens after each round "
                    "(rolled back too far, or not at all, it drafts from another context than the "
                    "target's).")
MAX_GEN_LEN_HINT = ("never return more than max_gen_len tokens: a round emits its accepted drafts and one "
                    "token of its own, so near the end it must draft fewer.",
                    "draft only min(gamma, tokens left − 1) tokens, so that the round's own token still fits")


def as_loop(check: CheckRun, generate, use_cache: bool) -> Loop:
    """The loop of lesson 3 (lesson 4 with ``use_cache``) for the shared greedy properties."""
    return Loop(
        call=functools.partial(generated, check, generate, use_cache=use_cache),
        shape={"gamma": 4}, depth=4, first_drafted=1, all_accepted=lambda length: 1.0,
        drafted="a draft", accepts_every="draft", returns="acceptance rate",
        greedy_hint=GREEDY_HINT,
        same_model_hint=joined(SAME_MODEL_HINT, ROLLED_BACK_HINT) if use_cache else SAME_MODEL_HINT,
        end_tokens_hint="look for end tokens among all the tokens a round emits (accepted drafts and "
                        "the last one), stop right after the earliest one and include it",
        max_gen_len_hint=MAX_GEN_LEN_HINT)


def check_forwards(check, generate, target, drafter):
    """Without a cache: one target forward per round, over the whole sequence so far."""
    kwargs = dict(gamma=3, max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    log = []
    generated(check, generate, [2, 3], LoggedModel(drafter, "drafter", log, check.observation),
              LoggedModel(target, "target", log, check.observation), **kwargs,
              what="(greedy, models wrapped to record each forward)")
    FORWARDS(check, LoopRun("", [2, 3], target, drafter, kwargs, forwards=[(c.role, c.fed) for c in log]))


def check_shipped_pair(check, generate, use_cache):
    check_shipped_greedy(check, "greedy output", "shipped pair", ["def read_config(path):\n"], 24,
                         lambda prompt, drafter, target: generated(
                             check, generate, prompt, drafter, target, gamma=4, max_gen_len=24,
                             use_cache=use_cache, what="(the shipped pair, greedy)")[0])


def drawn(check, generate, target, drafters, case: LawCase, use_cache: bool, test: str) -> list[tuple]:
    """``case.draws`` runs of the loop (times the grading config's draws), seeded by ``test``
    and the case: each run's ``(ids, rate)``."""
    check.seed_everything(test, case.label, use_cache)
    return [generated(check, generate, case.prompt, drafters[case.drafter], target, **case.keywords,
                      use_cache=use_cache, what=f"({case.label})")
            for _ in range(case.draws * check.draws)]


def check_acceptance(check, generate, target, drafters, case: LawCase, use_cache):
    """The law of the returned acceptance rate (and of the output, from the same draws)."""
    runs = drawn(check, generate, target, drafters, case, use_cache, "acceptance")
    ACCEPTANCE_RATE(check, Samples([tuple(ids) for ids, _ in runs], target, case, SEQUENCE_HINT,
                                   numbers=[rate for _, rate in runs], drafter=drafters[case.drafter]))


def check_law(check, generate, target, drafters, case: LawCase, use_cache):
    runs = drawn(check, generate, target, drafters, case, use_cache, "law")
    LAW_JUDGE(check, Samples([tuple(ids) for ids, _ in runs], target, case, SEQUENCE_HINT))
