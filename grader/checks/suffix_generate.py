"""Check `suffix_speculative_generate` (lesson 12), the loop drafted by suffix matches, on
the tiny target of the other loop checks with three corpora built here: the target's own
greedy text (its drafts are right), text sampled from the target at T = 1, and random
tokens (poor drafts), or none (the text's own index alone). Under greedy decoding: the
output is the target's greedy text (grader/checks/loop_properties.py's shared properties:
end tokens, ``max_gen_len`` inside a tree) and ``mean_accepted`` is the reference loop's
(it shows what the indexes held and how deep the trees grew); one target forward per
round (observed, against the reference loop's). Under sampling: the target's exact law of
the first tokens at T = 1, T = 0.6 and top-k, which children verified as samples of the
counts' distribution break. The reference loop's answers and the laws are the decider's
alone (grader/judges/suffix_generate.py)."""
import functools

import torch

from grader.checks import loop_properties as shared
from grader.checks.harness import CheckRun
from grader.observers.trace import LoggedModel
from grader.oracle import tiny
from solutions import sampling
from solutions.suffix import SuffixIndex

# the check's own judges (suffix_generate's, or fast_suffix_generate's when it grades that loop)
GREEDY_NUMBER: shared.Judge[shared.LoopRun] = shared.Judge("greedy_number")
FORWARDS: shared.Judge[shared.LoopRun] = shared.Judge("forwards")
CORPUS_TEXTS = 12  # texts of CORPUS_LENGTH tokens after a one-token prompt, for each built corpus
CORPUS_LENGTH = 20
GREEDY_RUNS = [  # (corpus, prompt, shape)
    ("greedy", [0], {"max_nodes": 4, "threshold": 0.1}),
    ("sampled", [2, 3, 4], {"max_nodes": 8, "threshold": 0.05}),
    ("random", [5, 1], {"max_nodes": 6, "threshold": 0.1}),
    (None, [1, 2, 3, 1, 2, 3], {"max_nodes": 6, "threshold": 0.1}),
]
SHAPE = {"max_nodes": 6, "threshold": 0.05}  # the end tokens', max_gen_len's and the forward count's runs


def law_case(number: int, processor: sampling.LogitsProcessor, corpus: str, prompt: list[int], shape: dict,
             length: int) -> shared.LawCase:
    """A law case drafted from the corpus ``corpus`` (a name of ``corpora``'s)."""
    return shared.LawCase(f"law-{number}", f"{processor!r}, {corpus} corpus, prompt {prompt}, {described(shape)}, "
                          f"max_gen_len={length}", 300, processor, prompt, length, shape=shape, drafter=corpus)


def described(shape: dict) -> str:
    return ", ".join(f"{key}={value}" for key, value in shape.items())


LAW_CASES = [
    law_case(1, sampling.MultinomialProcessor(temperature=1.0), "random", [0], {"max_nodes": 6, "threshold": 0.05}, 4),
    law_case(2, sampling.MultinomialProcessor(temperature=0.6), "sampled", [2, 3, 4, 5],
             {"max_nodes": 6, "threshold": 0.05}, 4),
    law_case(3, sampling.TopKProcessor(temperature=1.0, top_k=3), "sampled", [3], {"max_nodes": 8, "threshold": 0.02},
             5),
]
LAW_HINT = ("the output must follow the target's law: the nodes are chosen, not sampled, so verify a node's children "
            "as point masses, without replacement (walk_deterministic_tree, with verify_deterministic_children), from "
            "the root down; a node without children emits a token drawn from its p. Verifying them as samples of the "
            "counts' distribution is not exact")
NUMBER_HINT = ("mean_accepted is the number of accepted nodes over the number of rounds (one target forward "
               "each after the prefill), a Python float; 0.0 when no round ran")
MEAN = shared.Returns("mean_accepted", "mean_accepted", lambda keywords: keywords.get("max_nodes", 24), NUMBER_HINT)
SUFFIX_DEFAULTS = {"logits_processor": shared.GREEDY, "eos_tokens_id": shared.NO_EOS}  # greedy, no end token
GREEDY_HINT = ("under greedy decoding the output must be the target's own greedy text: ONE target forward over the "
               "last token and the tree's nodes, with the tree's mask and positions, scores every node as a plain "
               "forward over its own path would; row 0 is the root, row 1 + i node i.",
               "tree_layout(parents), then tree_attention(end, mask, depths, end − 1, dtype); "
               "walk_deterministic_tree(logits_processor(logits[0]), parents, nodes); after the walk keep the text "
               "and the accepted path in the target's cache (keep_positions: row x at position end − 1 + x)")
MAX_GEN_LEN_HINT = ("never return more than max_gen_len tokens: a round emits its accepted path and one token of "
                    "its own, so near the end its tree must be shallower.",
                    "round_tree(text, own, corpus, max_nodes, threshold, total_len − end): its last argument is "
                    "the tokens still allowed, and it caps the depth at that − 1")


def corpora(check: CheckRun, target) -> dict:
    """{name: SuffixIndex}: the target's greedy texts, texts it samples at T = 1 (from the
    check's seed), and random tokens, each after the prompts 0 … CORPUS_TEXTS − 1 (mod V)."""
    generator = check.generator("corpora")
    texts = {"greedy": [], "sampled": []}
    with torch.no_grad():
        for number in range(CORPUS_TEXTS):
            for name in texts:
                ids = [number % tiny.TINY_VOCAB]
                for _ in range(CORPUS_LENGTH):
                    logits = target(torch.tensor([ids])).logits[0, -1].double()
                    token = (logits.argmax() if name == "greedy"
                             else torch.multinomial(logits.softmax(-1), 1, generator=generator)[0])
                    ids.append(int(token))
                texts[name] += ids
    random_text = torch.randint(0, tiny.TINY_VOCAB, (CORPUS_TEXTS * (CORPUS_LENGTH + 1),), generator=generator)
    return {**{name: SuffixIndex(text) for name, text in texts.items()}, "random": SuffixIndex(random_text.tolist()),
            None: None}


def run(check: CheckRun) -> None:
    graded(check, "suffix_speculative_generate")


def graded(check: CheckRun, name: str, greedy_hint: tuple[str, str] = GREEDY_HINT, observed=None,
           **extra) -> None:
    """Every property above for the learner's loop ``name`` (``extra``: keyword arguments of
    every call, e.g. lesson 12's fast loop's ``compile=False``; ``greedy_hint``: what a wrong
    greedy text points to in that loop); the judges are the check's own (``greedy_number`` and
    ``forwards``, each against its reference loop). ``observed(check, generate, target,
    indexes)``, if given, records that loop's own deterministic properties after the shared
    ones, before the forward count (``generate``: the learner's loop with ``extra``;
    ``indexes``: ``corpora``'s)."""
    learner = check.function(name)
    generate = functools.update_wrapper(functools.partial(learner, **extra), learner)  # named as the learner's
    target, _ = shared.models()
    indexes = corpora(check, target)
    for corpus, prompt, shape in GREEDY_RUNS:
        label = f"{corpus or 'no'} corpus, prompt {prompt}, " + described(shape)
        ids, number = generated(check, generate, prompt, target, indexes[corpus], **shape,
                                max_gen_len=shared.GREEDY_LENGTH, what=f"(greedy, {label})")
        shared.GREEDY_JUDGE(check, shared.Greedy("greedy output", ids, target, prompt,
                                                 {"max_gen_len": shared.GREEDY_LENGTH, "eos_tokens_id": shared.NO_EOS},
                                                 greedy_hint, case=label))
        GREEDY_NUMBER(check, shared.LoopRun(label, prompt, target, indexes[corpus], shape, number=number))
    loop = as_loop(check, generate, indexes, greedy_hint)
    shared.check_end_tokens(check, loop, target)
    shared.check_max_gen_len(check, loop, target, indexes["sampled"])
    if observed is not None:
        observed(check, generate, target, indexes)
    check.stop_if_failed("forward counts and law tests")
    with check.observing():
        log = []
        generated(check, generate, [2, 3], LoggedModel(target, "target", log, check.observation), indexes["sampled"],
                  **SHAPE, max_gen_len=shared.GREEDY_LENGTH, what="(greedy, the target wrapped to record each forward)")
        FORWARDS(check, shared.LoopRun("", [2, 3], target, indexes["sampled"], SHAPE,
                                       forwards=[(c.fed, c.cached) for c in log]))
    for case in LAW_CASES:
        shared.check_law(check, loop, target, indexes, case, LAW_HINT)


def generated(check: CheckRun, generate, prompt, target, corpus, what: str, **kwargs) -> tuple[list[int], float]:
    """The learner's ``(ids, mean_accepted)``, greedy with no end token unless told otherwise."""
    return shared.generated(check, generate, list(prompt), target, corpus, what=what, returns=MEAN,
                            defaults=SUFFIX_DEFAULTS, **kwargs)


def as_loop(check: CheckRun, generate, indexes: dict, greedy_hint: tuple[str, str]) -> shared.Loop:
    """The suffix loop for the shared end-token and max_gen_len properties: where they pass the
    target as the drafter (every draft accepted), the corpus of its own greedy text stands in."""
    def call(prompt, drafter, target, what: str, **kwargs):
        corpus = indexes["greedy"] if drafter is target else drafter
        return generated(check, generate, prompt, target, corpus, what=what, **kwargs)

    return shared.Loop(
        call=call, shape=SHAPE, depth=SHAPE["max_nodes"], first_drafted=1, all_accepted=functools.partial(float),
        drafted="a tree's path", accepts_every="level", returns="mean_accepted", greedy_hint=greedy_hint,
        same_model_hint="", end_tokens_hint="look for end tokens among all the tokens a round emits (the accepted "
                                            "path and the last token), stop right after the earliest one and "
                                            "include it", max_gen_len_hint=MAX_GEN_LEN_HINT)
