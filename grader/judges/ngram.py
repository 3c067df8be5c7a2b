"""The ngram check's expected values: what the storage must predict in each case, the
target's greedy decoding the loop's output is held to, and the reference loop's forwards
with a storage that ignores updates (its drafts are then fixed by the contract)."""
from grader.checks.harness import CheckRun
from grader.judged.loops import NO_EOS, LoopRun, NGramRun, StorageAnswer
from grader.observers import ngram_trace
from grader.oracle import tiny
from solutions.autoregressive import autoregressive_generate
from solutions.ngram import NGramStorage, PromptLookup, ngram_assisted_speculative_generate

SHOWN_FORWARDS = 6
CACHE_HINT = ("with use_cache=True the target's cache must hold exactly the text it has seen: fed only "
              "what it lacks, and rolled back after each round so that rejected drafts leave it",
              "one DynamicCache for the target; feed it only the text and drafts past its length, and "
              "after each round cut it back to the text's length minus one (the last token is fed next "
              "round)",
              "ids[:, cache.get_seq_length():end + k] for each target forward; cache.crop(-n) removes "
              "the last n")

ANSWERS = {  # StorageCase.prop -> what next_token must give
    "the longest context decides": 2,
    "back-off to a shorter context": 4,
    "an unknown context gives None": None,
    "an empty context gives None": None,
    "only the last n − 1 tokens count": 2,
    "update counts every suffix of the context": 5,
    "updates outweigh the prompt": 5,
    "update counts each of several tokens": 5,
    "ties go to the continuation seen first": 2,
    "n = 2 looks at the last token only": 1,
    "n = 4: three tokens of context first": 3,
    "n = 4: back-off by one token": 4,
    "initialize forgets what came before": None,
}
GREEDY_HINT = ("under greedy decoding the output must be the target's own greedy text: each draft is "
               "verified against the target's prediction for its own position, the text stops right "
               "after the earliest end token a round emits, and never runs past max_gen_len tokens",
               "the target's logits of the last k + 1 positions verify the k drafts and give the round's "
               "own token; draft min(gamma, tokens left − 1) tokens")


def storage(check: CheckRun, answer: StorageAnswer) -> None:
    case, got, what = answer.case, answer.got, answer.what
    expected = ANSWERS[case.prop]
    check.require(f"storage: {case.prop}", got == expected,
                  f"next_token({list(case.query)}) returned {got!r} {what}; expected {expected!r}", case.hint)


def reference_storage(run: NGramRun):
    """The course's storage for ``run``: ``NGramStorage(run.n, V)``, in a PromptLookup
    when the run's storage learns the prompt only."""
    storage = NGramStorage(run.n, tiny.TINY_VOCAB)
    return PromptLookup(storage) if run.lookup else storage


def expected_text(target, run: NGramRun) -> list[int]:
    """The target's greedy decoding of ``run``'s prompt, up to its end tokens."""
    return autoregressive_generate(run.prompt, target, max_gen_len=run.max_gen_len, eos_tokens_id=run.eos)


def crashed(check: CheckRun, crash: LoopRun) -> None:
    """A run with a cache that raised: a cache discipline its forwards broke first, if any."""
    log, target, run, label, raised = crash.forwards, crash.target, crash.case, crash.label, crash.raised
    found, problem = ngram_trace.rounds(log, run.prompt, expected_text(target, run), partial=True)
    broken = problem or cache_problem(found, use_cache=True)
    if broken:
        check.fail("cache discipline", f"{broken}; then it raised: {raised}", CACHE_HINT, case=label)


def greedy_run(check: CheckRun, greedy: LoopRun) -> None:
    """The output of one greedy run against the target's alone; when it is right, its
    rounds, cache and rate as the target wrapper logged them."""
    ids, rate, log, target, run, label = (greedy.ids, greedy.number, greedy.forwards, greedy.target, greedy.case,
                                          greedy.label)
    expected = expected_text(target, run)
    prop = "end tokens" if run.eos != NO_EOS else "greedy output"
    if not check.require(prop, ids == expected, f"gave {ids}; greedy decoding of the target alone gives {expected}",
                         GREEDY_HINT, case=label):
        return
    with check.observing():
        found, problem = ngram_trace.rounds(log, run.prompt, ids)
        if not check.require("one target forward per round", problem is None, str(problem),
                             "each round is ONE target forward over the text so far and the round's "
                             "drafts (with a cache: over what the cache lacks); it emits the accepted "
                             "drafts and one token of the target's", case=label):
            return
        broken = cache_problem(found, run.use_cache)
        check.require("cache discipline" if run.use_cache else "no cache",
                      broken is None, str(broken), CACHE_HINT if run.use_cache else
                      "with use_cache=False run the target over the whole sequence, with no cache", case=label)
        if run.eos == NO_EOS:
            accepted, drafted = ngram_trace.acceptance(found)
            right = accepted / drafted if drafted else 0.0
            check.require("acceptance rate", abs(rate - right) < 1e-9,
                          f"returned the rate {rate}; the forwards show {accepted} accepted of "
                          f"{drafted} drafted tokens ({right})",
                          "accepted drafts / drafted tokens over the whole call, counting the drafts "
                          "each round really made (fewer than gamma near the end or when drafting "
                          "stopped); 0.0 when nothing was drafted", case=label)


def fixed_drafts(check: CheckRun, fixed: LoopRun) -> None:
    """The learner's target forwards against the reference loop's with the same storage."""
    prop, actual_log, target, run, hint, label = (fixed.prop, fixed.forwards, fixed.target, fixed.case, fixed.hint,
                                                  fixed.label)
    _, _, expected_log = ngram_trace.traced(ngram_assisted_speculative_generate, list(run.prompt),
                                         reference_storage(run), target, **run.kwargs())
    expected = [(c.cached, c.ids) for c in expected_log]
    actual = [(c.cached, c.ids) for c in actual_log]
    wrong = next((i for i, (a, b) in enumerate(zip(actual, expected)) if a != b),
                 None if len(actual) == len(expected) else min(len(actual), len(expected)))
    if wrong is None:
        check.require(prop, True, "", case=label)
        return
    rows = [["forward", "cached", "fed", "expected cached", "expected fed"]]
    for i in range(max(0, wrong - SHOWN_FORWARDS + 2), min(wrong + 2, max(len(actual), len(expected)))):
        got = actual[i] if i < len(actual) else ("-", "-")
        want = expected[i] if i < len(expected) else ("-", "-")
        rows.append([str(i + 1), str(got[0]), str(got[1]), str(want[0]), str(want[1])])
    check.require(prop, False, f"target forward {wrong + 1} differs from the contract's (the storage ignores "
                  "updates, so the drafts are fixed)", hint, rows, case=label)


def cache_problem(found, use_cache: bool) -> str | None:
    """How the cache sizes of the rounds' target forwards break the discipline, if they do:
    with a cache, empty at the first forward and the text but its last token after; without
    one, always empty."""
    for number, r in enumerate(found, 1):
        right = r.start - 1 if use_cache and number > 1 else 0
        if r.target_cached != right:
            return (f"target forward {number} came with {r.target_cached} tokens cached; "
                    f"expected {right} (the text was {r.start} tokens long)")
    return None
