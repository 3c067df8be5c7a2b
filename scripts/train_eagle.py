"""Train lesson 11's feature head (EAGLE) for the shipped target, and measure it.

Training (EAGLE-1): random windows of the training files; the target reads each window
once (no gradient) and gives its features ``f_t`` and logits; the head reads the pairs
``(f_t, x_{t+1})`` and is trained with ``eagle_loss`` to predict ``f_{t+1}`` and the
target's next-token distribution. AdamW, a one-cycle schedule, clipped gradients.
``--unroll K`` (K > 1) trains with EAGLE-3's training-time test instead,
``unrolled_eagle_loss`` over K steps: the head also reads its own predicted features, as
it does from a round's second draft on. ``--init FOLDER`` starts from a saved head (its
shape is the folder's) instead of a fresh one.

Then, on held-out prompts (the model card's protocol, ``scripts/measure_pair.py``):
- α at T = 1 and greedy agreement along text the target generates, the head reading the
  target's true features (one step ahead, as the first draft of a round does);
- the chain loop itself, ``eagle_generate`` at γ = ``--gamma``, T = 1 and greedy: its
  acceptance rate and tokens per target forward;
- the decode step of the head and of the target, each with its cache, and c = their ratio.

    python scripts/train_eagle.py --out grader/models/shipped/feature_head
    python scripts/train_eagle.py --init grader/models/shipped/feature_head --unroll 3 \
        --steps 400 --lr 2e-3 --out /tmp/feature_head_ttt
"""
import argparse
import json
import os
import statistics
import time
from pathlib import Path

import torch
from transformers import DynamicCache

from grader.models import SHIPPED_FEATURE_HEAD, load_pair
from grader.models.corpus import corpus_files, encode, held_out_prompts, random_windows
from solutions.autoregressive import autoregressive_generate
from solutions.distill import expected_acceptance
from solutions.eagle import (FeatureHead, eagle_generate, eagle_loss, feature_draft_step, load_feature_head,
                             target_step, unrolled_eagle_loss)
from solutions.sampling import GreedyProcessor, MultinomialProcessor


def window_loss(head: FeatureHead, features: torch.Tensor, x: torch.Tensor, target_logits: torch.Tensor,
                unroll: int, feature_weight: float, token_weight: float) -> torch.Tensor:
    """The loss of one batch of windows ``x`` ``[B, T]`` with the target's ``features``
    ``[B, T, d]`` and ``target_logits`` ``[B, T, V]``: EAGLE-1's, or the ``unroll``-step one."""
    if unroll > 1:
        return unrolled_eagle_loss(head, features, x, target_logits, unroll, feature_weight, token_weight)
    # pair t = (f_t, x_{t+1}) predicts f_{t+1}, whose logits score x_{t+2} (the unroll's step 0,
    # through the causal mask: the shipped head's run, reproduced as it was made)
    predicted, head_logits = feature_draft_step(head, features[:, :-1], x[:, 1:], None)
    return eagle_loss(predicted, features[:, 1:], head_logits, target_logits[:, 1:], feature_weight, token_weight)


def train(head: FeatureHead, target, data, steps: int, lr: float, unroll: int, feature_weight: float,
          token_weight: float) -> list[dict]:
    """``steps`` AdamW steps on batches of ``data``; the log of every 100th step."""
    params = head.own_parameters()
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps, pct_start=0.05,
                                                   cycle_momentum=False)
    log, start = [], time.time()
    head.train()
    for step in range(steps):
        x, _ = next(data)
        with torch.no_grad():
            out = target(x, output_hidden_states=True)
        loss = window_loss(head, out.hidden_states[-1], x, out.logits, unroll, feature_weight, token_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        schedule.step()
        if step % 100 == 0 or step == steps - 1:
            log.append({"step": step, "loss": round(loss.item(), 4), "seconds": round(time.time() - start, 1)})
            print(f"step {step}/{steps} loss {loss.item():.3f} ({time.time() - start:.0f}s)", flush=True)
    head.eval()
    return log


@torch.no_grad()
def one_step_ahead(target, head, prompt: list[int], new_tokens: int, processor) -> tuple[torch.Tensor, torch.Tensor]:
    """Target and head logits ``[new_tokens, V]`` at each token of a continuation of ``prompt``
    that the target generates with ``processor``, the head reading the true features."""
    text = prompt + autoregressive_generate(prompt, target, new_tokens, processor, eos_tokens_id=-1,
                                            use_cache=True)
    ids = torch.tensor([text])
    out = target(ids, output_hidden_states=True)
    _, head_logits = feature_draft_step(head, out.hidden_states[-1][:, :-1], ids[:, 1:], None)
    rows = slice(len(prompt) - 1, len(text) - 1)  # the target's rows scoring the continuation
    # head row j (pair j) scores token j + 2, the target's row j + 1 does too
    return out.logits[0, rows], head_logits[0, rows.start - 1:rows.stop - 1]


def alpha(p_logits: torch.Tensor, q_logits: torch.Tensor) -> float:
    return expected_acceptance(p_logits.softmax(-1), q_logits.softmax(-1)).mean().item()


def agreement(p_logits: torch.Tensor, q_logits: torch.Tensor) -> float:
    return (p_logits.argmax(-1) == q_logits.argmax(-1)).float().mean().item()


def loop_metrics(target, head, prompts, new_tokens: int, gamma: int, processor, seed: int) -> dict:
    """The chain loop's acceptance rate and tokens per target forward (prefill included), over ``prompts``."""
    calls = []
    handle = target.register_forward_hook(lambda *_: calls.append(1))
    torch.manual_seed(seed)
    rates, tokens = [], 0
    for prompt in prompts:
        ids, rate = eagle_generate(prompt, target, head, gamma, processor, new_tokens, eos_tokens_id=-1)
        rates.append(rate)
        tokens += len(ids)
    handle.remove()
    return {"acceptance_rate": round(statistics.mean(rates), 4),
            "tokens_per_target_call": round(tokens / len(calls), 3)}


def step_ms(step, crop, repeats: int = 200) -> float:
    """Median milliseconds of ``step()`` (one token with a warm cache), ``crop()`` after each."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
        crop()
    return 1000 * statistics.median(times)


@torch.no_grad()
def decode_steps(target, head, context: list[int]) -> dict:
    """The decode step of the target and of the head after ``context`` is cached, side by side."""
    ids = torch.tensor([context])
    target_cache, head_cache = DynamicCache(), DynamicCache()
    features, _ = target_step(target, ids[:, :-1], target_cache)
    feature_draft_step(head, features[:, :-1], ids[:, 1:-1], head_cache)
    token, feature = ids[:, -1:], features[:, -1:]
    target_ms = step_ms(lambda: target_step(target, token, target_cache), lambda: target_cache.crop(-1))
    head_ms = step_ms(lambda: feature_draft_step(head, feature, token, head_cache), lambda: head_cache.crop(-1))
    return {"target_step_ms": round(target_ms, 3), "head_step_ms": round(head_ms, 3),
            "c": round(head_ms / target_ms, 3)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(SHIPPED_FEATURE_HEAD))
    parser.add_argument("--init", type=Path, default=None, help="a saved head to continue from")
    parser.add_argument("--unroll", type=int, default=1, help="training-time test steps (1: EAGLE-1)")
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--intermediate-size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=256)
    parser.add_argument("--feature-weight", type=float, default=1.0)
    parser.add_argument("--token-weight", type=float, default=1.0)
    parser.add_argument("--prompts", type=int, default=14)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--gamma", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    target, _, tokenizer = load_pair("cpu")
    target.requires_grad_(False)
    if args.init is not None:
        head = load_feature_head(target, args.init)
        config = head.decoder.config
        args.layers, args.intermediate_size = config.num_hidden_layers, config.intermediate_size
    else:
        head = FeatureHead(target, args.layers, args.intermediate_size)
    tokens = encode(corpus_files()[0], tokenizer)
    data = random_windows(tokens, args.batch, args.seq, torch.Generator().manual_seed(args.seed))
    start = time.time()
    log = train(head, target, data, args.steps, args.lr, args.unroll, args.feature_weight, args.token_weight)
    seconds = time.time() - start

    prompts = held_out_prompts(tokenizer, args.prompts)
    sampled = [one_step_ahead(target, head, p, args.new_tokens, MultinomialProcessor(1.0)) for p in prompts]
    greedy = [one_step_ahead(target, head, p, args.new_tokens, GreedyProcessor()) for p in prompts]
    load = [round(x, 2) for x in os.getloadavg()]
    report = {
        "shape": {"layers": args.layers, "intermediate_size": args.intermediate_size,
                  "parameters": sum(p.numel() for p in head.own_parameters())},
        "training": {"init": str(args.init) if args.init else None, "unroll": args.unroll,
                     "steps": args.steps, "batch": args.batch, "seq": args.seq, "lr": args.lr,
                     "feature_weight": args.feature_weight, "token_weight": args.token_weight,
                     "seconds": round(seconds), "threads": args.threads, "final_loss": log[-1]["loss"]},
        "alpha_t1_generated": round(statistics.mean(alpha(*pair) for pair in sampled), 4),
        "greedy_agreement_generated": round(statistics.mean(agreement(*pair) for pair in greedy), 4),
        f"chain_t1_gamma{args.gamma}": loop_metrics(target, head, prompts, args.new_tokens, args.gamma,
                                                    MultinomialProcessor(1.0), args.seed),
        f"chain_greedy_gamma{args.gamma}": loop_metrics(target, head, prompts, args.new_tokens, args.gamma,
                                                        GreedyProcessor(), args.seed),
        "decode_step": decode_steps(target, head, prompts[0] * 2),
        "load_average_1_5_15": load,
    }
    print(json.dumps(report, indent=1), flush=True)
    head.save(args.out, {"measured": report, "log": log})
    print(f"saved to {args.out}")


if __name__ == "__main__":
    main()
