"""A plain speculative sampler whose steps can be swapped: the base of the replayed engine bugs.

The real bugs of speculative samplers (tests/audit_samplers/, one file per published issue;
``python scripts/audit_replays.py`` audits them all) each change one step of the same loop:
how a draft is drawn and which law q the verifier is told it came from, or how the verifier
accepts, corrects and adds the bonus token. ``ReplayLoop`` is that loop, written for clarity
rather than speed (no cache: each forward reads the whole text), with each step a method a
replay overrides. Left as it is, it is exact (Leviathan et al. 2022): tests/test_audit.py holds
that the unchanged loop passes.

A round, from the text so far:

- ``draft(logits [V]) -> (token, q_told [V])`` k times: the drafter's logits at the end of the
  text it reads (``drafter_text``: the text and the round's drafts so far), the token appended,
  and the law the verifier will use as q for it;
- one target forward over the text and its k drafts: ``p`` ``[k + 1, V]`` after the settings
  (``target_law``), row i for draft i, row k for the bonus token;
- ``verify(p, q_told [k, V], drafts [k]) -> (n, token)``: keep ``drafts[:n]``, then ``token``.

The adapter contract is grader/audit/adapters.py's: ``generate(prompt_ids, seed)`` returns
exactly ``new_tokens`` ids, seeded with ``torch.manual_seed(seed)``.
"""
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import torch

from grader.audit.adapters import Sampling
from solutions.verification import speculative_sampling


class ReplayLoop:
    """The exact loop; subclasses override ``draft``, ``target_law`` or ``verify``."""

    name = "an exact speculative loop (the replays' base)"

    def __init__(self, target, drafter, settings: Sampling, new_tokens: int, gamma: int = 4):
        self.target, self.drafter, self.settings, self.new_tokens, self.gamma = \
            target, drafter, settings, new_tokens, gamma
        self.processor = settings.processor(target.config.vocab_size)

    @torch.inference_mode()
    def generate(self, prompt_ids: list[int], seed: int) -> list[int]:
        torch.manual_seed(seed)
        ids = list(prompt_ids)
        while len(ids) - len(prompt_ids) < self.new_tokens:
            k = min(self.gamma, self.new_tokens - (len(ids) - len(prompt_ids)) - 1)  # room for the target's token
            drafts, q_rows = [], []
            for _ in range(k):
                token, q_told = self.draft(self.logits(self.drafter, self.drafter_text(ids, drafts))[-1])
                drafts.append(int(token))
                q_rows.append(q_told)
            p = self.target_law(self.logits(self.target, ids + drafts)[-(k + 1):])
            q = torch.stack(q_rows) if q_rows else p[:0]
            n, token = self.verify(p, q, torch.tensor(drafts, dtype=torch.long))
            ids += drafts[:int(n)] + [int(token)]
        return ids[len(prompt_ids):]

    @staticmethod
    def logits(model, ids: list[int]) -> torch.Tensor:
        """``[len(ids), V]``: the model's logits at every position of ``ids``, float32."""
        return model(torch.tensor([ids], device=model.device)).logits[0].float().cpu()

    def drafter_text(self, ids: list[int], drafts: list[int]) -> list[int]:
        """The text the drafter reads before its next draft: the text so far and this round's
        drafts (a replay whose drafter cache is not rolled back reads more)."""
        return ids + drafts

    def draft(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """One draft from the drafter's ``logits`` ``[V]``: sampled from q after the settings,
        and that q is what the verifier is told."""
        q = self.processor(logits)
        return self.processor.sample(q), q

    def target_law(self, logits: torch.Tensor) -> torch.Tensor:
        """p ``[k + 1, V]``: the target's law after the settings at the k + 1 verified rows."""
        return self.processor(logits)

    def verify(self, p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor) -> tuple[int, int]:
        """Speculative sampling (the course's reference): accept draft i with min(1, p/q), at the
        first rejection draw from max(p − q, 0) normalised, after k acceptances from p[k]."""
        return speculative_sampling(p, q, drafts)


def make_replay(cls):
    """``make_adapter`` for a replay module: the grader audit contract for ``cls``."""
    def make_adapter(target, drafter, settings, new_tokens):
        return cls(target, drafter, settings, new_tokens)
    return make_adapter


@dataclass(frozen=True)
class Replay:
    """One replayed bug: its file (an adapter file for ``grader audit``), the engine, the issue
    cited (``owner/repo#N``), the mechanism in a line, the verdict ``grader audit --quick``
    gives it at seed 0 (measured; tests/test_audit.py holds it), and the settings it is audited
    under where the bug needs others than the audit's defaults (None: the defaults)."""
    path: Path
    engine: str
    issue: str
    mechanism: str
    quick_verdict: str
    settings: Sampling | None = None


def replays(folder: Path) -> list[Replay]:
    """The replays in ``folder``: every ``*.py`` file that declares ``ISSUE`` (others, such as
    a sampler that replays no published bug, are skipped), in name order. A replay file also
    declares ``ENGINE``, ``MECHANISM``, ``QUICK_VERDICT`` ("PASS" or "FAIL") and ``make_adapter``,
    and ``SETTINGS`` (a ``Sampling``) where its bug shows only under other settings."""
    found = []
    for path in sorted(Path(folder).glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"audit_replay_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if hasattr(module, "ISSUE"):
            found.append(Replay(path, module.ENGINE, module.ISSUE, module.MECHANISM, module.QUICK_VERDICT,
                                getattr(module, "SETTINGS", None)))
    return found
