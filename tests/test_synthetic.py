"""The built benchmark pair: shared weights, α = 1 at divergence 0, α falling as it grows,
and the solutions running on it in bfloat16 as they would on a GPU."""
import torch

from grader.models.synthetic import synthetic_pair
from solutions import GreedyProcessor, autoregressive_generate
from solutions.speculative import speculative_generate


def alpha(target, drafter, tokens):
    with torch.no_grad():
        p, q = target(tokens).logits.softmax(-1), drafter(tokens).logits.softmax(-1)
    return torch.minimum(p, q).sum(-1).mean().item()


def test_drafter_is_the_targets_first_layer():
    target, drafter = synthetic_pair(layers=3, hidden=64)
    assert drafter.model.layers[0] is target.model.layers[0]
    assert drafter.lm_head is target.lm_head and drafter.model.embed_tokens is target.model.embed_tokens
    assert len(target.model.layers) == 3 and len(drafter.model.layers) == 1


def test_divergence_sets_alpha():
    tokens = torch.randint(3, 4096, (2, 32), generator=torch.Generator().manual_seed(0))
    alphas = [alpha(*synthetic_pair(layers=4, hidden=64, divergence=d), tokens) for d in (0.0, 0.05, 0.3)]
    assert abs(alphas[0] - 1) < 1e-5
    assert alphas[0] > alphas[1] > alphas[2]


def test_solutions_run_in_bfloat16():
    target, drafter = synthetic_pair(layers=3, hidden=64, dtype=torch.bfloat16)
    prompt = list(range(10, 20))
    ids, rate = speculative_generate(prompt, drafter, target, gamma=3, max_gen_len=12,
                                     logits_processor=GreedyProcessor(), use_cache=True, eos_tokens_id=-1)
    assert len(ids) == 12 and 0 <= rate <= 1
    assert len(autoregressive_generate(prompt, target, max_gen_len=5, use_cache=True, eos_tokens_id=-1)) == 5
