"""Check `processors`: distributions of the logits' shape that sum to 1, equal to the
reference's on edge cases too (the decider's alone: grader/judges/processors.py), and a χ²
test that ``sample`` draws from the distribution it is given (the processor's own first row)."""
import torch

from grader.checks.harness import CheckRun
from grader.oracle import stats
from grader.judged.verifiers import Distributions

VOCAB = 10
SAMPLE_DRAWS = 3000

CONFIGS = [
    ("GreedyProcessor", {}),
    ("MultinomialProcessor", {"temperature": 1.0}),
    ("MultinomialProcessor", {"temperature": 0.5}),
    ("MultinomialProcessor", {"temperature": 2.0}),
    ("TopKProcessor", {"temperature": 1.0, "top_k": 3}),
    ("TopKProcessor", {"temperature": 0.7, "top_k": 1}),
    ("TopKProcessor", {"temperature": 1.0, "top_k": VOCAB + 5}),
    ("NucleusProcessor", {"temperature": 1.0, "top_p": 0.5}),
    ("NucleusProcessor", {"temperature": 1.3, "top_p": 0.9}),
    ("NucleusProcessor", {"temperature": 1.0, "top_p": 1.0}),
    ("NucleusProcessor", {"temperature": 1.0, "top_p": 1e-6}),
    ("TopKNucleusProcessor", {"temperature": 1.0, "top_k": 4, "top_p": 0.8}),
]

HINTS = {  # each processor's hint, in levels: the idea, then the step, then the code
    "GreedyProcessor": ("greedy must give a one-hot distribution on the argmax, not a softmax: "
                        "greedy speculative decoding is exact only if greedy is a point mass.",
                        "zeros of the logits' shape with a 1 at each row's argmax (the first one on ties).",
                        "torch.zeros_like(logits).scatter_(-1, logits.argmax(dim=-1, keepdim=True), 1.0)"),
    "MultinomialProcessor": ("a processor turns logits into probabilities over the last dim; the temperature "
                             "reshapes them first: T < 1 sharpens the distribution, T > 1 flattens it.",
                             "scale the logits by the temperature, then normalise them into probabilities.",
                             "torch.softmax(logits / temperature, dim=-1)"),
    "TopKProcessor": ("top-k keeps only the k most likely tokens (and every token tied with the k-th), "
                      "renormalised; top_k >= V keeps everything.",
                      "at the temperature, set every logit below the k-th largest to -inf, then softmax.",
                      "kth = logits.topk(k, dim=-1).values[..., -1:]; "
                      "logits.masked_fill(logits < kth, float(\"-inf\"))"),
    "NucleusProcessor": ("keep the token that crosses top_p: token i stays iff the mass of the "
                         "tokens strictly more likely than i is below top_p; then renormalise.",
                         "sort the probabilities in descending order; the mass above a token is the "
                         "cumulative sum before it (tied tokens share the mass above the first of them); "
                         "drop the tokens whose mass above reaches top_p.",
                         "(sorted.cumsum(-1) − sorted) scattered back to the tokens' places, then "
                         "logits.masked_fill(mass_above >= top_p, float(\"-inf\"))"),
    "TopKNucleusProcessor": ("apply top-k first, then top-p to what is left.",),
}
SAMPLE_HINT = ("sample must draw token i with probability probs[..., i], independently for every row.",
               "torch.multinomial(probs, 1), or the exponential race argmax(probs / Exp(1)), which needs "
               "no host sync.")


def test_logits() -> torch.Tensor:
    """[5, VOCAB] float64 logits: two random rows and three rows with ties that matter."""
    generator = torch.Generator().manual_seed(1234)
    rows = torch.randn(5, VOCAB, generator=generator, dtype=torch.float64) * 1.5
    rows[2] = torch.tensor([3.0, 3.0, 1.0, 0.5, 0.0, -1.0, -1.0, -2.0, -3.0, -4.0])  # tied argmax
    rows[3] = torch.tensor([2.0, 1.0, 1.0, 1.0, 0.0, 0.0, -1.0, -2.0, -2.0, -5.0])  # tie at k = 3
    rows[4] = torch.log(torch.tensor([0.3, 0.2, 0.2, 0.1, 0.1, 0.04, 0.03, 0.02, 0.005, 0.005],
                                     dtype=torch.float64))  # a tie crosses top_p = 0.5
    return rows


def run(check: CheckRun) -> None:
    logits = test_logits()
    for name, kwargs in CONFIGS:
        learner_class = check.function(name)
        label = f"{name}({', '.join(f'{k}={v}' for k, v in kwargs.items())})"
        processor = check.call(learner_class, what=f"constructing {label}", **kwargs)
        probs = check.call(processor, logits, what=f"as {label}(logits [5, {VOCAB}])")
        probs = distribution(check, label, name, kwargs, logits, probs)
        check.judge("compare", Distributions(label, name, kwargs, logits, probs, HINTS[name]))
        check_sampling(check, label, processor, probs[0], name == "GreedyProcessor")


def distribution(check: CheckRun, label: str, name: str, kwargs: dict, logits: torch.Tensor, probs) -> torch.Tensor:
    """``probs`` in float64, after checking that it is a finite distribution per row of the
    ``logits``' shape (a row that does not sum to 1 stops the check in the judge, which names
    what the rows are instead when a usual mistake explains them)."""
    if not isinstance(probs, torch.Tensor):
        check.fail(f"{label} output type", f"returned {type(probs).__name__}; expected a tensor "
                   f"of probabilities with the shape of the logits {tuple(logits.shape)}")
    if probs.shape != logits.shape:
        check.fail(f"{label} output shape", f"returned shape {tuple(probs.shape)}; expected "
                   f"{tuple(logits.shape)} (one distribution per row, over the last dim)")
    if not probs.is_floating_point() or not torch.isfinite(probs).all():
        check.fail(f"{label} output values", f"returned dtype {probs.dtype} with "
                   f"{(~torch.isfinite(probs.double())).sum().item()} NaN/inf entries; expected "
                   "finite floating-point probabilities", HINTS[name])
    probs = probs.detach().to(torch.float64)
    sums = probs.sum(-1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=1e-5):
        check.judge("unnormalised", Distributions(label, name, kwargs, logits, probs, HINTS[name]))
    return probs


def check_sampling(check: CheckRun, label: str, processor, probs: torch.Tensor, greedy: bool):
    """``processor.sample`` on ``probs`` ``[V]`` (the processor's own first row) repeated: its
    draws must follow ``probs`` (all be its argmax for greedy)."""
    check.seed_everything(label)
    rows = SAMPLE_DRAWS * (1 if greedy else check.draws)  # greedy's argmax needs no more rows
    batch = probs.expand(rows, -1).clone()
    tokens = check.call(processor.sample, batch, what=f"on probs [{rows}, {VOCAB}]")
    if not isinstance(tokens, torch.Tensor) or tokens.is_floating_point():
        check.fail(f"{label}.sample output", f"returned {type(tokens).__name__} "
                   f"{getattr(tokens, 'dtype', '')}; expected a LongTensor of token ids")
    if tokens.shape not in (torch.Size([rows]), torch.Size([rows, 1])):
        check.fail(f"{label}.sample output shape", f"returned shape {tuple(tokens.shape)} for probs "
                   f"[{rows}, {VOCAB}]; expected [{rows}] (one id per row)")
    draws = tokens.reshape(-1).tolist()
    if greedy:
        best = int(probs.argmax())
        check.require(f"{label}.sample", all(t == best for t in draws),
                      f"drew tokens other than the argmax {best}", HINTS["GreedyProcessor"])
        return
    law = {i: p for i, p in enumerate(probs.tolist()) if p > 0}
    check.test(f"{label}.sample", stats.goodness_of_fit(draws, law, "token"), SAMPLE_HINT)
