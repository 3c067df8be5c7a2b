"""What lesson 11's loop checks compare with (grader/checks/eagle_generate.py's ``run_loop``):
the target's greedy decoding, and the reference loop's number and target forwards on the
same head."""
from grader.checks.harness import CheckRun
from grader.judged.loops import GREEDY, GREEDY_LENGTH, NO_EOS, LoopRun
from grader.judges import eagle_rounds
from grader.observers.trace import LoggedModel
from grader.verdict import Hint, levels
from solutions.autoregressive import autoregressive_generate
from solutions.eagle import eagle_generate, eagle_tree_generate

REFERENCES = {"eagle_generate": eagle_generate, "eagle_tree_generate": eagle_tree_generate}
FORWARDS_HINT = ("the feature head drafts from the target's features, so the target runs once per round: "
                 "over the last token and the round's drafts, its cache holding everything before them.",
                 "one target_step(target, ids[:, end − 1 : end + k], target_cache) per round, after the "
                 "prefill over the prompt (a tree's round: over the last token and its nodes)")
HEAD_CACHE_HINT = ("each round the head reads the pairs it lacks, (f_t, x_(t+1)) for the positions the "
                   "target verified since its last true pair; its cache holds only pairs built on the target's "
                   "own features, so what its drafting steps (a tree's nodes too) added must go after each round.",
                   "after each round, roll_back(head_cache, end − 1) (crop it to the pairs of the text but its "
                   "last token); the next round reads true_features[:, read : end − 1] and ids[:, read + 1 : end], "
                   "read = head_cache.get_seq_length()")


def crashed(check: CheckRun, run: LoopRun) -> None:
    """A run that raised (``run.raised``): named from what was seen before, when it shows the
    cause. ``run.feeds``: ``[pairs fed, pairs its cache held]`` per call of the head's decoder
    (grader/observers/head_feeds.py); ``run.forwards`` and ``run.events``: the target's
    forwards and the RoundWatch log (grader/judges/eagle_rounds.py). A call of the head that
    fed no pairs is the sign of a head cache left holding the round's drafting steps."""
    raised, label, feeds = run.raised, run.label, run.feeds
    found = eagle_rounds.crash(run.loop, run.prompt, GREEDY_LENGTH, run.forwards, run.events, raised)
    if found:
        words, hint = eagle_rounds.worded(found)
        check.fail("the loop runs to its end", f"it raised{words}. What it raised: {raised}", hint, case=label)
    empty = next((number for number, (fed, _) in enumerate(feeds, 1) if fed == 0), None)
    if empty is None:
        return
    held = feeds[empty - 1][1]
    check.fail("the head reads the pairs it lacks", f"call {empty} of the head fed it no pairs"
               + (f", its cache already holding {held}" if held is not None else "")
               + f": the slice of the pairs it lacked was empty; then it raised: {raised}", HEAD_CACHE_HINT,
               case=label)


def q_rows(check: CheckRun, run: LoopRun) -> None:
    """Each draft's q came from the head's last row (``run.events``: grader/observers/round_watch.py)."""
    found = eagle_rounds.q_rows(run.events)
    check.require("q from the head's last row", not found, found[0][1] if found else "",
                  eagle_rounds.HINTS[eagle_rounds.Q_ROW], case=run.label)


def greedy_run(check: CheckRun, run: LoopRun) -> None:
    """The output is the target's greedy text; the number is the reference loop's with this
    head (``run.drafter``). A failure names the bugs that what was seen of the rounds points at
    (``forwards``, ``events``: grader/judges/eagle_rounds.py), the likeliest first."""
    loop, prompt, shape, ids, number, target = run.loop, run.prompt, run.shape, run.ids, run.number, run.target
    label = ", ".join([f"prompt {prompt}"] + [f"{key}={value}" for key, value in shape.items()])
    forwards, events = run.forwards, run.events
    expected_ids = autoregressive_generate(prompt, target, max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    wrong_at = next((i for i, (a, b) in enumerate(zip(ids, expected_ids)) if a != b), None)
    found = eagle_rounds.diagnoses(loop, shape, prompt, ids, number, GREEDY_LENGTH, forwards, events, wrong_at)
    words, first = eagle_rounds.worded(found) if found else ("", None)
    check.require("greedy output", ids == expected_ids,
                  f"gave {ids}; greedy decoding of the target alone gives {expected_ids}{words}",
                  _first(first, run.hint), case=label)
    _, expected = REFERENCES[loop](prompt, target, run.drafter, **shape, logits_processor=GREEDY,
                                   max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    check.require(f"greedy {run.returns}", abs(number - expected) < 1e-9,
                  f"returned {number:.4g}; the reference loop with this head gives {expected:.4g}"
                  + (words or ": the head drafted from other inputs than the target's features"),
                  _first(first, run.number_hint), case=label)


def length_run(check: CheckRun, run: LoopRun) -> None:
    """A greedy run of ``run.max_gen_len``: the target's greedy text, cut there. A wrong
    token that repeats the one before it in the tree loop names the leaf's bonus row."""
    ids, length = run.ids, run.max_gen_len
    expected = autoregressive_generate(run.prompt, run.target, max_gen_len=length, eos_tokens_id=NO_EOS)
    wrong_at = next((i for i, (a, b) in enumerate(zip(ids, expected)) if a != b), None)
    found = eagle_rounds.leaf_bonus(ids, wrong_at) if run.loop == "eagle_tree_generate" else []
    words, first = eagle_rounds.worded(found) if found else ("", None)
    check.require(f"max_gen_len={length}", ids == expected, f"gave {ids}; expected {expected}{words}",
                  _first(first, run.hint))


def _first(diagnosis: str | None, hint: Hint) -> Hint:
    """``hint`` with ``diagnosis`` as its first level, when there is one."""
    return hint if diagnosis is None else (diagnosis, *levels(hint))


def forwards(check: CheckRun, run: LoopRun) -> None:
    """``run.forwards``, the learner's (tokens fed, tokens cached) per target forward, against
    the reference loop's."""
    log, fed = [], run.forwards
    REFERENCES[run.loop](run.prompt, LoggedModel(run.target, "target", log), run.drafter, **run.shape,
                         logits_processor=GREEDY, max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    expected = [(c.fed, c.cached) for c in log]
    check.require("one target forward per round", fed == expected,
                  f"(tokens fed, tokens cached) per target forward were {fed}; expected {expected}",
                  FORWARDS_HINT)
