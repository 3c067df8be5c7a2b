"""Where one speculative run spends its time, operator by operator (torch.profiler), on
the default benchmark pair of `grader bench`; the table in docs/benchmarks.md comes from it.
With ``--fast-steps N``, where lesson 7's compiled decode step spends it instead: N steps of
the fast baseline's target, their wall time against the memory floor and, on a GPU, the
kernels each step runs and the device time they take.

    python scripts/profile_speculative.py --gamma 7
    python scripts/profile_speculative.py --device cuda --dtype bfloat16 --layers 24 --hidden 2048
    python scripts/profile_speculative.py --device cuda --dtype bfloat16 --layers 24 --hidden 2048 --fast-steps 50
    python scripts/profile_speculative.py ... --fast-steps 50 --inductor coordinate_descent_tuning=True

``--inductor NAME=VALUE`` sets one of inductor's options (``torch._inductor.config``) before
anything compiles, to try a setting on the compiled step without changing lesson 7's code.
"""
import argparse
import ast
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from torch.autograd import DeviceType  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

from grader.models import synthetic  # noqa: E402
from grader.bench import roofline  # noqa: E402
from grader.bench.measure import DTYPES  # noqa: E402
from grader.bench.speedup import synchronize  # noqa: E402
from grader.models import SHIPPED_TARGET  # noqa: E402
from grader.models.corpus import held_out_prompts  # noqa: E402
from solutions.fast import StaticModel, cache_length, sequence_buffer  # noqa: E402
from solutions.sampling import GreedyProcessor  # noqa: E402
from solutions.speculative import speculative_generate  # noqa: E402


@torch.inference_mode()
def profile_fast_step(target, prompt: list[int], steps: int, compile: bool, rows: int) -> None:
    """``steps`` decode steps of lesson 7's fast baseline on ``target`` (``StaticModel.step``
    on ``[1, 1]``, the token after the prompt and on), timed, then profiled. Device time
    near the wall time: the step is bound by its kernels; far below it, by the host."""
    device = target.device
    warm = 3  # the first steps compile and record the graph
    ids = sequence_buffer(prompt, len(prompt) + warm + 2 * steps + 1, device)
    runner = StaticModel(target, cache_length(ids.shape[1]), compile=compile)
    runner.prefill(ids, len(prompt), GreedyProcessor(), torch.tensor([-1], device=device))
    position = len(prompt)

    def run(count: int) -> None:
        nonlocal position
        for _ in range(count):
            runner.step(ids, position, 1)  # the cache holds ids[:, :position]
            position += 1
        synchronize(device)

    run(warm)
    start = time.perf_counter()
    run(steps)
    wall = 1000 * (time.perf_counter() - start) / steps
    on_gpu = str(device).startswith("cuda")
    with profile(activities=[ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if on_gpu else [])) as prof:
        run(steps)
    floor = roofline.floor_step_ms(target, position, roofline.memory_bandwidth(device))
    print(f"{'compiled' if compile else 'eager'} decode step on {device}: {wall:.3f} ms, "
          f"floor {floor:.3f} ms ({wall / floor:.2f}x)")
    kernels = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    if kernels:
        busy = sum(e.time_range.elapsed_us() for e in kernels) / 1000 / steps
        print(f"on the device: {len(kernels) / steps:.0f} kernels a step, {busy:.3f} ms of kernel time "
              f"({busy / wall:.0%} of the step)")
    sort = "self_cuda_time_total" if on_gpu else "self_cpu_time_total"
    print(prof.key_averages().table(sort_by=sort, row_limit=rows, max_name_column_width=44))


def inductor_option(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` -> (NAME, the literal VALUE), NAME an option of ``torch._inductor.config``."""
    import torch._inductor.config as config

    name, _, value = text.partition("=")
    if not hasattr(config, name) or not value:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE, NAME an option of torch._inductor.config "
                                         "(coordinate_descent_tuning, max_autotune, ...)")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise argparse.ArgumentTypeError(f"{text!r}: VALUE must be a Python literal (True, 4, 'name')") from None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--hidden", type=int, default=384)
    parser.add_argument("--divergence", type=float, default=0.01)
    parser.add_argument("--gamma", type=int, default=7)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=list(DTYPES), default="float32")
    parser.add_argument("--rows", type=int, default=12)
    parser.add_argument("--fast-steps", type=int, metavar="N",
                        help="profile N compiled decode steps of lesson 7's fast baseline instead")
    parser.add_argument("--eager", action="store_true", help="with --fast-steps: the same steps uncompiled")
    parser.add_argument("--inductor", action="append", default=[], type=inductor_option, metavar="NAME=VALUE",
                        help="set torch._inductor.config.NAME to VALUE (a Python literal) first; repeatable")
    args = parser.parse_args()
    for name, value in args.inductor:
        setattr(torch._inductor.config, name, value)
        print(f"torch._inductor.config.{name} = {value!r}")
    target, drafter = synthetic.synthetic_pair(args.layers, args.hidden, args.divergence,
                                               device=args.device, dtype=DTYPES[args.dtype])
    prompt = held_out_prompts(AutoTokenizer.from_pretrained(SHIPPED_TARGET), 1)[0]
    if args.fast_steps:
        return profile_fast_step(target, prompt, args.fast_steps, not args.eager, args.rows)

    def run():
        return speculative_generate(prompt, drafter, target, gamma=args.gamma, max_gen_len=args.new_tokens,
                                    logits_processor=GreedyProcessor(), eos_tokens_id=-1, use_cache=True)
    run()  # warm-up
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if args.device.startswith("cuda") else [])
    with profile(activities=activities) as prof:
        run()
    sort = "self_cuda_time_total" if args.device.startswith("cuda") else "self_cpu_time_total"
    print(prof.key_averages().table(sort_by=sort, row_limit=args.rows, max_name_column_width=44))


if __name__ == "__main__":
    main()
