"""Check `batched_speculative_generate` (lesson 8): each row as if it were alone.

Deterministic, under greedy decoding (each row must equal the target's greedy output
for its own prompt): prompts of different lengths, both drafters, several gammas, with
and without the cache, another pad id; end tokens that stop rows in different rounds;
``max_gen_len`` reached while rows have different room left; a drafter equal to the
target; the shipped pair; what each forward is fed (the whole batch at once, one target
forward per round, one drafter forward per draft, one cache per model that is never
re-fed the sequence). Statistical, against exact laws by enumeration through the tiny
target: each row's law of its first L tokens (jointly and token by token) beside
neighbours of other lengths and with another pad id; a batch of one; the law of each
row's acceptance rate; two rows with one prompt drawn independently. What the rows are
compared with is the decider's alone (grader/judges/batched_generate.py).
"""

from grader.checks.harness import CheckRun
from grader.checks.loop_properties import (
    GREEDY,
    GREEDY_LENGTH,
    NO_EOS,
    Greedy,
    Judge,
    LawCase,
    LoopRun,
    check_shipped_greedy,
    models,
)
from grader.checks.speculative_generate import same_processor_hint
from grader.judged.loops import row_label
from grader.observers.recording import RecordingModel
from grader.observers.trace import LoggedModel, recorded
from solutions import sampling

PROMPTS = [[0], [2, 3, 4, 5], [5, 1], [3]]  # different lengths: left padding in every row but one
GREEDY_ROWS: Judge[LoopRun] = Judge("batched_generate.greedy")
STOPS: Judge[Greedy] = Judge("batched_generate.stops")
FORWARD_COUNTS: Judge[LoopRun] = Judge("batched_generate.forward_counts")
ROW_LAWS: Judge[LoopRun] = Judge("batched_generate.row_laws")
INDEPENDENCE: Judge[LoopRun] = Judge("batched_generate.independence")


def law_case(id: str, processor: sampling.LogitsProcessor, prompts: list[list[int]], gamma: int, drafter: str,
             length: int, draws: int, eos=NO_EOS, pad=0) -> LawCase:
    """A batch whose rows' output laws are known exactly: its ``prompt`` holds one prompt per
    row, ``length`` is its ``max_gen_len``, ``pad`` its ``pad_token_id``."""
    shown_eos = "" if eos == NO_EOS else f", eos_tokens_id={eos}"
    label = (f"{processor!r}, prompts {prompts}, gamma={gamma}, {drafter} drafter, max_gen_len={length}, "
             f"pad_token_id={pad}{shown_eos}")
    return LawCase(id, label, draws, processor, prompts, length, eos, {"gamma": gamma, "pad_token_id": pad}, drafter)


LAW_CASES = [
    law_case("law-1", sampling.MultinomialProcessor(temperature=1.0), [[0], [2, 3, 4, 5], [4, 4]], 2, "near", 4,
             300),
    # the pad id is a real token, and an end token stops rows in different rounds
    law_case("law-2", sampling.MultinomialProcessor(temperature=0.6), [[5, 1, 2], [3]], 3, "GPT-2", 4, 300,
             eos=[2], pad=3),
    law_case("law-3", sampling.NucleusProcessor(temperature=1.0, top_p=0.6), [[2, 3]], 4, "near", 5, 300),
]
# two rows with one prompt: their second tokens must be independent draws
TWINS = law_case("twins", sampling.MultinomialProcessor(temperature=1.0), [[2, 3], [2, 3]], 3, "near", 3, 400)
LAW_HINT = ("each row must follow the target's law given its own prompt: the attention mask "
            "must hide the left padding and the rejected drafts' columns, positions must count "
            "only the row's real tokens, and each row keeps its own accepted drafts and token")


def run(check: CheckRun) -> None:
    generate = check.function("batched_speculative_generate")
    target, drafters = models()
    check.revise(same_processor_hint({row_label(case, row): case.processor
                                      for case in LAW_CASES for row in range(len(case.prompt))}))
    texts = [check_greedy(check, generate, target, drafter, f"{name} drafter, gamma={gamma}", gamma=gamma)
             for name, drafter in drafters.items() for gamma in (1, 3, 5)]
    check_greedy(check, generate, target, drafters["near"], "near drafter, use_cache=False",
                 gamma=3, use_cache=False)
    check_greedy(check, generate, target, drafters["near"], "near drafter, pad_token_id=5",
                 gamma=2, pad_token_id=5)
    check_end_tokens(check, generate, target, drafters["near"], texts[0])
    check_max_gen_len(check, generate, target, drafters["near"])
    check_same_model(check, generate, target)
    with check.observing():
        check_forwards(check, generate, target)
    check_shipped_pair(check, generate)
    # most of the properties above are judged in the decider alone: there this stops a loop
    # that failed them, while the runner, which never judges, runs on to no purpose
    check.stop_if_failed("law tests")
    for case in LAW_CASES:
        check_law(check, generate, target, drafters, case)
    check_independence(check, generate, target, drafters, TWINS)


def generated(check: CheckRun, generate, prompts, *args, what: str, **kwargs):
    """The learner's (outputs, rates), after checking their types and lengths. Greedy
    unless told otherwise, with the reference's processor (not the learner's default)."""
    kwargs.setdefault("logits_processor", GREEDY)
    result = check.call(generate, prompts, *args, what=what, **kwargs)
    outputs, rates = result if isinstance(result, tuple) and len(result) == 2 else (None, None)
    if not (isinstance(outputs, list) and len(outputs) == len(prompts)
            and all(isinstance(o, list) and all(isinstance(t, int) for t in o) for o in outputs)):
        check.fail("return type", f"returned {type(result).__name__} {str(result)[:80]} {what}; "
                   f"expected a tuple (outputs, rates) whose outputs are {len(prompts)} lists of "
                   "Python ints, one per prompt (generated ids, prompt excluded)")
    if not (isinstance(rates, list) and len(rates) == len(prompts) and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) and 0 <= r <= 1 for r in rates)):
        check.fail("acceptance rates", f"returned the rates {str(rates)[:80]} {what}; expected "
                   f"a list of {len(prompts)} Python floats in [0, 1], one per prompt",
                   "each row's accepted drafts / drafted tokens; 0.0 for a row that drafted nothing")
    return outputs, rates


def check_greedy(check, generate, target, drafter, label, **kwargs) -> list[list[int]]:
    """The learner's greedy outputs of PROMPTS, held by the judge to the target's alone."""
    recorder = RecordingModel(target, check.observation)  # for the hint: its first forward's positions
    outputs, _ = generated(check, generate, PROMPTS, drafter, recorder, max_gen_len=GREEDY_LENGTH,
                           eos_tokens_id=NO_EOS, what=f"(greedy, {label})", **kwargs)
    GREEDY_ROWS(check, LoopRun(label, PROMPTS, target, ids=outputs,
                          hint=POSITIONS_HINT if positions_shifted(recorder.forwards[:1], PROMPTS) else LAW_HINT))
    return outputs


POSITIONS_HINT = ("positions must count each row's real tokens, not its columns: in the first "
                  "forward a left-padded row's first real token was not at position 0 (or no "
                  "position_ids were passed, and the model numbers columns)",
                  "a column's position is the number of the row's real tokens before it, kept through "
                  "the holes that rejected drafts leave",
                  "position_ids = attention_mask.cumsum(-1) − 1, passed to every forward")
SAME_MODEL_HINT = ("with the drafter equal to the target, p == q in every row and every draft must be "
                   "accepted: min(1, p/q) = 1",
                   "compare u * q < p so that equal probabilities always accept; count each row's "
                   "accepted / drafted")
WHOLE_BATCH_HINT = ("a batch pays only when every forward runs all its rows together",
                    "feed all rows together as a [B, w] tensor (finished rows too, as holes, or drop them "
                    "from every tensor and cache together)")
CACHE_HINT = ("each model keeps one cache for the whole call and is fed only the columns it has not seen",
              "one DynamicCache per model, passed to every forward (cache=...), fed only the new columns")


def positions_shifted(first: list, prompts: list[list[int]]) -> bool:
    """Whether the first forward (``first``: a list of at most one) numbered a left-padded
    row's real tokens from its column, or was given no positions at all."""
    pads = [max(map(len, prompts)) - len(p) for p in prompts]
    if not first or not any(pads):
        return False
    forward = first[0]
    if forward.positions is None:
        return True
    if len(forward.positions) == forward.fed:  # one row of positions for the whole batch
        rows = [forward.positions] * len(prompts)
    elif len(forward.positions) == forward.fed * len(prompts):
        rows = [forward.positions[b * forward.fed:(b + 1) * forward.fed] for b in range(len(prompts))]
    else:
        return False
    return any(row[pad:] != list(range(forward.fed - pad)) for row, pad in zip(rows, pads))


def check_end_tokens(check, generate, target, drafter, free):
    """End tokens chosen so that the rows stop at different places in ``free``, the
    learner's own greedy outputs of PROMPTS."""
    stops = {t: [o.index(t) if t in o else None for o in free] for t in range(target.config.vocab_size)}
    token = max(stops, key=lambda t: (len(set(stops[t])), -t))  # most distinct stopping places
    for eos in (token, [token, (token + 1) % target.config.vocab_size]):
        outputs, _ = generated(check, generate, PROMPTS, drafter, target, gamma=3,
                               max_gen_len=GREEDY_LENGTH, eos_tokens_id=eos,
                               what=f"(greedy, eos_tokens_id={eos})")
        STOPS(check, Greedy("each row stops at its own end token", outputs, target, PROMPTS,
                            {"max_gen_len": GREEDY_LENGTH, "eos_tokens_id": eos},
                            "a row stops right after the earliest end token it emits (accepted drafts "
                            "and its token), and a finished row emits nothing more while others go on",
                            case=f"eos_tokens_id={eos}"))


def check_max_gen_len(check, generate, target, drafter):
    for length in (1, 2, 4, 7):
        outputs, _ = generated(check, generate, PROMPTS, drafter, target, gamma=4, max_gen_len=length,
                               eos_tokens_id=NO_EOS, what=f"(greedy, max_gen_len={length}, gamma=4)")
        STOPS(check, Greedy(f"max_gen_len={length} in every row", outputs, target, PROMPTS,
                            {"max_gen_len": length, "eos_tokens_id": NO_EOS},
                            "rows accept different numbers of drafts, so their room left differs: a row "
                            "keeps only the tokens that fit in its own max_gen_len"))


def check_same_model(check, generate, target):
    """The drafter is the target: every draft of every row is accepted."""
    for processor in (GREEDY, sampling.MultinomialProcessor(temperature=1.0)):
        check.seed_everything("same model", repr(processor))
        log = []
        drafter, wrapped = (LoggedModel(target, role, log, check.observation) for role in ("drafter", "target"))
        outputs, rates = generated(check, generate, PROMPTS, drafter, wrapped, gamma=3,
                                   logits_processor=processor, max_gen_len=9, eos_tokens_id=NO_EOS,
                                   what=f"(drafter = target, {processor!r})")
        check.require("drafter = target accepts every draft",
                      rates == [1.0] * len(PROMPTS) and all(len(o) == 9 for o in outputs),
                      f"gave {[len(o) for o in outputs]} tokens with rates {rates}; expected 9 "
                      "tokens and rate 1.0 in every row",
                      DRAFTER_LAG_HINT if drafter_lags(log) else SAME_MODEL_HINT, case=repr(processor))


DRAFTER_LAG_HINT = ("after a round that accepts every draft, the drafter has never run on its last "
                    "draft (it drafted it, the target verified it): the next round's first drafter "
                    "forward must feed that draft with the new token, or the drafter's q comes from "
                    "a context one token short (here it was, after a target forward)")


def drafter_lags(log: list) -> bool:
    """Whether, in a run whose drafter is the target (every draft accepted), a round's first
    drafter forward saw a column less than the target had then, plus the new token: the
    target verified ``cached + fed`` columns, so the drafter must see one more."""
    return any(after.cached + after.fed < before.cached + before.fed + 1
               for before, after in zip(log, log[1:]) if (before.role, after.role) == ("target", "drafter"))


def check_forwards(check, generate, target):
    """What the models are fed, from wrappers that record every forward (drafter = target
    under greedy decoding: every draft accepted, so the rounds are known)."""
    kwargs = dict(gamma=3, max_gen_len=9, eos_tokens_id=NO_EOS)
    roles, log = recorded(lambda *a, **k: generated(check, generate, *a, **k,
                                                    what="(greedy, models wrapped to record each forward)"),
                          PROMPTS, target, check.observation, **kwargs)
    counts = {role: len(f) for role, f in roles.items()}
    FORWARD_COUNTS(check, LoopRun("", PROMPTS, target, shape=kwargs, forwards=[counts], hint=(
        DRAFTER_LAG_HINT if drafter_lags(log) else "each round: one drafter forward per draft position for the whole "
        "batch, then ONE target forward over every row's pending token and drafts")))
    for role, forwards in roles.items():
        narrow = [f.rows for f in forwards if f.rows != len(PROMPTS)]
        check.require(f"the {role} sees the whole batch in each forward", not narrow,
                      f"{role} forwards had batch sizes {narrow}; expected {len(PROMPTS)} rows "
                      "every time", WHOLE_BATCH_HINT)
        caches = {f.cache_id for f in forwards}
        later = [f.fed for f in forwards[1:]]
        check.require(f"the {role}'s cache is kept and only new columns are fed",
                      None not in caches and len(caches) == 1
                      and all(w <= 2 * (kwargs["gamma"] + 1) for w in later),
                      f"{role} forwards got {len(caches)} cache object(s) "
                      f"({'none' if None in caches else 'one each'} ...) and fed {later} columns "
                      "after the first", CACHE_HINT)


def check_shipped_pair(check, generate):
    texts = ["def read_config(path):\n", "import os\n", "class Stack:\n    def push(self, item):\n"]
    check_shipped_greedy(check, "greedy output of every row", "shipped pair", texts, 16,
                         lambda prompts, drafter, target: generated(
                             check, generate, prompts, drafter, target, gamma=4, max_gen_len=16,
                             what="(the shipped pair, greedy, three prompts)")[0], LAW_HINT)


def samples(check: CheckRun, generate, target, drafters, case: LawCase) -> tuple[list, list]:
    """``case.draws * check.draws`` runs of the batch: (outputs, rates), each a list of per-run rows."""
    check.seed_everything("law", case.label)
    runs = [generated(check, generate, case.prompt, drafters[case.drafter], target, **case.keywords,
                      what=f"({case.label})") for _ in range(case.draws * check.draws)]
    return [[tuple(o) for o in outputs] for outputs, _ in runs], [rates for _, rates in runs]


def check_law(check, generate, target, drafters, case: LawCase):
    outputs, rates = samples(check, generate, target, drafters, case)
    ROW_LAWS(check, LoopRun(case.label, case.prompt, target, drafters[case.drafter], ids=outputs, forwards=rates,
                            hint=LAW_HINT, case=case))


def check_independence(check, generate, target, drafters, case: LawCase):
    """Two rows with one prompt: their second tokens must be independent draws."""
    outputs, _ = samples(check, generate, target, drafters, case)
    INDEPENDENCE(check, LoopRun(case.label, case.prompt, target, ids=outputs, case=case))
