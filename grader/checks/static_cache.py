"""Check `static_cache` (lesson 7): `fast_speculative_generate` and `fast_autoregressive_generate`.

Eagerly (``compile=False``) on the tiny models, where the laws are exact: every property
of lesson 3's check that applies to a loop whose target samples the first token (greedy
output, end tokens, ``max_gen_len`` mid-draft, drafter = target, the exact law of the
first tokens, the exact law of the acceptance rate), then the cache discipline seen by
wrapping both models: one ``StaticCache`` per model, each forward's positions equal to the
cache's write position, every forward attending only to the text (rejected drafts rolled
back before anything reads them), one host sync per round; the baseline's host reads, one
per ``HOST_READ_EVERY`` tokens. Last, one compiled greedy run
on the shipped pair, and a second call that must compile nothing new. A loop that fails a
deterministic property stops there: the exact-law tests would only measure the same bug.
The reference's outputs and the exact laws are the decider's alone (grader/judges/).
"""
import functools

from grader.checks import speculative_generate as speculative
from grader.checks.autoregressive import LAW_HINT
from grader.checks.harness import CheckRun
from grader.checks.loop_properties import (
    GREEDY,
    GREEDY_JUDGE,
    LAW_JUDGE,
    NO_EOS,
    SAID,
    SHIPPED_JUDGE,
    Greedy,
    LawCase,
    Samples,
    Shipped,
    check_greedy_properties,
    models,
)
from grader.models import SHIPPED_MISSING, load_pair, shipped_pair_present
from grader.observers import observation
from grader.observers.host_syncs import HostSyncCounter
from grader.observers.trace import LoggedModel
from solutions import sampling
from solutions.fast import HOST_READ_EVERY

T1 = sampling.MultinomialProcessor(temperature=1.0)
ROUND_SYNC_HINT = ("on a GPU each read of a tensor on the host waits for the device to finish: a round "
                   "may read its result once, and do everything else on the device.",
                   "read the round's result on the host once (n and the first end token together, one "
                   ".tolist()); sample, write drafts and move the caches back with tensor operations")
STATIC_CACHE_HINT = ("a static cache is allocated once, at a fixed size, so that the compiled steps always "
                     "see the same shapes.",
                     "allocate one StaticCache per model before the loop (sized for the prompt, max_gen_len "
                     "and one more draft block) and pass it to every forward")
POSITIONS_HINT = ("a forward must be told the positions its tokens are written to: they follow the "
                  "cache's own write counter, which moves back when drafts are rejected.",
                  "a StaticCache writes m fed tokens at its counter, counter + m - 1 "
                  "(cache.get_seq_length()); pass exactly those positions, and move the counter back "
                  "with cache.crop(-r) when r tokens are rejected")
BASELINE_SYNC_HINT = ("on a GPU each read of a tensor on the host waits for the device: the baseline may "
                      f"read once every HOST_READ_EVERY = {HOST_READ_EVERY} tokens, and once for the output.",
                      "keep the end-token tests on the device (a bool per token beside ids) and read "
                      "them on the host once every HOST_READ_EVERY tokens, then read ids and the tests "
                      "once at the end and cut after the first end token")
STALE_HINT = ("a static cache keeps what rejected drafts wrote: each model's write position must be moved "
              "back before anything reads past the text it has seen.",
              "after a round that kept n of the drafts, move each model's write position back to just "
              "after the text it has seen (the target: end + n; the drafter: what it fed that is still "
              "text); when every draft was accepted the drafter has not seen its last draft yet: feed it "
              "before the next round")
RECOMPILE_HINT = ("a compiled step is built again whenever a shape it is called with changes: every "
                  "round must call the compiled steps with the same shapes, whatever the prompt or the "
                  "room left.",
                  "the drafter's [1, 1] step and the target's [1, gamma + 1] verification in every round "
                  "(draft gamma, count only what fits), a cache length that does not depend on the "
                  "prompt, and the eager prefill outside the compiled steps")
LAW_CASES = [  # the fast loop always lets the target sample the first token
    speculative.law_case("law-1", T1, [0], 2, "near", 4, 300),
    speculative.law_case("law-2", sampling.TopKProcessor(temperature=1.0, top_k=3), [3], 3, "near", 5, 300),
    speculative.law_case("law-3", sampling.NucleusProcessor(temperature=1.0, top_p=0.6), [4, 4], 2, "GPT-2", 4,
                         300),
]
ACCEPTANCE_CASE = speculative.law_case("acceptance", sampling.MultinomialProcessor(temperature=2.0), [3, 5], 3,
                                       "near", 5, 400, eos=NO_EOS)
BASELINE_SAMPLING = sampling.MultinomialProcessor(temperature=0.6)
AUTOREGRESSIVE_LAW = LawCase("baseline-law", f"{BASELINE_SAMPLING!r}, prompt [2, 3, 4, 5]", 600,
                             BASELINE_SAMPLING, [2, 3, 4, 5], 3)
DISCIPLINE = [  # (drafter, processor, prompts of two calls on the same models, gamma)
    ("near", GREEDY, ([2, 3], [1, 4, 0]), 3),
    ("GPT-2", GREEDY, ([0], [5, 1]), 2),
    ("near", T1, ([1, 4, 0], [3]), 4),
]
SYNC_ALLOWANCE = 3  # host reads besides one per round: the prefill's end test, the output
BASELINE_TOKENS = 24  # the baseline's run whose host reads are counted: three reads' worth of tokens


def run(check: CheckRun) -> None:
    fast = check.function("fast_speculative_generate")
    baseline = check.function("fast_autoregressive_generate")
    target, drafters = models()
    eager = eagerly(fast)
    check_greedy_properties(check, speculative.as_loop(check, eager, use_cache=True), target, drafters,
                            speculative.GREEDY_RUNS)
    for name, processor, prompts, gamma in DISCIPLINE:
        check_discipline(check, fast, target, drafters[name], processor, prompts, gamma,
                         f"{name} drafter, {processor!r}, gamma={gamma}")
    # the greedy properties are judged in the decider alone: there this stops a loop that
    # failed them, while the runner, which never judges, runs on to no purpose
    check.stop_if_failed("exact-law tests, the baseline's properties and the compiled run")
    speculative.check_acceptance(check, eager, target, drafters, ACCEPTANCE_CASE, True)
    for case in LAW_CASES:
        speculative.check_law(check, eager, target, drafters, case, True)
    check_baseline(check, baseline, target, drafters["GPT-2"])
    check_compiled(check, fast)


def eagerly(fn):
    """``fn`` with ``compile=False``, callable the way lesson 3's checks call their loop:
    their ``use_cache`` and ``first_target`` are the fast loop's only way of working."""
    @functools.wraps(fn)
    def called(*args, use_cache=True, first_target=True, logits_processor=GREEDY, **kwargs):
        assert first_target, "the fast loop's cases all start with the target's prefill"
        return fn(*args, compile=False, logits_processor=logits_processor, **kwargs)
    return called


def check_discipline(check, fast, target, drafter, processor, prompts, gamma, label):
    """Two calls on the same wrapped models, each judged from its own log of forwards."""
    label = f"{label}, max_gen_len=12"
    check.seed_everything("discipline", label)
    log = []
    with HostSyncCounter(check.observation) as syncs:
        wrapped = {"drafter": syncs.uncounted(LoggedModel(drafter, "drafter", log, check.observation)),
                   "target": syncs.uncounted(LoggedModel(target, "target", log, check.observation))}
        for call, prompt in enumerate(prompts, 1):
            log.clear()
            syncs.count = 0
            ids, _ = speculative.generated(check, fast, prompt, wrapped["drafter"], wrapped["target"],
                                           gamma=gamma, logits_processor=processor, max_gen_len=12,
                                           eos_tokens_id=NO_EOS, compile=False,
                                           what=f"({label}, call {call}, models wrapped to record forwards)")
            with check.observing():
                judge_forwards(check, list(log), prompt + ids, f"{label}, call {call}")
            rounds = sum(c.role == "target" for c in log) - 1  # the first is the prefill
            with check.observing():
                require_host_reads(check, "one host sync per round", syncs.count, rounds + SYNC_ALLOWANCE,
                                   f"{rounds} rounds", ROUND_SYNC_HINT, case=f"{label}, call {call}")


def require_host_reads(check, prop: str, count: int, allowed: int, made_for: str, hint, case: str = "") -> None:
    """``prop``: at most ``allowed`` host reads (``count``, a HostSyncCounter's) for the work
    ``made_for`` names ("5 rounds")."""
    check.require(prop, count <= allowed, f"{count} host reads of tensors outside the forwards for {made_for}; "
                  f"expected at most {allowed}", hint, case=case)


def judge_forwards(check, log, text, label) -> None:
    """One static cache per model; positions = the write position; context = the text."""
    for role in dict.fromkeys(c.role for c in log):
        calls = [c for c in log if c.role == role]
        require_one_static_cache(check, role, calls, label)
        wrong = [(i, c) for i, c in enumerate(calls, 1)
                 if c.positions is not None and c.positions != list(range(c.cached, c.cached + c.fed))]
        check.require(f"{role} positions = the cache's write position", not wrong,
                      "forwards fed at other positions than the ones the cache writes to", POSITIONS_HINT,
                      position_table(wrong), case=label)
    stale = attended_stale(log, text)
    check.require("every forward attends to the text only", not stale,
                  "a forward read cache entries that are not the text's tokens at their "
                  "positions (rejected drafts left in place, or positions never written)",
                  STALE_HINT, stale_table(stale), case=label)


def require_one_static_cache(check, role: str, calls: list, label: str, hint=STATIC_CACHE_HINT) -> None:
    """One ``StaticCache`` object in every forward of ``calls`` (one call's forwards of the
    model in ``role``, Forward records)."""
    kinds = {(c.cache_id, c.cache_type) for c in calls}
    check.require(f"one StaticCache for the {role}", len(kinds) == 1 and next(iter(kinds))[1] == "StaticCache",
                  f"the {role}'s forwards got {len(kinds)} cache object(s) of type "
                  f"{sorted({t for _, t in kinds})}; expected one StaticCache for the whole call", hint, case=label)


def attended_stale(log, text) -> list[tuple]:
    """(forward, role, position, cached token, text token) where a forward's context differs
    from the text. A target forward at positions s.. reads the target's entries below s, all
    accepted text; a drafter forward at q.. reads the drafter's below q, text below the next
    verification's start + 1 and the round's own drafts above it."""
    written = {"drafter": {}, "target": {}}
    found = []
    for i, call in enumerate(log):
        limit = start(call)
        if call.role == "drafter":
            verification = next((c for c in log[i:] if c.role == "target"), None)
            limit = min(limit, start(verification) + 1 if verification else len(text))
        for p in range(min(limit, len(text))):
            if written[call.role].get(p) != text[p]:
                found.append((i + 1, call.role, p, written[call.role].get(p, "none"), text[p]))
                break
        positions = call.positions or range(call.cached, call.cached + call.fed)
        written[call.role].update(zip(positions, call.ids))
    return found


def start(call) -> int:
    """The first position a forward writes: the positions passed, else the cache's counter."""
    return call.positions[0] if call.positions else call.cached


def position_table(wrong) -> list[list[str]]:
    rows = [["forward", "tokens fed", "write position", "positions passed"]]
    return rows + [[str(i), str(c.fed), str(c.cached), str(c.positions)] for i, c in wrong[:5]]


def stale_table(stale) -> list[list[str]]:
    rows = [["forward", "model", "position", "cache holds", "text"]]
    return rows + [[str(x) for x in row] for row in stale[:5]]


def check_baseline(check, baseline, target, gpt2):
    """`fast_autoregressive_generate`: greedy output, end tokens, length, one exact law,
    its cache discipline and its host reads."""
    eager = eagerly(baseline)
    for name, model in (("tiny Llama", target), ("tiny GPT-2", gpt2)):
        for prompt in ([0], [2, 3, 4]):
            ids = check.call(eager, prompt, model, max_gen_len=8, eos_tokens_id=NO_EOS,
                             what=f"(greedy, {name}, prompt {prompt})")
            GREEDY_JUDGE(check, Greedy("baseline greedy output", ids, model, prompt,
                                       {"max_gen_len": 8, "eos_tokens_id": NO_EOS},
                                       said="gave {ids}; greedy decoding gives {expected}",
                                       case=f"{name}, prompt {prompt}"))
    free = check.call(eager, [5], target, max_gen_len=10, eos_tokens_id=NO_EOS,
                      what="(greedy, prompt [5]: the end tokens below are chosen from it)")
    if not (isinstance(free, list) and len(free) == 10 and all(type(t) is int for t in free)):
        free = [NO_EOS] * 10  # a wrong text: the end-token properties still hold the output to the right one
    for eos, length in ((free[3], 10), ([free[6], free[2]], 10), (NO_EOS, 7)):
        ids = check.call(eager, [5], target, max_gen_len=length, eos_tokens_id=eos,
                         what=f"(eos_tokens_id={eos}, max_gen_len={length})")
        GREEDY_JUDGE(check, Greedy("baseline end tokens and length", ids, target, [5],
                                   {"max_gen_len": length, "eos_tokens_id": eos},
                                   "stop right after the earliest end token, never past max_gen_len", SAID,
                                   case=f"eos_tokens_id={eos}, max_gen_len={length}"))
    log = []
    wrapped = LoggedModel(target, "target", log, check.observation)
    ids = check.call(eager, [2, 3], wrapped, max_gen_len=6, eos_tokens_id=NO_EOS,
                     what="(greedy, the model wrapped to record forwards)")
    with check.observing():
        judge_forwards(check, log, [2, 3] + list(ids), "fast_autoregressive_generate")
    check_baseline_reads(check, eager, target)
    case = AUTOREGRESSIVE_LAW
    check.seed_everything("baseline law", case.label)
    samples = [tuple(check.call(eager, case.prompt, target, **case.keywords, what=f"({case.label})"))
               for _ in range(case.draws * check.draws)]
    LAW_JUDGE(check, Samples(samples, target, case, LAW_HINT, f"baseline law of the first {case.max_gen_len} tokens",
                             per_token=False))


def check_baseline_reads(check, eager, target) -> None:
    """At most one host read per ``HOST_READ_EVERY`` tokens, and one for the output."""
    allowed = BASELINE_TOKENS // HOST_READ_EVERY + 1
    with HostSyncCounter(check.observation) as syncs:
        model = syncs.uncounted(target)
        syncs.count = 0
        check.call(eager, [2, 3], model, max_gen_len=BASELINE_TOKENS, eos_tokens_id=NO_EOS,
                   what=f"(greedy, max_gen_len={BASELINE_TOKENS}, host reads counted)")
    with check.observing():
        require_host_reads(check, f"baseline host reads, one per {HOST_READ_EVERY} tokens", syncs.count, allowed,
                           f"{BASELINE_TOKENS} tokens", BASELINE_SYNC_HINT)


def check_compiled(check, fast):
    """compile=True on the shipped pair: greedy output, and no new graph for a second call
    with another prompt length and other short final rounds. Only for a loop that passed
    the eager properties: compiling a broken loop costs minutes and can tell nothing new
    (the decider stops on the judged properties too; the runner, which never judges, on
    the others alone)."""
    check.stop_if_failed("compiled run on the shipped pair")
    if not shipped_pair_present():
        check.skip("the shipped pair", SHIPPED_MISSING)
        return
    target, drafter, tokenizer = load_pair(device="cpu")
    graphs = CompiledGraphs(check.observation)
    compiled_before = None
    for prompt_text, length in (("def read_config(path):\n", 24), ("import os\n\nclass ", 17)):
        prompt = tokenizer(prompt_text)["input_ids"]
        ids, _ = speculative.generated(check, fast, prompt, drafter, target, gamma=4, max_gen_len=length,
                                       logits_processor=GREEDY, compile=True,
                                       what=f"(the shipped pair, greedy, compile=True, max_gen_len={length})")
        SHIPPED_JUDGE(check, Shipped("compiled greedy output", f"shipped pair, max_gen_len={length}", ids, target,
                                     [prompt], length))
        if compiled_before is not None:
            new = graphs.count - compiled_before
            with check.observing():
                check.require("no recompile for another prompt or shorter last rounds", new == 0,
                              f"the second compiled call built {new} new graph(s)", RECOMPILE_HINT)
        compiled_before = graphs.count


class CompiledGraphs(observation.Observer):
    """How many graphs torch.compile has built in the process running the learner's code
    (``run``: the check's observation)."""

    def __init__(self, run: observation.Observation):
        super().__init__(run)
        self.restored = 0

    @property
    def count(self) -> int:
        if self.observation.mode == observation.REPLAY:
            return self.restored
        import torch._dynamo.utils

        return torch._dynamo.utils.counters["stats"]["unique_graphs"]

    def observed_state(self):
        return self.count

    def restore(self, state) -> None:
        self.restored = observation.count(state)
