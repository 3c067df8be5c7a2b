"""`grader bench --eagle`: lesson 11's feature head (the implementation's ``load_feature_head``,
the shipped head) against the token drafter, side by side in one run.

Methods, timed in the same interleaved repetitions over the bench's prompts: autoregressive
decoding, the token drafter's chain at the run's γ (lesson 4's loop), the feature head's
chain at ``HEAD_GAMMAS`` (``eagle_generate``) and its dynamic tree in ``TREE_SHAPES``
(``eagle_tree_generate``). Tokens per target call are counted from the target's forwards in
one untimed pass. For the chains, Leviathan et al.'s theory beside them: α is Σ min(p, q)
along the texts the head's chain generated, q the drafter's or, for the head, its q one step
ahead from the target's true features; c is a decode step of the drafter or of the head over
the target's. A tree's tokens per call have no closed form here: its row has none.
"""
import statistics

import torch
from tqdm import tqdm
from transformers import DynamicCache

from grader.bench import speedup
from grader.bench.results import EagleReport, EagleRow
from grader.observers.recording import RecordingModel

HEAD_GAMMAS = (3, 4, 5)
TREE_SHAPES = ((3, 2, 4), (5, 4, 16))  # (depth, top_k, total)
CHAINS = {f"head chain γ={gamma}": gamma for gamma in HEAD_GAMMAS}  # the head's loops by name
TREES = {f"head tree {shape}": shape for shape in TREE_SHAPES}


def head_runs(setup: speedup.Setup, eagle, head, target=None) -> dict:
    """name -> a function of one prompt running one of the head's loops; ``target`` (a
    recorder) in place of the setup's."""
    model = target or setup.target
    common = dict(logits_processor=setup.processor, max_gen_len=setup.new_tokens, eos_tokens_id=speedup.NO_EOS)
    runs = {name: (lambda prompt, gamma=gamma: eagle.eagle_generate(prompt, model, head, gamma=gamma, **common))
            for name, gamma in CHAINS.items()}
    runs.update({name: (lambda prompt, shape=shape: eagle.eagle_tree_generate(prompt, model, head, *shape, **common))
                 for name, shape in TREES.items()})
    return runs


def tokens_per_call(setup: speedup.Setup, loop_of_target) -> tuple[float, list[list[int]]]:
    """Tokens per target forward (the prefill included) of ``loop_of_target(recorder)`` over
    every prompt, and the texts it made (prompt + output)."""
    recorder = RecordingModel(setup.target)
    run = loop_of_target(recorder)
    outputs = [run(prompt)[0] for prompt in setup.prompts]
    return sum(map(len, outputs)) / len(recorder.forwards), [p + o for p, o in zip(setup.prompts, outputs)]


@torch.no_grad()
def head_alpha_along(setup: speedup.Setup, eagle, head, texts: list[list[int]]) -> float:
    """Σ min(p, q) at the generated positions, q the head's one step ahead from the target's
    true features: pair ``(f_{i−2}, x_{i−1})`` drafts token ``i``, whose p is row ``i − 1``."""
    values = []
    for prompt, text in zip(setup.prompts, texts):
        ids = torch.tensor([text], device=setup.device)
        out = setup.target(ids, output_hidden_states=True)
        _, head_logits = eagle.feature_draft_step(head, out.hidden_states[-1][:, :-2], ids[:, 1:-1], None)
        p = setup.processor(out.logits[0, len(prompt) - 1:-1])
        q = setup.processor(head_logits[0, len(prompt) - 2:])
        values.append(torch.minimum(p, q).sum(-1).mean().item())
    return statistics.mean(values)


@torch.no_grad()
def head_step_ms(setup: speedup.Setup, eagle, head, repeats: int = 30) -> float:
    """Median time of one cached single-pair forward of the head (a drafting step)."""
    prompt = torch.tensor([setup.prompts[0]], device=setup.device)
    features = setup.target(prompt, output_hidden_states=True).hidden_states[-1]
    cache = DynamicCache()
    eagle.feature_draft_step(head, features[:, :-2], prompt[:, 1:-1], cache)
    return speedup.cached_step_ms(lambda: eagle.feature_draft_step(head, features[:, -2:-1], prompt[:, -1:], cache),
                                  cache, setup.device, repeats)


def run_eagle(setup: speedup.Setup, eagle, gamma: int, drafter_alpha: float, drafter_c: float,
              repeats: int) -> EagleReport:
    """The rows of ``--eagle``: the drafter's chain at ``gamma`` with its α and c from the
    bench's analysis, then the head's loops."""
    head = eagle.load_feature_head(setup.target)
    drafter_name = f"drafter chain γ={gamma}"
    runs = {"autoregressive": speedup.autoregressive(setup), drafter_name: speedup.speculative(setup, gamma),
            **head_runs(setup, eagle, head)}
    for run in runs.values():  # warm-up: first calls allocate
        run(setup.prompts[0])
    with tqdm(total=repeats * len(runs), desc="bench: feature head", unit="run", leave=False) as progress:
        timings = speedup.time_methods(setup, runs, repeats, progress)
    counts = {drafter_name: tokens_per_call(setup, lambda target: speedup.speculative(setup, gamma, target))[0]}
    texts = None
    for name in [*CHAINS, *TREES]:
        counts[name], made = tokens_per_call(setup, lambda target, name=name: head_runs(setup, eagle, head, target)[name])
        texts = texts or made  # the first chain's texts: where α is measured
    alpha = head_alpha_along(setup, eagle, head, texts)
    c = head_step_ms(setup, eagle, head) / speedup.step_ms(setup.target, setup.prompts[0], setup.device)
    ar = timings.median("autoregressive")

    def row(name: str, gamma: int | None, alpha_: float, c_: float) -> EagleRow:
        chain = gamma is not None
        return EagleRow(name, ar / timings.median(name), counts[name],
                        speedup.theory_tokens_per_call(alpha_, gamma) if chain else None,
                        speedup.theory_speedup(alpha_, gamma, c_) if chain else None)
    rows = [row(drafter_name, gamma, drafter_alpha, drafter_c)]
    rows += [row(name, CHAINS.get(name), alpha, c) for name in [*CHAINS, *TREES]]
    return EagleReport(alpha, c, rows)


def print_eagle(report: EagleReport, drafter_alpha: float, drafter_c: float) -> None:
    print(f"\nlesson 11's feature head: α {report.alpha:.3f} (the drafter's {drafter_alpha:.3f}), "
          f"c {report.cost_ratio_c:.3f} (the drafter's {drafter_c:.3f}); trees as (depth, top_k, total)")
    print(f"{'method':<26} {'speedup':>8} {'theory':>7} {'tokens/call':>12} {'theory':>7}")
    for r in report.rows:
        theory = f"{r.theory_speedup:6.2f}x" if r.theory_speedup is not None else f"{'—':>7}"
        calls = f"{r.theory_tokens_per_target_call:7.2f}" if r.theory_tokens_per_target_call is not None else f"{'—':>7}"
        print(f"{r.method:<26} {r.speedup_vs_autoregressive:7.2f}x {theory} {r.tokens_per_target_call:>12.2f} {calls}")
