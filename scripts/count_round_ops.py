"""The operators a round of lesson 7's fast loop runs outside its compiled steps.

Inside ``decode_step`` and ``verify_step`` a GPU replays one CUDA graph; every operator
outside them is dispatched from Python one at a time, and each that is not a view (a view
only changes a tensor's shape or offset) launches a kernel. Those launches, not the
graphs, are what a round adds to the theory's forwards. Counted on the shipped pair with
``compile=False``, which runs the same code as the compiled loop, eagerly: the script
wraps ``decode_step``, ``verify_step`` and the prefill so that what runs inside them is
not counted, and ``settle`` (called once per round) to count rounds. Operators are
counted with a TorchDispatchMode, so the numbers are the same on every device.

    python scripts/count_round_ops.py                # γ = 4, 4 prompts × 128 tokens
    python scripts/count_round_ops.py --gamma 6 --rows 20
"""
import argparse
import functools
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

import solutions.fast as fast  # noqa: E402
from grader.models import load_pair  # noqa: E402
from grader.models.corpus import held_out_prompts  # noqa: E402


class OutsideSteps(TorchDispatchMode):
    """Counts the operators dispatched while no wrapped step is running, and the rounds."""

    def __init__(self):
        super().__init__()
        self.operators, self.depth, self.rounds = Counter(), 0, 0

    def inside(self, function):
        """``function``, its operators left uncounted."""
        @functools.wraps(function)
        def uncounted(*args, **kwargs):
            self.depth += 1
            try:
                return function(*args, **kwargs)
            finally:
                self.depth -= 1
        return uncounted

    def round_counted(self, settle):
        """``settle``, counting one round per call."""
        @functools.wraps(settle)
        def counted(*args):
            self.rounds += 1
            return settle(*args)
        return counted

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not self.depth:
            self.operators[func] += 1
        return func(*args, **(kwargs or {}))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gamma", type=int, default=4)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--rows", type=int, default=12, help="operators listed, most frequent first")
    args = parser.parse_args()
    torch.set_num_threads(1)
    target, drafter, tokenizer = load_pair(device="cpu")
    counter = OutsideSteps()
    fast.decode_step = counter.inside(fast.decode_step)
    fast.verify_step = counter.inside(fast.verify_step)
    fast.StaticModel.prefill = counter.inside(fast.StaticModel.prefill)  # once per call, not per round
    fast.settle = counter.round_counted(fast.settle)
    with counter:
        for prompt in held_out_prompts(tokenizer, args.prompts):
            fast.fast_speculative_generate(prompt, drafter, target, gamma=args.gamma, max_gen_len=args.new_tokens,
                                           eos_tokens_id=-1, compile=False)
    ops = counter.operators
    launches = sum(n for op, n in ops.items() if not op.is_view)
    print(f"shipped pair (target {target.config.num_hidden_layers} layers, drafter "
          f"{drafter.config.num_hidden_layers}), γ = {args.gamma}, {args.prompts} prompts × {args.new_tokens} "
          f"tokens: {counter.rounds} rounds")
    print(f"outside the compiled steps, per round: {sum(ops.values()) / counter.rounds:.1f} operators, "
          f"{launches / counter.rounds:.1f} of them not views (a kernel launch each on a GPU)")
    for op, n in ops.most_common(args.rows):
        print(f"  {n / counter.rounds:6.2f}  {op}{'  (view)' if op.is_view else ''}")


if __name__ == "__main__":
    main()
