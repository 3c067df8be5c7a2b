"""Lesson 11's training-time test: the reference unroll, one masked forward per step, scores
what decoding drafts from each root, one root at a time with its own cache."""
import pytest
import torch
from transformers import DynamicCache

from grader.checks.eagle_generate import models
from solutions.eagle import eagle_loss, feature_draft_step, unrolled_eagle_loss

TARGET, HEAD = models()
TOKENS = torch.randint(0, TARGET.config.vocab_size, (2, 7), generator=torch.Generator().manual_seed(3))
with torch.no_grad():
    OUT = TARGET(TOKENS, output_hidden_states=True)
FEATURES, LOGITS = OUT.hidden_states[-1], OUT.logits


def drafted(steps: int) -> list[torch.Tensor]:
    """Each step's predicted features ``[B, T − 1 − j, d]``, drafted root by root as
    eagle_generate drafts: the true pairs up to the root, then the head's own features."""
    length = TOKENS.shape[1]
    chains = [[] for _ in range(steps)]
    for root in range(length - 1):
        cache = DynamicCache()
        predicted, _ = feature_draft_step(HEAD, FEATURES[:, :root + 1], TOKENS[:, 1:root + 2], cache)
        predicted = predicted[:, -1:]
        for step in range(min(steps, length - 1 - root)):
            if step:
                token = TOKENS[:, root + step + 1:root + step + 2]
                predicted, _ = feature_draft_step(HEAD, predicted, token, cache)
            chains[step].append(predicted)
    return [torch.cat(chain, dim=1) for chain in chains]


@pytest.mark.parametrize("steps", [1, 2, 4, 6])
def test_the_unroll_scores_what_decoding_drafts_from_every_root(steps):
    expected = sum(eagle_loss(predicted, FEATURES[:, step + 1:], HEAD.lm_head(predicted), LOGITS[:, step + 1:],
                              0.5, 2.0) for step, predicted in enumerate(drafted(steps))) / steps
    got = unrolled_eagle_loss(HEAD, FEATURES, TOKENS, LOGITS, steps, feature_weight=0.5, token_weight=2.0)
    assert abs(float(got) - float(expected)) < 1e-12
