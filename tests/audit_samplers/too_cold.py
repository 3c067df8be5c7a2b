"""A sampler too cold by r = 0.18: the target sampled at T / 1.18 (0.85 of the temperature)
while its settings say T, a deviation below the audit's stated power for a colder sampler
(docs/audit.md). Audit it with ``grader audit tests/audit_samplers/too_cold.py``;
scripts/audit_too_cold.py measures how often the default draws catch it."""
from grader.audit.adapters import Sampling, hf_generate

COLDER = 1.18  # sampling at T / (1 + r), r = 0.18


class TooCold:
    def __init__(self, target, settings: Sampling, new_tokens: int, colder: float = COLDER):
        self.name = f"the target at T / {colder:g} (too cold by r = {colder - 1:.2f})"
        self.target, self.drafter, self.settings, self.new_tokens = target, None, settings, new_tokens
        self.cold = Sampling(settings.temperature / colder, settings.top_k, settings.top_p)

    def generate(self, prompt_ids: list[int], seed: int) -> list[int]:
        return hf_generate(self.target, prompt_ids, seed, self.new_tokens, self.cold)


def make_adapter(target, drafter, settings, new_tokens):
    return TooCold(target, settings, new_tokens)
