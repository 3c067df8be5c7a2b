"""A benchmark pair that is built, not trained: realistic costs, α set by one number.

The target is a deep, wide Llama with random weights; the drafter is its first layer
alone, sharing the target's embeddings, final norm and head. Every later target layer
has its output projections (attention ``o_proj`` and MLP ``down_proj``) scaled by
``divergence``, so those layers only nudge the residual stream: at ``divergence = 0`` the
two models agree exactly (α = 1), and α falls smoothly as it grows. The head is scaled so
that next-token distributions are peaked like a trained model's rather than flat.

Nothing is downloaded or trained, so any size can be built in seconds: small for tests,
a few hundred million parameters for a CPU benchmark, 1B+ on a GPU.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

VOCAB = 4096  # the shipped tokenizer's, so prompts come from real held-out text


def synthetic_pair(layers: int = 24, hidden: int = 384, divergence: float = 0.01,
                   vocab_size: int = VOCAB, logit_scale: float = 6.0, seed: int = 0,
                   device: str = "cpu", dtype: torch.dtype = torch.float32):
    """(target, drafter): ``layers``-layer target, one-layer drafter sharing its weights."""
    torch.manual_seed(seed)
    target = LlamaForCausalLM(_config(layers, hidden, vocab_size))
    with torch.no_grad():
        target.lm_head.weight.mul_(logit_scale / (0.02 * hidden ** 0.5))  # logit std ≈ logit_scale
        for layer in target.model.layers[1:]:
            layer.self_attn.o_proj.weight.mul_(divergence)
            layer.mlp.down_proj.weight.mul_(divergence)
    drafter = LlamaForCausalLM(_config(1, hidden, vocab_size))
    drafter.model.embed_tokens = target.model.embed_tokens
    drafter.model.layers[0] = target.model.layers[0]
    drafter.model.norm = target.model.norm
    drafter.lm_head = target.lm_head
    return (target.to(device=device, dtype=dtype).eval(),
            drafter.to(device=device, dtype=dtype).eval())


def _config(layers: int, hidden: int, vocab_size: int) -> LlamaConfig:
    heads = max(1, hidden // 64)
    return LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=4 * hidden,
                       num_hidden_layers=layers, num_attention_heads=heads,
                       num_key_value_heads=heads, max_position_embeddings=4096,
                       tie_word_embeddings=False, pad_token_id=0, eos_token_id=1, bos_token_id=2)
