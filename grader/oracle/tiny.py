"""Tiny real transformers models for exact tests: a handful of tokens, float64, seeded.

Their vocabulary is small enough to enumerate every continuation, and their weights are
drawn large enough that the next-token distribution depends strongly on the context
(the same p and q at every position would hide row-indexing bugs).
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

TINY_VOCAB = 6


def tiny_llama(seed: int, vocab_size: int = TINY_VOCAB, layers: int = 1, hidden: int = 16):
    config = LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=2 * hidden,
                         num_hidden_layers=layers, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=64, tie_word_embeddings=False,
                         pad_token_id=None, eos_token_id=1, bos_token_id=0)
    return _randomised(LlamaForCausalLM, config, seed)


def tiny_gpt2(seed: int, vocab_size: int = TINY_VOCAB, layers: int = 1, hidden: int = 16):
    config = GPT2Config(vocab_size=vocab_size, n_embd=hidden, n_layer=layers, n_head=2,
                        n_positions=64, tie_word_embeddings=False,
                        pad_token_id=None, eos_token_id=1, bos_token_id=0)
    return _randomised(GPT2LMHeadModel, config, seed)


def tiny_pair(seed: int, vocab_size: int = TINY_VOCAB):
    """(target, drafter): a two-layer Llama and a one-layer GPT-2 sharing a vocabulary."""
    return tiny_llama(seed, vocab_size, layers=2), tiny_gpt2(seed + 1, vocab_size)


def _randomised(model_class, config, seed: int):
    torch.manual_seed(seed)
    model = model_class(config).to(torch.float64).eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if param.dim() >= 2:  # matrices: unit-scale fan-in init, so logits spread out
                param.copy_(torch.randn(param.shape, generator=generator, dtype=param.dtype)
                            / param.shape[-1] ** 0.5 * (3.0 if "head" in name else 1.0))
    return model
