"""The hardware's floor for a decode step: the bytes it must read over the memory bandwidth.

A decode step of a small batch reads every weight once, and the keys and values of every
cached position once, while doing two multiply-adds per weight: far too little arithmetic
to keep the cores busy, so memory decides. ``floor_step_ms`` is that bound: the bytes a
step reads divided by the bandwidth the device shows on a large copy. An eager step sits
far above it (Python and kernel launches per operator); a compiled one gets close.
"""
import statistics
import time

import torch

COPY_BYTES = 256 * 2**20  # far larger than any cache level: the copy streams from memory


def memory_bandwidth(device: str | torch.device, repeats: int = 5) -> float:
    """Bytes per second of a large device-to-device copy (each byte read once, written once)."""
    source = torch.empty(COPY_BYTES // 4, dtype=torch.float32, device=device).fill_(1.0)
    destination = torch.empty_like(source)
    samples = []
    for _ in range(repeats + 1):  # the first copy also faults the pages in: not counted
        _synchronize(device)
        start = time.perf_counter()
        destination.copy_(source)
        _synchronize(device)
        samples.append(time.perf_counter() - start)
    return 2 * COPY_BYTES / statistics.median(samples[1:])


def decode_step_bytes(model, context: int) -> int:
    """The bytes one decode step of ``model`` reads at ``context`` cached positions:
    every parameter (of the input embedding only the token's row, unless the head shares
    it), plus a key and a value per layer, KV head and position."""
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    embedding = model.get_input_embeddings().weight
    if embedding is not model.get_output_embeddings().weight:
        weights -= embedding.numel() * embedding.element_size() * (1 - 1 / embedding.shape[0])
    config = model.config
    heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    element = next(model.parameters()).element_size()
    return int(weights) + 2 * config.num_hidden_layers * heads * head_dim * context * element


def floor_step_ms(model, context: int, bandwidth: float) -> float:
    return 1000 * decode_step_bytes(model, context) / bandwidth


def _synchronize(device) -> None:
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()
