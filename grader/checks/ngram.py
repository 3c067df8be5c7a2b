"""Check `ngram`: `NGramStorage` and `ngram_assisted_speculative_generate` (lesson 5).

The storage is graded alone and deterministically: what it predicts after it was
initialised and updated (the longest known context decides, shorter ones back it up,
the most frequent continuation wins, ties go to the first seen, None where it knows
nothing).

The loop is graded with the learner's own storage once it has passed those properties
(a wrong storage stops the check there: the loop's fixed-draft properties rest on it), and
on what makes the loop correct, not on what it drafts: drafts
that depend only on the text so far and on the target's verified logits give an exact
loop, a storage that is never updated (prompt lookup) included; it is slower, not wrong.
Under greedy decoding: the output equals the target's alone, every target forward sees
the text so far and the round's drafts (with a cache, only what it has not seen), the
returned rate is the drafts accepted over the drafts made, end tokens and ``max_gen_len``
are honoured; with a storage that ignores updates the drafts are fixed by the contract,
so the forwards must be the reference's. Under sampling: the law of the first L tokens,
computed exactly by enumeration through the tiny target, jointly and token by token.
The storage's answers, the target's greedy decoding, the reference loop's forwards and
the exact laws are the decider's alone (grader/judges/ngram.py).
"""
from dataclasses import dataclass

from grader.checks.harness import CheckRun, Stop
from grader.checks.loop_properties import (
    LAW_JUDGE,
    MODEL_SEED,
    Judge,
    LawCase,
    LoopRun,
    Samples,
    check_shipped_greedy,
)
from grader.checks.speculative_generate import generated
from grader.judged.loops import NGramRun as Run
from grader.judged.loops import StorageAnswer, StorageCase
from grader.observers.trace import LoggedModel
from grader.oracle import tiny
from grader.verdict import ERROR
from solutions import sampling

VOCAB = tiny.TINY_VOCAB
STORAGE: Judge[StorageAnswer] = Judge("ngram.storage")
CRASHED: Judge[LoopRun] = Judge("ngram.crashed")
GREEDY_RUN: Judge[LoopRun] = Judge("ngram.greedy_run")
FIXED_DRAFTS: Judge[LoopRun] = Judge("ngram.fixed_drafts")


REPEATS = (0, 1, 2, 3, 1, 4, 3, 1, 4)  # (0, 1) -> 2 once; (1,) -> 2 once, 4 twice
STORAGE_CASES = [
    StorageCase("the longest context decides", 3, (REPEATS,), (0, 1),
                "look up the last n − 1 tokens first, then shorter suffixes: here (0, 1) was "
                "followed by 2, while (1,) alone was followed more often by 4"),
    StorageCase("back-off to a shorter context", 3, (REPEATS,), (5, 1),
                "when the last n − 1 tokens were never seen, try the last n − 2, and so on "
                "down to the last token alone"),
    StorageCase("an unknown context gives None", 3, (REPEATS,), (4, 5),
                "return None when not even the last token was ever followed by anything"),
    StorageCase("an empty context gives None", 3, (REPEATS,), (),
                "a context of no tokens has no suffix to look up: return None"),
    StorageCase("only the last n − 1 tokens count", 3, (REPEATS,), (2, 3, 0, 1),
                "a longer context is cut to its last n − 1 tokens (here (0, 1))"),
    StorageCase("update counts every suffix of the context", 3, (REPEATS,), (5, 1),
                "update(context, tokens) counts each token after every suffix of 1 to n − 1 "
                "tokens of the context: three 5s after (3, 2, 0, 1) also count after (1,)",
                updates=(((3, 2, 0, 1), (5,)),) * 3),
    StorageCase("updates outweigh the prompt", 3, (REPEATS,), (0, 1),
                "the most frequent continuation wins: 5 counted three times after (0, 1), 2 once",
                updates=(((3, 2, 0, 1), (5,)),) * 3),
    StorageCase("update counts each of several tokens", 3, ((4, 0),), (4,),
                "update(context, [2, 5]) counts 2 once and 5 once; after update([4], [5]) 5 has "
                "two counts after (4,)", updates=(((4,), (2, 5)), ((4,), (5,)))),
    StorageCase("ties go to the continuation seen first", 3, ((3, 2, 3, 0),), (3,),
                ("(3,) was followed once by 2, then once by 0: on equal counts keep the one seen first",
                 "Python's max over a dict in insertion order keeps the first of equal counts")),
    StorageCase("n = 2 looks at the last token only", 2, ((0, 1, 2, 0, 1, 3),), (2, 0),
                "with n = 2 the context is the last token alone"),
    StorageCase("n = 4: three tokens of context first", 4, ((0, 1, 2, 3, 5, 1, 2, 4, 5, 1, 2, 4),),
                (0, 1, 2), "with n = 4 try the last three tokens first: (0, 1, 2) was followed "
                "by 3, while (1, 2) was followed more often by 4"),
    StorageCase("n = 4: back-off by one token", 4, ((0, 1, 2, 3, 5, 1, 2, 4, 5, 1, 2, 4),),
                (3, 1, 2), "(3, 1, 2) was never seen: back off to (1, 2)"),
    StorageCase("initialize forgets what came before", 3, (REPEATS, (5, 5)), (0, 1),
                "initialize(ids) starts from an empty storage, then learns the n-grams of ids"),
]



class PromptOnly:
    """A storage that learns the prompt only (prompt lookup): ``update`` changes nothing."""

    def __init__(self, storage):
        self.storage = storage

    def initialize(self, ids: list[int]) -> None:
        self.storage.initialize(ids)

    def update(self, context: list[int], tokens: list[int]) -> None:
        pass

    def next_token(self, context: list[int]) -> int | None:
        return self.storage.next_token(context)


def learner_storage(check: CheckRun, run: Run, storage_class):
    """A new storage of the learner's class for ``run``: ``storage_class(n, VOCAB)``, in a
    PromptOnly where the run's storage learns the prompt only."""
    storage = check.call(storage_class, run.n, VOCAB, what=f"(NGramStorage({run.n}, {VOCAB}), for the loop)")
    return PromptOnly(storage) if run.lookup else storage


GREEDY_RUNS = [
    Run([0], 3, 1),
    Run([0], 3, 4, use_cache=True, filler_top_k=0),
    Run([2, 3, 4], 2, 2, first_target=False),
    Run([2, 3, 4], 3, 4, stop_if_unknown=True, use_cache=True),
    Run([2, 3, 2, 3, 2], 3, 2, use_cache=True, filler_top_k=1),
    Run([2, 3, 2, 3, 2], 4, 4, first_target=False, stop_if_unknown=True),
    Run([4, 4, 4, 4], 3, 3, lookup=True),
    Run([0, 5, 0, 5, 0, 5], 3, 5, first_target=False, use_cache=True, lookup=True),
] + [Run([1, 2], 3, 4, max_gen_len=length, use_cache=length % 2 == 0) for length in (1, 2, 4, 7)]
# an end token drafted and accepted in the middle of a round (tests/test_ngram.py makes sure)
END_TOKEN_RUNS = [Run([2, 3, 0], 3, 4, eos=0), Run([2, 3, 0], 3, 4, eos=[4, 0], use_cache=True)]
# storages that ignore updates: the drafts are then fixed by the contract
FIXED_DRAFT_RUNS = [
    ("drafts chained from the storage, stopping where it knows nothing",
     Run([3, 3, 2, 3, 2, 0, 4], 3, 4, stop_if_unknown=True, lookup=True),
     ("a round's drafts are chained: each is the storage's prediction after the text and the drafts "
      "before it; with stop_if_unknown, drafting stops where the storage knows nothing, and never drafts "
      "more than the room left",
      "draft i is storage.next_token(text + drafts[:i]); with stop_if_unknown, the round's "
      "drafting ends at the first None; k = min(gamma, tokens left − 1)")),
    ("drafts chained from the storage (cache)",
     Run([3, 3, 2, 3, 2, 0, 4], 3, 3, stop_if_unknown=True, lookup=True, use_cache=True, first_target=False),
     ("a round's drafts are chained: each is the storage's prediction after the text and the drafts "
      "before it; with stop_if_unknown, drafting stops where the storage knows nothing; with "
      "first_target=False the first round drafts too",
      "draft i is storage.next_token(text + drafts[:i]); with stop_if_unknown, the round's "
      "drafting ends at the first None")),
    ("the filler where the storage knows nothing",
     Run([3], 3, 3, lookup=True),
     "where next_token gives None (and stop_if_unknown is off) draft the filler: the token of "
     "highest target logit at the last position the target scored and the text kept"),
    ("no filler before the target scored anything",
     Run([3], 3, 2, lookup=True, first_target=False, use_cache=True),
     "with first_target=False the first round has no target logits yet: where the storage "
     "knows nothing it drafts nothing, and the target samples the first token alone"),
]


@dataclass(frozen=True, eq=False, kw_only=True)
class NGramCase(LawCase):
    """A law case of the loop that also holds its ``run``: the storage it drafts from and the
    loop's settings."""
    run: Run


def law_case(id: str, processor: sampling.LogitsProcessor, run: Run, draws: int = 300) -> NGramCase:
    """``run`` sampled with ``processor``, its law of the first ``run.max_gen_len`` tokens known exactly."""
    return NGramCase(id, f"{processor!r}, {run.label}", draws, processor, run.prompt, run.max_gen_len, run.eos, run=run)


LAW_CASES = [
    law_case("law-1", sampling.MultinomialProcessor(temperature=1.0), Run([3], 3, 2, max_gen_len=4)),
    law_case("law-2", sampling.MultinomialProcessor(temperature=0.6),
             Run([2, 3, 2, 3, 2], 3, 3, max_gen_len=4, first_target=False, use_cache=True, eos=1)),
    law_case("law-3", sampling.TopKProcessor(temperature=1.0, top_k=3), Run([4, 4, 4, 4], 2, 4, max_gen_len=5)),
    law_case("law-4", sampling.MultinomialProcessor(temperature=1.5),
             Run([0, 5, 0, 5, 0, 5], 4, 1, max_gen_len=4, first_target=False, stop_if_unknown=True,
                 lookup=True)),
]
INT_OR_NONE_HINT = ("next_token gives a token id as a plain Python int, or None when the storage knows "
                    "nothing: the loop puts drafts in a list and tests `is None`",
                    "return int(token) for a prediction")
LAW_HINT = ("a deterministic draft d is a point mass, q = one_hot(d): accept it with probability "
            "p(d) (u < p(d), p processed by logits_processor); on a rejection draw from "
            "max_fn(p − one_hot(d)), p without d, renormalised: a fresh draw from p can give d "
            "again and makes d too likely; after k accepted drafts the bonus comes from p_k "
            "(speculative_sampling with q = one_hot(drafts) does all of it)")


def run(check: CheckRun) -> None:
    storage_class = check.function("NGramStorage")
    generate = check.function("ngram_assisted_speculative_generate")
    for case in STORAGE_CASES:
        check_storage(check, storage_class, case)
    # the loop runs with the learner's storage: its fixed drafts rest on the storage's answers,
    # which the decider alone judges (the runner, which never judges, runs on to no purpose)
    check.stop_if_failed("loop's properties (the loop runs with your NGramStorage)")
    target = tiny.tiny_pair(MODEL_SEED)[0]
    for greedy_run in GREEDY_RUNS + END_TOKEN_RUNS:
        check_greedy(check, generate, storage_class, target, greedy_run)
    for prop, fixed_run, hint in FIXED_DRAFT_RUNS:
        check_fixed_drafts(check, generate, storage_class, target, prop, fixed_run, hint)
    check_shipped_pair(check, generate, storage_class)
    for case in LAW_CASES:
        check_law(check, generate, storage_class, target, case)


def check_storage(check, storage_class, case: StorageCase):
    calls = [f"NGramStorage({case.n}, {VOCAB})"] + [f"initialize({list(p)})" for p in case.prompts]
    calls += [f"update({list(c)}, {list(t)})" for c, t in case.updates]
    what = f"(after {', '.join(calls)})"
    storage = check.call(storage_class, case.n, VOCAB, what=what)
    for prompt in case.prompts:
        check.call(storage.initialize, list(prompt), what=what)
    for context, tokens in case.updates:
        check.call(storage.update, list(context), list(tokens), what=what)
    got = check.call(storage.next_token, list(case.query), what=what)
    if got is not None and (type(got) is not int):
        check.require("next_token returns an int or None", False,
                      f"next_token({list(case.query)}) returned {type(got).__name__} {got!r} {what}",
                      INT_OR_NONE_HINT, case=case.prop)
        return
    STORAGE(check, StorageAnswer(case, got, what))


def check_greedy(check, generate, storage_class, target, greedy_run: Run):
    """Output, rounds, cache and rate of one greedy run (grader/judges/ngram.py)."""
    label = greedy_run.label
    log = []
    storage = learner_storage(check, greedy_run, storage_class)
    try:
        ids, rate = generated(check, generate, list(greedy_run.prompt), storage,
                              LoggedModel(target, "target", log, check.observation), **greedy_run.kwargs(),
                              what=f"(greedy, {label})")
    except Stop as stop:  # a broken cache often ends in a shape error: say so first
        if stop.status == ERROR and greedy_run.use_cache:
            with check.observing():
                CRASHED(check, LoopRun(label, greedy_run.prompt, target, raised=stop.summary, forwards=log,
                                       case=greedy_run))
        raise
    GREEDY_RUN(check, LoopRun(label, greedy_run.prompt, target, ids=ids, number=rate, forwards=log, case=greedy_run))


def check_fixed_drafts(check, generate, storage_class, target, prop, fixed_run: Run, hint):
    """A storage that ignores updates: the contract fixes every draft, so every forward."""
    actual_log = []
    generated(check, generate, list(fixed_run.prompt), learner_storage(check, fixed_run, storage_class),
              LoggedModel(target, "target", actual_log, check.observation), **fixed_run.kwargs(),
              what=f"(greedy, {fixed_run.label})")
    with check.observing():  # the forwards, as the target wrapper logged them
        FIXED_DRAFTS(check, LoopRun(fixed_run.label, fixed_run.prompt, target, forwards=actual_log, hint=hint,
                                    case=fixed_run, prop=prop))


def check_shipped_pair(check, generate, storage_class):
    text = "def area(width, height):\n    return width * height\n\n\ndef perimeter(width, height):\n    return"

    def run(prompt, _, target):
        storage = check.call(storage_class, 3, target.config.vocab_size,
                             what=f"(NGramStorage(3, {target.config.vocab_size}), for the shipped target)")
        return generated(check, generate, prompt, storage, target, gamma=4, max_gen_len=24, use_cache=True,
                         what="(the shipped target, greedy)")[0]

    check_shipped_greedy(check, "greedy output", "shipped target", [text], 24, run)


def check_law(check, generate, storage_class, target, case: NGramCase):
    check.seed_everything("law", case.label)
    samples = [tuple(generated(check, generate, list(case.prompt), learner_storage(check, case.run, storage_class),
                               target, logits_processor=case.processor, **case.run.kwargs(),
                               what=f"({case.label})")[0])
               for _ in range(case.draws * check.draws)]
    LAW_JUDGE(check, Samples(samples, target, case, LAW_HINT))
