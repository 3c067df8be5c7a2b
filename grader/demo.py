"""`grader demo [PROMPT]`: speculative decoding on the shipped pair, coloured round by round,
then its acceptance rate and its speedup over autoregressive decoding, measured on the spot."""
import statistics
import time

from solutions.speculative import COLOURS

LEGEND = "  ".join(f"{COLOURS[kind]}{text}{COLOURS['end']}" for kind, text in (
    ("accepted", "accepted draft"), ("rejected", "rejected draft"),
    ("correction", "target's correction"), ("bonus", "bonus token")))


def run(args) -> int:
    import torch

    from grader import implementation
    from grader.models import load_pair

    pair = {k: v for k, v in (("target", args.target), ("drafter", args.drafter)) if v}
    target, drafter, tokenizer = load_pair(args.device, **pair)
    generate = implementation.load(args.impl, "speculative").speculative_generate
    baseline = implementation.load(args.impl, "autoregressive").autoregressive_generate
    prompt = tokenizer(args.prompt)["input_ids"]
    print(f"{LEGEND}\n")
    torch.manual_seed(0)
    ids, rate = generate(prompt, drafter, target, tokenizer=tokenizer, gamma=args.gamma,
                         max_gen_len=args.max_gen_len, use_cache=True, debug=True)
    print(f"\n{tokenizer.decode(prompt + ids)}\n")

    def speculative():
        return generate(prompt, drafter, target, gamma=args.gamma, max_gen_len=args.max_gen_len,
                        use_cache=True)[0]

    def autoregressive():
        return baseline(prompt, target, max_gen_len=args.max_gen_len, use_cache=True)

    seconds = {"speculative": [], "autoregressive": []}
    for _ in range(args.repeats):  # interleaved, so both see the same machine load
        for name, work in (("speculative", speculative), ("autoregressive", autoregressive)):
            start = time.perf_counter()
            out = work()
            seconds[name].append((time.perf_counter() - start) / max(1, len(out)))
    same = speculative() == autoregressive()
    spec, ar = (statistics.median(seconds[k]) for k in ("speculative", "autoregressive"))
    print(f"acceptance rate {rate:.2f} (γ = {args.gamma}); greedy output identical to the "
          f"target's alone: {'yes' if same else 'NO'}")
    print(f"autoregressive {1 / ar:.0f} tokens/s, speculative {1 / spec:.0f} tokens/s: "
          f"{ar / spec:.2f}x (median of {args.repeats} runs each, {target.device})")
    return 0 if same else 1
