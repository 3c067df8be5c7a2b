"""The feature_draft check's expected values: the reference's step on the same pairs."""
import torch

from grader.checks.feature_draft import SHAPE_HINT
from grader.checks.harness import CheckRun
from solutions.eagle import feature_draft_step

TOLERANCE = 1e-9  # float64


@torch.no_grad()
def same_as_reference(check: CheckRun, case: str, head, features, tokens, got) -> None:
    expected = feature_draft_step(head, features, tokens, None)
    gaps = [float((g - e.double()).abs().max()) for g, e in zip(got, expected)]
    check.require("values", max(gaps) <= TOLERANCE,
                  f"next_features differ by up to {gaps[0]:.3g} and logits by up to {gaps[1]:.3g} from the "
                  "head's forward on these pairs: [feature ; embedding of the token] → fc → decoder → LM head",
                  SHAPE_HINT, case=case)
