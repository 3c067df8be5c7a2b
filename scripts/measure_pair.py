"""Measure a target/drafter pair on held-out standard-library source (the model card's numbers).

Teacher-forced over held-out windows: each model's cross-entropy, the acceptance rate
α = E[Σ_x min(p(x), q(x))] at temperature 1, and greedy agreement (how often the two
argmaxes coincide). The same two along text the target generates from held-out prompts —
the positions speculative decoding drafts: α on text sampled at T = 1, agreement on greedy
text. Decode-step time: the median of one cached single-token forward.

    python scripts/measure_pair.py                       # the shipped pair
    python scripts/measure_pair.py --target DIR --drafter DIR
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F
from transformers import DynamicCache

from grader.models import SHIPPED_DRAFTER, SHIPPED_TARGET, load_pair
from grader.models.corpus import corpus_files, encode, held_out_prompts
from solutions.autoregressive import autoregressive_generate
from solutions.sampling import GreedyProcessor, MultinomialProcessor


def alpha(p_logits: torch.Tensor, q_logits: torch.Tensor) -> float:
    """Mean Σ_x min(p(x), q(x)) at T = 1 over positions; logits ``[..., V]``."""
    return torch.minimum(p_logits.softmax(-1), q_logits.softmax(-1)).sum(-1).mean().item()


def agreement(p_logits: torch.Tensor, q_logits: torch.Tensor) -> float:
    """How often the two argmaxes coincide; logits ``[..., V]``."""
    return (p_logits.argmax(-1) == q_logits.argmax(-1)).float().mean().item()


@torch.no_grad()
def held_out_metrics(target, drafter, tokens: torch.Tensor, seq: int, windows: int) -> dict:
    starts = torch.linspace(0, len(tokens) - seq - 2, windows).long()
    batch = torch.stack([tokens[s : s + seq + 1] for s in starts])
    x, y = batch[:, :-1], batch[:, 1:]
    p_logits, q_logits = target(x).logits.float(), drafter(x).logits.float()
    return {
        "target_loss": F.cross_entropy(p_logits.flatten(0, 1), y.flatten()).item(),
        "drafter_loss": F.cross_entropy(q_logits.flatten(0, 1), y.flatten()).item(),
        "alpha_t1": alpha(p_logits, q_logits),
        "greedy_agreement": agreement(p_logits, q_logits),
        "held_out_tokens": int(y.numel()),
    }


@torch.no_grad()
def continuation_logits(target, drafter, prompt: list[int], new_tokens: int, processor):
    """Both models' logits ``[new_tokens, V]`` at each token of a continuation of ``prompt``
    that the target generates with ``processor``."""
    text = prompt + autoregressive_generate(prompt, target, new_tokens, processor,
                                            eos_tokens_id=-1, use_cache=True)
    ids, rows = torch.tensor([text]), slice(len(prompt) - 1, -1)
    return target(ids).logits[0, rows].float(), drafter(ids).logits[0, rows].float()


def generated_metrics(target, drafter, prompts: list[list[int]], new_tokens: int) -> dict:
    """α at T = 1 along sampled continuations, greedy agreement along greedy ones."""
    alphas, agreements = [], []
    for prompt in prompts:
        alphas.append(alpha(*continuation_logits(target, drafter, prompt, new_tokens, MultinomialProcessor(1.0))))
        agreements.append(agreement(*continuation_logits(target, drafter, prompt, new_tokens, GreedyProcessor())))
    return {"alpha_t1_generated": statistics.mean(alphas),
            "greedy_agreement_generated": statistics.mean(agreements),
            "generated_prompts": len(prompts), "generated_tokens_each": new_tokens}


@torch.no_grad()
def decode_step_ms(model, context: torch.Tensor, repeats: int = 200) -> float:
    """Median time of one forward of one new token after ``context`` [1, n] is cached."""
    cache = DynamicCache()
    model(context, cache=cache, use_cache=True)
    token = context[:, -1:]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        model(token, cache=cache, use_cache=True)
        times.append(time.perf_counter() - start)
        cache.crop(-1)
    return 1000 * statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default=SHIPPED_TARGET)
    parser.add_argument("--drafter", default=SHIPPED_DRAFTER)
    parser.add_argument("--windows", type=int, default=64)
    parser.add_argument("--seq", type=int, default=256)
    parser.add_argument("--prompts", type=int, default=20)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    target, drafter, tokenizer = load_pair("cpu", target=args.target, drafter=args.drafter)
    _, held_out = corpus_files()
    tokens = encode(held_out, tokenizer)
    results = held_out_metrics(target, drafter, tokens, args.seq, args.windows)
    torch.manual_seed(0)
    results |= generated_metrics(target, drafter, held_out_prompts(tokenizer, args.prompts), args.new_tokens)
    context = tokens[:128].unsqueeze(0)
    results["target_step_ms"] = decode_step_ms(target, context)
    results["drafter_step_ms"] = decode_step_ms(drafter, context)
    results["cost_ratio_c"] = results["drafter_step_ms"] / results["target_step_ms"]
    for name, model in (("target", target), ("drafter", drafter)):
        results[f"{name}_parameters"] = sum(p.numel() for p in model.parameters())
    results["torch_threads"] = args.threads
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
