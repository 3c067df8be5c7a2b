"""Check `eagle_generate`, the chain loop drafted by a feature head (lesson 11), on the tiny
target and a tiny head: greedy output equal to the target's own greedy decoding, with the
same acceptance rate as the reference loop (what the head reads decides which drafts
survive: features one position late, or a head cache that keeps its drafting steps, change
it); end tokens and ``max_gen_len``; one target forward per round; then the target's exact
law of the first tokens under sampling (grader/judges/loop_properties.py). The reference
loop's answers are the decider's alone (grader/judges/eagle_generate.py). The tree loop's
check (grader/checks/eagle_tree_generate.py) runs the same properties through ``run_loop``."""
from dataclasses import dataclass

import torch

from grader.checks.harness import ERROR, CheckRun, Stop
from grader.checks.loop_properties import GREEDY, GREEDY_LENGTH, MODEL_SEED, NO_EOS, ids_and_number
from grader.oracle import tiny
from grader.observers.head_feeds import HeadFeeds
from grader.observers.round_watch import RoundWatch
from grader.observers.trace import LoggedModel
from grader.verdict import Hint
from solutions import sampling
from solutions.eagle import FeatureHead

HEAD_STEPS = 40


@dataclass(frozen=True)
class EagleLoop:
    """One of lesson 11's loops as ``run_loop`` checks it: ``name`` the function graded,
    called ``(prompt, target, head, **shape, ...)``; ``greedy_runs`` its ``(prompt, shape)``
    under greedy decoding, ``shape`` the runs of the end tokens, ``max_gen_len`` and the
    forward count; ``law_cases`` ``(processor, prompt, shape, max_gen_len, draws)``;
    ``returns`` (the property, the returned field) of its number, at most ``upper``."""
    name: str
    greedy_runs: list
    shape: dict
    law_cases: list
    returns: tuple[str, str]
    upper: float
    number_hint: str
    greedy_hint: Hint
    rate_hint: Hint
    max_gen_len_hint: str
    law_hint: str


CHAIN = EagleLoop(
    "eagle_generate",
    greedy_runs=[([0], {"gamma": 1}), ([2, 3, 4], {"gamma": 3}), ([5, 1], {"gamma": 5})],
    shape={"gamma": 4},
    law_cases=[
        (sampling.MultinomialProcessor(temperature=1.0), [0], {"gamma": 2}, 4, 300),
        (sampling.MultinomialProcessor(temperature=0.6), [2, 3, 4, 5], {"gamma": 3}, 4, 300),
        (sampling.TopKProcessor(temperature=1.0, top_k=3), [3], {"gamma": 4}, 5, 300),
    ],
    returns=("acceptance rate", "acceptance_rate"), upper=1,
    number_hint="accepted drafts / drafted tokens over the call, a Python float; 0.0 when nothing was drafted",
    greedy_hint=("under greedy decoding the output must be the target's own greedy text: the target's "
                 "forward over the last token and the k drafts verifies them all, row i for draft i.",
                 "p = logits_processor(target logits of that forward), [k + 1, V]; roll the target's "
                 "cache back to the new length minus one after each round, as in lesson 4"),
    rate_hint=("under greedy decoding the drafts, and so the rate, are fixed by what the head reads: "
               "every pair (f_t, x_(t+1)) with the target's own feature f_t, once, before the round's "
               "first draft; then its own predicted feature with each draft.",
               "after the verification keep the target's features of the accepted positions (its "
               "forward's first n + 1 rows, for positions end − 1 … end + n − 1), and crop the head's "
               "cache back to the pairs built on true features: its drafting steps used predicted ones."),
    max_gen_len_hint="draft only min(gamma, tokens left − 1) tokens, so that the round's own token still fits",
    law_hint="the output must follow the target's law: the drafts are samples of q = logits_processor(head "
             "logits), verified with lesson 2's speculative_sampling against p from the same processor",
)


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
    run_loop(check, CHAIN)


def run_loop(check: CheckRun, loop: EagleLoop) -> None:
    generate = check.function(loop.name)
    target, head = models()
    for prompt, shape in loop.greedy_runs:
        label, observed = f"greedy, prompt {prompt}, {described(shape)}", HeadFeeds(check.observation)
        log, rounds = [], RoundWatch(check.observation)  # the target's forwards; the processor's inputs
        logged = LoggedModel(target, "target", log, check.observation)
        watching = observed.watch(head)
        try:
            with rounds.watching_call(target, head):
                ids, number = generated(check, loop, generate, prompt, logged, head, **shape,
                                        max_gen_len=GREEDY_LENGTH, logits_processor=rounds.processor(GREEDY),
                                        what=f"({label})")
        except Stop as stop:  # a crash or a stopped loop: say what was seen before it
            if stop.status == ERROR:
                with check.observing():
                    check.judge("eagle_generate.crashed", loop.name, observed.feeds, stop.summary, label, prompt,
                                forwards_of(log), rounds.entries)
            raise
        finally:
            watching.remove()
        with check.observing():
            check.judge("eagle_generate.q_rows", rounds.entries, label)
        # judged as values; what was seen of the rounds only words the message of a failure
        check.judge("eagle_generate.greedy_run", loop.name, prompt, shape, ids, number, loop.returns[0], target,
                    head, loop.greedy_hint, loop.rate_hint, forwards_of(log), rounds.entries)
    check_end_tokens(check, loop, generate, target, head)
    for length in (1, 2, 4, 7):
        ids, _ = generated(check, loop, generate, [1, 2], target, head, **loop.shape, max_gen_len=length,
                           what=f"(greedy, max_gen_len={length}, {described(loop.shape)})")
        check.judge("eagle_generate.length_run", loop.name, length, ids, target, [1, 2], loop.max_gen_len_hint)
    check.stop_if_failed("forward counts and law tests")
    with check.observing():
        check_forwards(check, loop, generate, target, head)
    stalls = RoundWatch(check.observation)  # a sampled run that stops advancing ends in seconds
    for processor, prompt, shape, length, draws in loop.law_cases:
        label = f"{processor!r}, prompt {prompt}, {described(shape)}, max_gen_len={length}"
        check.seed_everything("law", label)
        try:
            with stalls.stall_guard(target, head):
                samples = [tuple(generated(check, loop, generate, prompt, target, head, **shape, max_gen_len=length,
                                           logits_processor=processor, eos_tokens_id=1, what=f"({label})")[0])
                           for _ in range(draws * check.draws)]
        except Stop as stop:
            if stop.status == ERROR:
                with check.observing():
                    check.judge("eagle_generate.crashed", loop.name, [], stop.summary, label, prompt, [],
                                stalls.entries)
            raise
        check.judge("loop_properties.law_tests", samples, target, prompt, length, processor, 1, label,
                    loop.law_hint)


def forwards_of(log: list) -> list[tuple]:
    """(fed, cached, positions, ids) of each logged forward, as the judges take them."""
    return [(c.fed, c.cached, c.positions, c.ids) for c in log]


def described(shape: dict) -> str:
    return ", ".join(f"{key}={value}" for key, value in shape.items())


def generated(check: CheckRun, loop: EagleLoop, generate, prompt, target, head, what: str,
              **kwargs) -> tuple[list[int], float]:
    """The learner's (ids, number), greedy with no end token unless told otherwise."""
    kwargs.setdefault("logits_processor", GREEDY)
    kwargs.setdefault("eos_tokens_id", NO_EOS)
    return ids_and_number(check, check.call(generate, prompt, target, head, what=what, **kwargs), what,
                          loop.returns, loop.upper, loop.number_hint)


def check_end_tokens(check: CheckRun, loop: EagleLoop, generate, target, head) -> None:
    """End tokens chosen from the loop's own greedy text: the third token alone, then a
    list with the sixth and the third (the earlier must win)."""
    free, _ = generated(check, loop, generate, [4], target, head, **loop.shape, max_gen_len=GREEDY_LENGTH,
                        what="(greedy, no end token: the end tokens below are chosen from it)")
    third, sixth = (free[2], free[5]) if len(free) >= 6 else (NO_EOS, NO_EOS)
    for eos, prop in ((third, "end token (int)"), ([sixth, third], "end tokens (list): the earliest wins")):
        ids, _ = generated(check, loop, generate, [4], target, head, **loop.shape, max_gen_len=GREEDY_LENGTH,
                           eos_tokens_id=eos, what=f"(eos_tokens_id={eos})")
        check.judge("loop_properties.greedy", prop, ids, target, [4],
                    "look for end tokens among all the tokens a round emits, stop right after the "
                    "earliest one and include it", f"with eos_tokens_id={eos} gave {{ids}}; expected {{expected}}",
                    max_gen_len=GREEDY_LENGTH, eos_tokens_id=eos)


def check_forwards(check: CheckRun, loop: EagleLoop, generate, target, head) -> None:
    """One target forward per round: the prompt, then the last token and the round's drafts."""
    log = []
    generated(check, loop, generate, [2, 3], LoggedModel(target, "target", log, check.observation), head,
              **loop.shape, max_gen_len=GREEDY_LENGTH, what="(greedy, the target wrapped to record each forward)")
    check.judge("eagle_generate.forwards", loop.name, [(c.fed, c.cached) for c in log], [2, 3], target, head,
                loop.shape)
