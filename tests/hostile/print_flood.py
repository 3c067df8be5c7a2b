"""Prints a flood of lines, then returns a wrong answer."""


def autoregressive_generate(inputs, model, max_gen_len=40, **kwargs):
    for i in range(1_000_000):
        print("token", i, "x" * 100)
    return [0] * (max_gen_len + 1)
