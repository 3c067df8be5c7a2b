"""Check `eagle_generate`, the chain loop drafted by a feature head (lesson 11), on the tiny
target and a tiny head: greedy output equal to the target's own greedy decoding, with the
same acceptance rate as the reference loop (what the head reads decides which drafts
survive: features one position late, or a head cache that keeps its drafting steps, change
it); end tokens and ``max_gen_len``; one target forward per round; then the target's exact
law of the first tokens under sampling (grader/judges/loop_properties.py). The reference
loop's answers are the decider's alone (grader/judges/eagle_generate.py). The tree loop's
check (grader/checks/eagle_tree_generate.py) runs the same properties through ``run_loop``."""
import torch

from grader.checks import loop_properties as suite
from grader.checks.harness import ERROR, CheckRun, Stop
from grader.checks.loop_properties import (
    GREEDY,
    GREEDY_JUDGE,
    GREEDY_LENGTH,
    LAW_JUDGE,
    MODEL_SEED,
    NO_EOS,
    SAID,
    Greedy,
    Judge,
    LawCase,
    Loop,
    LoopRun,
    Returns,
    Samples,
)
from grader.observers.head_feeds import HeadFeeds
from grader.observers.round_watch import RoundWatch
from grader.observers.trace import LoggedModel
from grader.oracle import tiny
from solutions import sampling
from solutions.eagle import FeatureHead

HEAD_STEPS = 40
CRASHED: Judge[LoopRun] = Judge("eagle_generate.crashed")
Q_ROWS: Judge[LoopRun] = Judge("eagle_generate.q_rows")
GREEDY_RUN: Judge[LoopRun] = Judge("eagle_generate.greedy_run")
LENGTH_RUN: Judge[LoopRun] = Judge("eagle_generate.length_run")
FORWARDS: Judge[LoopRun] = Judge("eagle_generate.forwards")
EAGLE_DEFAULTS = {"logits_processor": GREEDY, "eos_tokens_id": NO_EOS}  # greedy, no end token, unless told


def law_case(number: int, processor: sampling.LogitsProcessor, prompt: list[int], shape: dict,
             length: int) -> LawCase:
    """A law case of lesson 11's loops: 300 runs, ended by the tiny models' eos (1)."""
    return LawCase(f"law-{number}", f"{processor!r}, prompt {prompt}, {described(shape)}, max_gen_len={length}",
                   300, processor, prompt, length, eos=1, shape=shape)


def described(shape: dict) -> str:
    return ", ".join(f"{key}={value}" for key, value in shape.items())


GREEDY_RUNS = [([0], {"gamma": 1}), ([2, 3, 4], {"gamma": 3}), ([5, 1], {"gamma": 5})]
LAW_CASES = [
    law_case(1, sampling.MultinomialProcessor(temperature=1.0), [0], {"gamma": 2}, 4),
    law_case(2, sampling.MultinomialProcessor(temperature=0.6), [2, 3, 4, 5], {"gamma": 3}, 4),
    law_case(3, sampling.TopKProcessor(temperature=1.0, top_k=3), [3], {"gamma": 4}, 5),
]
END_TOKENS_HINT = ("look for end tokens among all the tokens a round emits, stop right after the earliest one and "
                   "include it")


def as_loop(check: CheckRun, generate) -> Loop:
    """The chain loop: ``generate(prompt, target, head, gamma=...)``, its number the acceptance rate."""
    return eagle_loop(check, generate, "eagle_generate", {"gamma": 4}, 4, Returns(
        "acceptance rate", "acceptance_rate", lambda keywords: 1,
        "accepted drafts / drafted tokens over the call, a Python float; 0.0 when nothing was drafted"),
        greedy_hint=("under greedy decoding the output must be the target's own greedy text: the target's "
                     "forward over the last token and the k drafts verifies them all, row i for draft i.",
                     "p = logits_processor(target logits of that forward), [k + 1, V]; roll the target's "
                     "cache back to the new length minus one after each round, as in lesson 4"),
        number_hint=("under greedy decoding the drafts, and so the rate, are fixed by what the head reads: "
                     "every pair (f_t, x_(t+1)) with the target's own feature f_t, once, before the round's "
                     "first draft; then its own predicted feature with each draft.",
                     "after the verification keep the target's features of the accepted positions (its "
                     "forward's first n + 1 rows, for positions end − 1 … end + n − 1), and crop the head's "
                     "cache back to the pairs built on true features: its drafting steps used predicted ones."),
        max_gen_len_hint="draft only min(gamma, tokens left − 1) tokens, so that the round's own token still fits",
        law_hint="the output must follow the target's law: the drafts are samples of q = logits_processor(head "
                 "logits), verified with lesson 2's speculative_sampling against p from the same processor")


def eagle_loop(check: CheckRun, generate, name: str, shape: dict, depth: int, returns: Returns, **hints) -> Loop:
    """One of lesson 11's loops, called ``(prompt, target, head, **shape, ...)``, as the suite
    calls a loop: the head is its drafter; a round of ``shape`` drafts at most ``depth`` tokens."""
    def call(prompt, head, target, what: str, **kwargs):
        return suite.generated(check, generate, prompt, target, head, what=what, returns=returns,
                               defaults=EAGLE_DEFAULTS, **kwargs)

    return Loop(call=call, shape=shape, depth=depth, first_drafted=1, all_accepted=lambda length: 1.0,
                drafted="a draft", accepts_every="draft", returns=returns.prop, same_model_hint="",
                end_tokens_hint=END_TOKENS_HINT, name=name, **hints)


def models():
    """(target, head): the two-layer tiny Llama of the other loop checks and a one-layer
    feature head for it, trained for a few steps to imitate it (float64): under greedy
    decoding it drafts right about half the time, so what it reads shows in the rate."""
    target, _ = tiny.tiny_pair(MODEL_SEED)
    head = FeatureHead(target)
    generator = torch.Generator().manual_seed(MODEL_SEED)
    with torch.no_grad():  # its matrices drawn afresh from the check's seed (vectors are norms' ones)
        for param in head.own_parameters():
            if param.dim() >= 2:
                param.copy_(torch.randn(param.shape, generator=generator, dtype=param.dtype) / param.shape[-1] ** 0.5)
    optimiser = torch.optim.Adam(head.own_parameters(), lr=1e-2)
    for _ in range(HEAD_STEPS):
        ids = torch.randint(0, tiny.TINY_VOCAB, (8, 12), generator=generator)
        with torch.no_grad():
            out = target(ids, output_hidden_states=True)
        features, p = out.hidden_states[-1], out.logits[:, 1:].softmax(-1)
        predicted, _ = head_forward(head, features[:, :-1], ids[:, 1:])
        loss = -(p * head.lm_head(predicted).log_softmax(-1)).sum(-1).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return target, head.eval().requires_grad_(False)


def head_forward(head, features, tokens, cache=None) -> tuple[torch.Tensor, torch.Tensor]:
    """``(predicted features, logits)`` of the head over the pairs ``(features[:, t],
    tokens[:, t])``: feature_draft_step's forward, written out, since the reference's is
    withheld while a loop that calls it is graded."""
    pairs = torch.cat([features, head.embed(tokens)], -1)
    predicted = head.decoder(inputs_embeds=head.fc(pairs), cache=cache, use_cache=cache is not None).last_hidden_state
    return predicted, head.lm_head(predicted)


def run(check: CheckRun) -> None:
    run_loop(check, as_loop(check, check.function("eagle_generate")), GREEDY_RUNS, LAW_CASES)


def run_loop(check: CheckRun, loop: Loop, greedy_runs: list, law_cases: list[LawCase]) -> None:
    """Every property of one of lesson 11's loops: the greedy runs ``(prompt, shape)``, end
    tokens, ``max_gen_len``, one target forward per round, then ``law_cases``."""
    target, head = models()
    for prompt, shape in greedy_runs:
        check_greedy(check, loop, target, head, prompt, shape)
    check_end_tokens(check, loop, target, head)
    for length in (1, 2, 4, 7):
        ids, _ = loop.call([1, 2], head, target, **loop.shape, max_gen_len=length,
                           what=f"(greedy, max_gen_len={length}, {described(loop.shape)})")
        LENGTH_RUN(check, LoopRun("", [1, 2], target, ids=ids, max_gen_len=length, hint=loop.max_gen_len_hint,
                                  loop=loop.name))
    check.stop_if_failed("forward counts and law tests")
    with check.observing():
        check_forwards(check, loop, target, head)
    stalls = RoundWatch(check.observation)  # a sampled run that stops advancing ends in seconds
    for case in law_cases:
        check.seed_everything("law", case.label)
        try:
            with stalls.stall_guard(target, head):
                samples = [tuple(loop.call(case.prompt, head, target, **case.keywords,
                                           what=f"({case.label})")[0])
                           for _ in range(case.draws * check.draws)]
        except Stop as stop:
            if stop.status == ERROR:
                with check.observing():
                    CRASHED(check, LoopRun(case.label, case.prompt, target, raised=stop.summary,
                                           events=stalls.entries, loop=loop.name))
            raise
        LAW_JUDGE(check, Samples(samples, target, case, loop.law_hint))


def check_greedy(check: CheckRun, loop: Loop, target, head, prompt: list[int], shape: dict) -> None:
    """One greedy run: its output and number against the reference loop's, with what was
    seen of its rounds (the target's forwards, the processor's inputs, the head's feeds)."""
    label, observed = f"greedy, prompt {prompt}, {described(shape)}", HeadFeeds(check.observation)
    log, rounds = [], RoundWatch(check.observation)  # the target's forwards; the processor's inputs
    logged = LoggedModel(target, "target", log, check.observation)
    watching = observed.watch(head)
    try:
        with rounds.watching_call(target, head):
            ids, number = loop.call(prompt, head, logged, **shape, max_gen_len=GREEDY_LENGTH,
                                    logits_processor=rounds.processor(GREEDY), what=f"({label})")
    except Stop as stop:  # a crash or a stopped loop: say what was seen before it
        if stop.status == ERROR:
            with check.observing():
                CRASHED(check, LoopRun(label, prompt, target, raised=stop.summary, forwards=forwards_of(log),
                                       events=rounds.entries, feeds=observed.feeds, loop=loop.name))
        raise
    finally:
        watching.remove()
    with check.observing():
        Q_ROWS(check, LoopRun(label, prompt, target, events=rounds.entries))
    # judged as values; what was seen of the rounds only words the message of a failure
    GREEDY_RUN(check, LoopRun(label, prompt, target, head, shape, ids=ids, number=number, returns=loop.returns,
                              forwards=forwards_of(log), events=rounds.entries, hint=loop.greedy_hint,
                              number_hint=loop.number_hint, loop=loop.name))


def forwards_of(log: list) -> list[tuple]:
    """(fed, cached, positions, ids) of each logged forward, as the judges take them."""
    return [(c.fed, c.cached, c.positions, c.ids) for c in log]


def check_end_tokens(check: CheckRun, loop: Loop, target, head) -> None:
    """End tokens chosen from the loop's own greedy text: the third token alone, then a
    list with the sixth and the third (the earlier must win)."""
    free, _ = loop.call([4], head, target, **loop.shape, max_gen_len=GREEDY_LENGTH,
                        what="(greedy, no end token: the end tokens below are chosen from it)")
    third, sixth = (free[2], free[5]) if len(free) >= 6 else (NO_EOS, NO_EOS)
    for eos, prop in ((third, "end token (int)"), ([sixth, third], "end tokens (list): the earliest wins")):
        ids, _ = loop.call([4], head, target, **loop.shape, max_gen_len=GREEDY_LENGTH, eos_tokens_id=eos,
                           what=f"(eos_tokens_id={eos})")
        GREEDY_JUDGE(check, Greedy(prop, ids, target, [4], {"max_gen_len": GREEDY_LENGTH, "eos_tokens_id": eos},
                                   loop.end_tokens_hint, f"with eos_tokens_id={eos} {SAID}"))


def check_forwards(check: CheckRun, loop: Loop, target, head) -> None:
    """One target forward per round: the prompt, then the last token and the round's drafts."""
    log = []
    loop.call([2, 3], head, LoggedModel(target, "target", log, check.observation), **loop.shape,
              max_gen_len=GREEDY_LENGTH, what="(greedy, the target wrapped to record each forward)")
    FORWARDS(check, LoopRun("", [2, 3], target, head, loop.shape, forwards=[(c.fed, c.cached) for c in log],
                            loop=loop.name))
