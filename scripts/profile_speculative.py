"""Where one speculative run spends its time, operator by operator (torch.profiler), on
the default benchmark pair of `grader bench`; the table in docs/benchmarks.md comes from it.

    python scripts/profile_speculative.py --gamma 7
    python scripts/profile_speculative.py --device cuda --dtype bfloat16 --layers 24 --hidden 2048
"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torch.profiler import ProfilerActivity, profile  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

from grader.models import synthetic  # noqa: E402
from grader.bench.measure import DTYPES  # noqa: E402
from grader.models import SHIPPED_TARGET  # noqa: E402
from grader.models.corpus import held_out_prompts  # noqa: E402
from solutions.sampling import GreedyProcessor  # noqa: E402
from solutions.speculative import speculative_generate  # noqa: E402


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
    args = parser.parse_args()
    target, drafter = synthetic.synthetic_pair(args.layers, args.hidden, args.divergence,
                                               device=args.device, dtype=DTYPES[args.dtype])
    prompt = held_out_prompts(AutoTokenizer.from_pretrained(SHIPPED_TARGET), 1)[0]

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
