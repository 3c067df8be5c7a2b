"""`grader bench --trees`: lesson 9's token trees against chains of as many drafts.

For each tree shape (``branching``) the tree loop runs twice on the bench's prompts: with
the tree, and with a chain of the same number ``N`` of drafted nodes (``branching`` of N
ones, the same loop, so the two differ only in the tree's shape). A tree spends its
drafts on alternatives, a chain on depth: with the same nodes the tree reaches less deep
but loses less at a rejection, and drafts its N nodes in ``len(branching)`` drafter
forwards where the chain needs N. Tokens per target call are counted from the target's
forwards in one untimed pass over the prompts; speeds are medians of interleaved timed
repetitions, against autoregressive decoding timed in the same repetitions.
"""
import statistics
from typing import NamedTuple

from tqdm import tqdm

from grader.bench import speedup
from grader.bench.results import ChainRow, TreeRow
from grader.observers.recording import RecordingModel
from solutions.trees import tree_parents

SHAPES = ((2,), (2, 2), (3, 1), (2, 2, 1), (4, 2, 1))


def chain(nodes: int) -> tuple[int, ...]:
    return (1,) * nodes


def nodes(branching: tuple[int, ...]) -> int:
    """Drafted nodes of a full tree: b_0 + b_0 b_1 + …"""
    return len(tree_parents(branching))


def loop(setup: speedup.Setup, tree_generate, branching: tuple[int, ...], target=None):
    """A function of one prompt: the tree loop with ``branching``, returning its output."""
    def run(prompt):
        return tree_generate(prompt, setup.drafter, target or setup.target, branching=branching,
                             logits_processor=setup.processor, max_gen_len=setup.new_tokens,
                             eos_tokens_id=speedup.NO_EOS, use_cache=True)
    return run


class Counted(NamedTuple):
    tokens_per_target_call: float
    mean_accepted: float  # accepted nodes per round


def counted(setup: speedup.Setup, tree_generate, branching: tuple[int, ...]) -> Counted:
    """Tokens per target call and mean accepted nodes per round, over every prompt."""
    recorder = RecordingModel(setup.target)
    outputs = [loop(setup, tree_generate, branching, recorder)(p) for p in setup.prompts]
    return Counted(sum(len(ids) for ids, _ in outputs) / len(recorder.forwards),
                   statistics.mean(mean for _, mean in outputs))


def run_trees(setup: speedup.Setup, tree_generate, repeats: int, shapes=SHAPES) -> list[TreeRow]:
    """One row per shape: the tree's numbers and its chain's."""
    runs = {"autoregressive": speedup.autoregressive(setup)}
    for branching in shapes:
        runs[f"tree {branching}"] = loop(setup, tree_generate, branching)
        runs[f"chain of {nodes(branching)}"] = loop(setup, tree_generate, chain(nodes(branching)))
    for run in runs.values():  # warm-up: first calls allocate
        run(setup.prompts[0])
    with tqdm(total=repeats * len(runs), desc="bench: trees", unit="run", leave=False) as progress:
        timings = speedup.time_methods(setup, runs, repeats, progress)
    ar = timings.median("autoregressive")
    rows = []
    for branching in shapes:
        n = nodes(branching)
        tree = counted(setup, tree_generate, branching)
        chain_row = ChainRow(n, *counted(setup, tree_generate, chain(n)), ar / timings.median(f"chain of {n}"))
        rows.append(TreeRow(branching, n, *tree, ar / timings.median(f"tree {branching}"), chain_row))
    return rows


def print_trees(rows: list[TreeRow]) -> None:
    print("\ntoken trees (lesson 9) against chains of as many drafted nodes, both with the tree loop:")
    print(f"{'branching':<12} {'nodes':>5} {'tokens/call':>12} {'chain':>6} {'speedup':>8} {'chain':>6}")
    for row in rows:
        print(f"{row.branching!s:<12} {row.nodes:>5} {row.tokens_per_target_call:>12.2f} "
              f"{row.chain.tokens_per_target_call:>6.2f} {row.speedup_vs_autoregressive:>7.2f}x "
              f"{row.chain.speedup_vs_autoregressive:>5.2f}x")
