"""Draw texts from a sampler and record the target's (and drafter's) law at every token.

The laws come from one forward per text and model, over the prompt and the whole generated
text: row ``j`` of the logits is the law of generated token ``j`` given everything before it,
the same law the sampler had to follow there.
"""
import time
from contextlib import nullcontext
from dataclasses import dataclass, fields

import numpy as np
import torch
from tqdm import tqdm

from grader.audit.adapters import checked_generate
from grader.audit.pit import TokenStatistics, row_evidence, token_statistics

CHUNK = 1024  # tokens whose laws are processed at once (memory: a few [CHUNK, V] float64 arrays)


@dataclass
class Record:
    """What an audit drew: ``outputs`` ``[texts, L]``, the raw logits ``[texts, L, V]`` of the
    target and of the region's drafter (float32, on the CPU), the per-token statistics."""
    prompts: list[list[int]]
    outputs: np.ndarray
    target_logits: torch.Tensor
    drafter_logits: torch.Tensor | None
    token_stats: TokenStatistics
    seconds: float

    @property
    def tokens(self) -> int:
        return self.outputs.size


def text_seed(seed: int, index: int) -> int:
    """The sampler's seed for text ``index`` of an audit run with ``seed``."""
    return seed * 1_000_003 + index


def logits_along(model, prompt: list[int], ids: list[int]) -> torch.Tensor:
    """``[len(ids), V]``: the logits of each generated token given the text before it."""
    return logits_of_texts(model, torch.tensor([prompt + ids]), len(prompt))[0]


@torch.inference_mode()
def logits_of_texts(model, texts: torch.Tensor, prompt_length: int) -> torch.Tensor:
    """``[B, L, V]`` float32 on the CPU: for texts ``[B, prompt_length + L]`` (token ids, one
    prompt length), the logits of each generated token given the text before it, from one
    forward over the whole texts."""
    return model(texts.to(model.device)).logits[:, prompt_length - 1 : -1].float().cpu()


def phase(phases, name: str):
    """``phases(name)`` (grader/bench/timing.py's ``Phases``: the phase timed, the other work
    beside it measured), or nothing when no ``phases`` is kept."""
    return nullcontext() if phases is None else phases(name)


def draw(adapter, prompts: list[list[int]], texts: int, new_tokens: int, seed: int,
         region_model=None, progress: bool = False, phases=None, first_text: int = 0) -> Record:
    """``texts`` texts from ``adapter`` (prompts cycled, text ``i`` seeded ``text_seed(seed, i)``)
    and their statistics; ``region_model`` (the adapter's drafter by default) gives q;
    ``progress`` shows bars with the time left on stderr (texts drawn, then forwards run);
    ``phases`` (a ``Phases``) times the sampler's texts and the laws along them apart;
    ``first_text`` numbers the texts from there (seeds and PIT uniforms apart from texts
    0 … first_text − 1 of the same audit, for a second record joined to the first)."""
    vocab = adapter.target.config.vocab_size
    region_model = adapter.drafter if adapter.drafter is not None else region_model
    start = time.perf_counter()
    used = [prompts[i % len(prompts)] for i in range(first_text, first_text + texts)]
    bar = {"disable": not progress, "leave": False}
    with phase(phases, "the sampler's texts"):
        outputs = [checked_generate(adapter, prompt, text_seed(seed, first_text + i), new_tokens, vocab)
                   for i, prompt in enumerate(tqdm(used, desc="drawing texts", unit="text", **bar))]
    with phase(phases, "the laws along them"):
        record = laws_along(adapter, used, outputs, seed, region_model, progress, first_text)
    return Record(used, np.array(outputs), *record, time.perf_counter() - start)


def joined(first: Record, second: Record) -> Record:
    """One record of ``first``'s texts then ``second``'s (the same tokens per text; both with a
    drafter's logits or neither): the audit's tests hold over texts drawn under different
    settings, each token's statistics being taken under its own text's law."""
    def both(a, b):
        return None if a is None else torch.cat([a, b]) if isinstance(a, torch.Tensor) else np.concatenate([a, b])

    stats = TokenStatistics(*(both(getattr(first.token_stats, f.name), getattr(second.token_stats, f.name))
                              for f in fields(TokenStatistics)))
    return Record(first.prompts + second.prompts, both(first.outputs, second.outputs),
                  both(first.target_logits, second.target_logits), both(first.drafter_logits, second.drafter_logits),
                  stats, first.seconds + second.seconds)


def laws_along(adapter, used: list[list[int]], outputs: list[list[int]], seed: int,
               region_model, progress: bool, first_text: int = 0) -> tuple:
    """``(target_logits, drafter_logits, token_stats)`` of ``Record`` for the texts ``outputs``
    drawn after the prompts ``used``: one forward per text and model, then the statistics
    (``first_text``: as in ``draw``, the PIT uniforms' stream)."""
    texts = len(outputs)
    bar = {"disable": not progress, "leave": False}
    models = [adapter.target] + ([region_model] if region_model is not None else [])
    forwards = [(model, p, o) for model in models for p, o in zip(used, outputs)]
    logits = [logits_along(*forward) for forward in tqdm(forwards, desc="the laws along them", unit="forward", **bar)]
    target_logits = torch.stack(logits[:texts])
    drafter_logits = torch.stack(logits[texts:]) if region_model is not None else None
    return target_logits, drafter_logits, statistics_along(adapter.settings, target_logits, drafter_logits,
                                                           torch.tensor(outputs), seed, first_text)


def statistics_along(settings, target_logits: torch.Tensor, drafter_logits: torch.Tensor | None,
                     outputs: torch.Tensor, seed: int, first_text: int = 0) -> TokenStatistics:
    """The audit's statistics of texts ``outputs`` ``[texts, L]`` from the logits along them
    ``[texts, L, V]`` (the target's, and the drafter's or None): the laws after ``settings``
    (an ``adapters.Sampling``) in float64, the audit's PIT uniforms from ``seed`` (and
    ``first_text``, as in ``draw``), the tests' fields, the diagnosis's row evidence and the
    tokens at a filter's edge within float32 rounding (``at_edge``)."""
    texts, new_tokens, vocab = target_logits.shape
    processor = settings.processor(vocab)
    tokens = outputs.reshape(-1)
    stream = [seed, 1] + ([first_text] if first_text else [])  # texts from 0: the stream earlier audits used
    uniforms = torch.from_numpy(np.random.default_rng(stream).random(tokens.numel()))
    unfiltered = type(settings)(settings.temperature).processor(vocab)  # for row_evidence
    first = torch.arange(tokens.numel()) % new_tokens == 0
    parts = []
    whole_texts = max(1, CHUNK // new_tokens) * new_tokens  # chunks of whole texts: row_evidence reads the row before
    for rows in torch.arange(tokens.numel()).split(whole_texts):  # [about CHUNK, V] float64 at a time
        logits = target_logits.reshape(-1, vocab)[rows].double()
        p = processor(logits)
        q = processor(drafter_logits.reshape(-1, vocab)[rows].double()) if drafter_logits is not None else None
        edge = settings.kept_within_rounding(logits).gather(-1, tokens[rows, None])[:, 0] & (
            p.gather(-1, tokens[rows, None])[:, 0] <= 0)
        parts.append(token_statistics(p, q, tokens[rows], uniforms[rows])
                     + row_evidence(p, unfiltered(logits), tokens[rows], uniforms[rows], first[rows])
                     + (edge.double().numpy(),))
    shaped = [np.concatenate(column).reshape(texts, new_tokens) for column in zip(*parts)]
    return TokenStatistics(*shaped)
