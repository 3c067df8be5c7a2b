"""bfloat16 told honestly: where a half-precision greedy run leaves greedy decoding, the
helper finds the position and shows the two top logits there within a few spacings of
bfloat16; a difference that rounding cannot explain is called so."""
import pytest
import torch

from grader.bench.half_precision import NEAR_TIE_SPACINGS, first_divergence, spacing
from grader.models import load_pair
from solutions.autoregressive import autoregressive_generate
from solutions.speculative import speculative_generate

NO_EOS = -1


@pytest.fixture(scope="module")
def half_pair():
    target, drafter, _ = load_pair("cpu", dtype=torch.bfloat16)
    return target, drafter


def prompt_of(seed: int) -> list[int]:
    return torch.randint(3, 4000, (12,), generator=torch.Generator().manual_seed(seed)).tolist()


def test_spacing_is_the_gap_between_neighbours():
    assert spacing(5.0) == 1 / 32 and spacing(-5.0) == 1 / 32 and spacing(19.5) == 1 / 8
    assert spacing(5.0, torch.float32) == 2.0 ** -21
    for value in (0.3, 5.0, 19.5, 700.0):
        x = torch.tensor(value, dtype=torch.bfloat16)
        assert float(torch.nextafter(x, torch.tensor(1e9, dtype=torch.bfloat16)) - x) == spacing(float(x))


def test_equal_outputs_have_no_divergence(half_pair):
    target, _ = half_pair
    assert first_divergence(target, [5, 6], [1, 2, 3], [1, 2, 3, 4]) is None


def test_a_token_far_below_the_top_is_not_called_a_near_tie(half_pair):
    target, _ = half_pair
    prompt = prompt_of(0)
    greedy = autoregressive_generate(prompt, target, max_gen_len=8, eos_tokens_id=NO_EOS, use_cache=True)
    with torch.inference_mode():
        logits = target(torch.tensor([prompt + greedy[:3]])).logits[0, -1]
    worst = int(logits.argmin())
    found = first_divergence(target, prompt, greedy[:3] + [worst], greedy)
    assert (found.position, found.ours, found.greedy, found.top_tokens[0]) == (3, worst, greedy[3], greedy[3])
    assert not found.near_tie and "not a near-tie" in found.describe()


def test_half_precision_loops_leave_greedy_decoding_only_at_near_ties(half_pair):
    """Speculative decoding (its batched verification) against greedy decoding, both in
    bfloat16 on the shipped pair: they differ on some prompts, and every first difference
    is between the two top tokens, within NEAR_TIE_SPACINGS spacings of each other."""
    target, drafter = half_pair
    found = []
    for seed in range(8):
        prompt = prompt_of(seed)
        greedy = autoregressive_generate(prompt, target, max_gen_len=48, eos_tokens_id=NO_EOS, use_cache=True)
        ours, _ = speculative_generate(prompt, drafter, target, gamma=4, max_gen_len=48, eos_tokens_id=NO_EOS,
                                       use_cache=True)
        divergence = first_divergence(target, prompt, ours, greedy)
        if divergence is not None:
            found.append(divergence)
    assert found, "no prompt gave a different bfloat16 output on this CPU"
    for divergence in found:
        assert divergence.near_tie, divergence.describe()
        assert 0 <= divergence.spacings <= NEAR_TIE_SPACINGS
        assert "a near-tie" in divergence.describe()
    print("\n\n".join(d.describe() for d in found))
