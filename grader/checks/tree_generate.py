"""Check `tree_speculative_generate` (lesson 9).

Deterministic properties under greedy decoding, where the output must equal target-only
greedy decoding token for token: several branchings, drafters and prompts, with and
without the cache; a drafter identical to the target (every level accepted, so
``mean_accepted`` is known); end tokens accepted in the middle of a tree's path;
``max_gen_len`` reached inside a tree; the shipped pair; the cache discipline forward by
forward (only the accepted path stays in either cache). Statistical properties under
sampling, against exact laws computed by enumeration through the tiny models: the law of
the first L tokens (the target's alone), the joint law of the output and
``mean_accepted`` (grader/oracle/tree_laws.py: the walk's multi-draft verification, level by
level), the law of ``mean_accepted``, and the law of the root's first two children, read
from the target's forward (i.i.d. draws of q). From the same runs: one target forward per
round, scoring the whole tree, and ``mean_accepted`` = accepted / target forwards. The
reference loop's forwards and the exact laws are the decider's alone
(grader/judges/tree_generate.py).
"""
import functools

from grader.checks import kv_cache
from grader.checks import loop_properties as shared
from grader.checks.harness import CheckRun
from grader.observers.trace import LoggedModel
from solutions import sampling
from solutions.autoregressive import as_list
from solutions.trees import tree_parents

GREEDY_RUNS = [(prompt, {"branching": branching, "use_cache": use_cache})
               for branching, prompt in (((2,), [0]), ((2, 2), [2, 3, 4]), ((3, 1), [5, 1]), ((2, 2, 1), [1, 2]))
               for use_cache in (False, True)]
RULES = ("each model's cache must hold exactly the text it has seen and the path it accepted: the "
         "rejected branches sit between the path's nodes, so cutting the cache's end cannot remove them.",
         "one cache per model for the whole call; feed each model only the tokens its cache lacks; after "
         "a round keep, in both caches, the old text and the accepted path only, the new last token "
         "being fed next round.",
         "one DynamicCache per model before the loop; gather the kept positions with keep_positions")
DISCIPLINE: shared.Judge[shared.LoopRun] = shared.Judge("tree_generate.discipline")
LAWS: shared.Judge[shared.LoopRun] = shared.Judge("tree_generate.laws")
MEAN_HINT = ("mean_accepted is the number of accepted nodes over the number of rounds (one "
             "target forward each): a round accepts the nodes of the path it walked, not the "
             "round's emitted token")
MEAN = shared.Returns("mean_accepted", "mean_accepted", lambda keywords: len(keywords.get("branching", (2, 2, 1))),
                      MEAN_HINT)  # at most the tree's depth
MAX_GEN_LEN_HINT = ("never return more than max_gen_len tokens: a round emits its accepted path and one "
                    "token of its own, so near the end its tree must be shallower.",
                    "a round's tree has depth min(len(branching), tokens left − 1)")


def law_case(id: str, processor: sampling.LogitsProcessor, prompt: list[int], branching: tuple[int, ...],
             drafter: str, length: int, draws: int, eos=1, use_cache=False) -> shared.LawCase:
    """One sampled setting of the loop whose laws are known exactly (``length``: its ``max_gen_len``)."""
    label = (f"{processor!r}, prompt {prompt}, branching={branching}, {drafter} drafter, max_gen_len={length}, "
             f"eos_tokens_id={eos}, use_cache={use_cache}")
    return shared.LawCase(id, label, draws, processor, prompt, length, eos,
                          {"branching": branching, "use_cache": use_cache}, drafter)


def first_tree(case: shared.LawCase) -> int:
    """Nodes in the first round's tree: its depth is ``min(len(branching), max_gen_len − 1)``."""
    branching = case.shape["branching"]
    return len(tree_parents(branching[: min(len(branching), case.max_gen_len - 1)]))


LAW_CASES = [
    law_case("law-1", sampling.MultinomialProcessor(temperature=1.0), [0], (2,), "near", 3, 200),
    law_case("law-2", sampling.MultinomialProcessor(temperature=0.8), [2, 3], (2, 2), "GPT-2", 4, 200,
             eos=shared.NO_EOS, use_cache=True),
    law_case("law-3", sampling.TopKProcessor(temperature=1.0, top_k=4), [4, 4], (3, 1), "near", 4, 200,
             use_cache=True),
    law_case("law-4", sampling.MultinomialProcessor(temperature=1.0), [5], (2, 2, 1), "near", 4, 200,
             eos=shared.NO_EOS),
]


def run(check: CheckRun) -> None:
    generate = check.function("tree_speculative_generate")
    target, drafters = shared.models()
    shared.check_greedy_properties(check, as_loop(check, generate), target, drafters, GREEDY_RUNS)
    for name, prompt, branching in (("near", [2, 3], (2, 2, 1)), ("GPT-2", [0], (3, 1))):
        kv_cache.check_discipline(
            check, generate, target, drafters[name], prompt,
            dict(branching=branching, logits_processor=shared.GREEDY, max_gen_len=12,
                 eos_tokens_id=shared.NO_EOS, use_cache=True),
            f"{name} drafter, prompt {prompt}, branching={branching}",
            returned=generated, judge=DISCIPLINE, rules=RULES)
    check_shipped_pair(check, generate)
    for case in LAW_CASES:
        check_law(check, generate, target, drafters, case)


def generated(check: CheckRun, generate, *args, what: str, **kwargs) -> tuple[list[int], float]:
    """The learner's ``(ids, mean_accepted)``, after checking their types (mean_accepted at
    most the tree's depth). Greedy unless told otherwise, with the reference's processor
    (not the learner's default)."""
    return shared.generated(check, generate, *args, what=what, returns=MEAN, defaults=shared.GREEDILY, **kwargs)


def full_depth_mean(length: int, depth: int) -> float:
    """mean_accepted when every level of every tree is accepted (no end token)."""
    end, rounds, accepted = 0, 0, 0
    while end < length:
        k = min(depth, length - end - 1)
        rounds, accepted, end = rounds + 1, accepted + k, end + k + 1
    return accepted / rounds


def as_loop(check: CheckRun, generate) -> shared.Loop:
    """The tree loop for the shared greedy properties, with branching (2, 2, 1)."""
    return shared.Loop(
        call=functools.partial(generated, check, generate), shape={"branching": (2, 2, 1)}, depth=3,
        first_drafted=0, all_accepted=lambda length: full_depth_mean(length, 3),
        drafted="a tree's path", accepts_every="level", returns="mean_accepted",
        greedy_hint=("walk from the root into the child equal to the target's argmax and stop at the "
                     "first level where no child is: the levels after a stop (still computed, from a "
                     "placeholder node) must add nothing, to the count or to the output; end the "
                     "round with the target's own token, drawn from p of the last accepted node (row 1 + "
                     "its index; after the deepest level too, not the root's row 0 or its parent's).",
                     "score every node in one target forward whose mask lets a node see the text and "
                     "its ancestors only, at the position of its depth; with the cache, keep only the "
                     "text and the accepted path in both caches"),
        same_model_hint="with p == q, min(1, p/q) = 1: the first child is always accepted; count the "
                        "accepted nodes of each round and divide by the number of rounds",
        end_tokens_hint="look for end tokens among all the tokens a round emits (the accepted path "
                        "and the last token), stop right after the earliest one and include it",
        max_gen_len_hint=MAX_GEN_LEN_HINT)


def check_shipped_pair(check, generate):
    shared.check_shipped_greedy(check, "greedy output", "shipped pair", ["def read_config(path):\n"], 16,
                                lambda prompt, drafter, target: generated(
                                    check, generate, prompt, drafter, target, max_gen_len=16, use_cache=True,
                                    what="(the shipped pair, greedy, branching=(2, 2, 1))")[0])


def check_law(check, generate, target, drafters, case: shared.LawCase):
    label = case.label
    drafter = drafters[case.drafter]
    check.seed_everything("law", label)
    samples, first_trees, identity = [], [], []
    for _ in range(case.draws * check.draws):
        log = []
        wrapped = LoggedModel(target, "target", log, check.observation)
        ids, mean = generated(check, generate, case.prompt, drafter, wrapped, **case.keywords,
                              what=f"({label})")
        samples.append((tuple(ids), mean))
        first_trees.append(log[0].ids if log else [])
        if not set(ids) & set(as_list(case.eos)):  # no end token cut a round short
            identity.append((len(ids), len(log), mean))
    wrong = [(n, forwards, mean) for n, forwards, mean in identity
             if abs(n - forwards * (1 + mean)) > 1e-6]
    with check.observing():  # the first tree and the forward count, as the wrapper logged them
        whole_tree(check, case, first_trees)
        check.require("mean_accepted = accepted nodes / target forwards", not wrong,
                      f"(tokens, target forwards, mean_accepted) were {wrong[:3]} in {len(wrong)} runs: "
                      "a run without end tokens emits one token more than it accepts per round, so "
                      "tokens = forwards · (1 + mean_accepted)", MEAN_HINT + "; and run one target "
                      "forward per round, none before the first", case=label)
    LAWS(check, shared.LoopRun(label, case.prompt, target, drafter, ids=samples, forwards=first_trees,
                               number_hint=MEAN_HINT, case=case))


def whole_tree(check, case, first_trees):
    """The first target forward feeds the prompt and the whole first tree (level order)."""
    size = len(case.prompt) + first_tree(case)
    wrong = [ids for ids in first_trees if len(ids) != size or ids[: len(case.prompt)] != case.prompt]
    prop = "one target forward scores the whole tree"
    if wrong:  # the siblings are read from that forward
        check.fail(prop, f"the first target forward was fed {wrong[0]} in {len(wrong)} of "
                   f"{len(first_trees)} runs; expected the prompt {case.prompt} then the "
                   f"{first_tree(case)} nodes of the first tree",
                   "draft the whole tree first (level by level), then score the root and every node "
                   "in ONE target forward over the text and the nodes, in level order", case=case.label)
    check.require(prop, True, "", case=case.label)
