"""Returns a tensor where a list of ints is expected."""
import torch


def autoregressive_generate(inputs, model, max_gen_len=40, **kwargs):
    return torch.zeros(max_gen_len, dtype=torch.long)
