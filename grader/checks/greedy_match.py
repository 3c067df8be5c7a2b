"""Check `greedy_match`: the returned pair, and exact agreement with argmax matching on
soft, one-hot and tied target rows, for k = 1, 3 and 5 (the decider's alone:
grader/judges/greedy_match.py)."""
import numpy as np
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import CONSTRUCTION_SEED, dirichlet, one_hot
from grader.judged.verifiers import Answered

VOCAB = 6
ROUNDS_PER_STOP = 4  # rounds for every stop position 0..k


def tied(rng, rows: int, vocab: int) -> np.ndarray:
    """Rows whose two largest entries are equal, at random places: a tie to break."""
    out = dirichlet(rng, rows, vocab, 1.0)
    for row in out:
        first, second = sorted(rng.choice(vocab, size=2, replace=False))
        row[first] = row[second] = row.max() + 0.25
    return out / out.sum(axis=-1, keepdims=True)


FAMILIES = {  # name -> (rng, rows) -> target rows [rows, VOCAB]
    "soft": lambda rng, rows: dirichlet(rng, rows, VOCAB, 1.0),
    "one-hot (greedy processor)": lambda rng, rows: one_hot(rng, rows, VOCAB),
    "tied maxima": lambda rng, rows: tied(rng, rows, VOCAB),
}


def run(check: CheckRun) -> None:
    greedy_match = check.function("greedy_match")
    for device in rounds.devices():
        for dtype in (torch.float64, torch.float32):
            for index, (family, build) in enumerate(FAMILIES.items()):
                rng = np.random.default_rng([CONSTRUCTION_SEED, index])  # fixed rows and drafts
                check_family(check, greedy_match, family, build, rng, dtype, device)


def rounds_for(rng, target: np.ndarray) -> np.ndarray:
    """Drafts ``[n, k]`` that match the argmax up to each stop position and then differ (a
    tied token where there is one)."""
    k = len(target) - 1
    best = target.argmax(axis=-1)  # numpy, like torch, takes the first maximum
    drafts = []
    for stop in range(k + 1):
        for _ in range(ROUNDS_PER_STOP):
            draft = rng.integers(VOCAB, size=k)
            draft[:stop] = best[:stop]
            if stop < k:  # a wrong draft: the other maximal token if there is a tie
                maximal = np.flatnonzero(target[stop] == target[stop].max())
                others = maximal[1:] if len(maximal) > 1 else np.delete(np.arange(VOCAB), best[stop])
                draft[stop] = rng.choice(others)
            drafts.append(draft)
    return np.array(drafts)


def arrange(draft, target):
    return target, draft


def check_family(check: CheckRun, greedy_match, family: str, build, rng, dtype, device) -> None:
    where = f"{str(dtype).removeprefix('torch.')} on {device}"
    answered = []  # (target rows, drafts, the (rejected_idx, token) of each round) for each k
    for k in (1, 3, 5):
        target = build(rng, k + 1)
        drafts = rounds_for(rng, target)
        what = f"({family} target rows, k = {k}, {where})"
        tensor = torch.from_numpy(target).to(dtype=dtype, device=device)
        results = rounds.call_rounds(check, greedy_match, torch.from_numpy(drafts).to(device),
                                     arrange, tensor, what=what)
        answered.append((target, drafts, [rounds.parsed(check, result, k, VOCAB, tensor.device, what)
                                          for result in results]))
    check.judge("compare", Answered(f"{family} target rows, {where}", answered))
