"""The samplers `grader audit` can test, behind one small contract.

An adapter names what it samples from and draws one text at a time::

    adapter.name       # how the report names the sampler
    adapter.target     # the causal LM whose law the output must follow
    adapter.drafter    # the model that drafts (None when drafts come from elsewhere)
    adapter.settings   # Sampling(temperature, top_k, top_p): the law is the target's after these
    adapter.generate(prompt_ids: list[int], seed: int) -> list[int]
                       # exactly ``new_tokens`` generated ids, prompt excluded; the same seed
                       # gives the same ids, different seeds independent draws

The built-in adapters are transformers' assisted generation (``hf-assisted``), its prompt
lookup (``prompt-lookup``) and the course's loops (``lessons``: lessons 3, 7, 8, 9 and 11, from
``--impl``). A user's adapter is a ``.py`` file defining ``make_adapter(target, drafter,
settings, new_tokens)`` that returns an object with the attributes above.
"""
import copy
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from grader import implementation
from grader.audit import BUILT_IN, EAGLE_LOOPS, LOOPS, SUFFIX_LOOPS
from solutions import sampling

NO_EOS = 10**6  # an end token no model produces: every text has its full length
# How far float32 rounding may move the filters' cuts (Sampling.kept_within_rounding). A sampler
# computes its top-p cumulative sums in float32 from a cached forward while the audit computes
# them in float64 from one forward over the text: on the tiny pair (text_study.py) the laws
# differ by up to 3.7e-6 and the nucleus's last token was in one and not the other in 10 of
# 3,000 audits. Both slacks are over 25 times those gaps.
ROUNDING_MASS = 1e-4  # top-p's cut, in probability mass
ROUNDING_LOGIT = 1e-4  # top-k's cut, in logits divided by the temperature


class AdapterError(Exception):
    """An adapter that cannot be built or broke its contract: the message says which and why."""


@dataclass(frozen=True)
class Sampling:
    """The sampling settings; the law under test is the target's after them.

    ``top_k``: None keeps every token; ``top_p``: None (or 1) keeps the whole mass.
    ``top_p_first``: the top-p cutoff taken on the law before top-k and intersected with
    top-k's tokens (SGLang's convention) instead of on what top-k left, renormalised
    (transformers' order, the default).
    """
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    top_p_first: bool = False

    def __post_init__(self):
        if not self.temperature > 0:
            raise AdapterError(f"temperature must be > 0, got {self.temperature}: the audit tests "
                               "sampling (greedy output is checked by `grader check`)")
        if self.top_k is not None and not (isinstance(self.top_k, int) and self.top_k >= 1):
            raise AdapterError(f"top_k must be None or an int >= 1, got {self.top_k!r}")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise AdapterError(f"top_p must be None or in (0, 1], got {self.top_p!r}")

    def processor(self, vocab_size: int) -> sampling.LogitsProcessor:
        """The course's processor for these settings: temperature, then top-k, then top-p
        (the order transformers applies them in), or top-p then top-k with ``top_p_first``."""
        kind = TopPThenTopK if self.top_p_first else sampling.TopKNucleusProcessor
        return kind(self.temperature, self.top_k or vocab_size, self.top_p or 1.0)

    def kept_within_rounding(self, logits: torch.Tensor) -> torch.Tensor:
        """``[..., V]`` bool: the tokens these settings keep for ``logits`` ``[..., V]``, or would
        keep were their cuts moved by float32 rounding (top-p's raised by ``ROUNDING_MASS``,
        top-k's lowered by ``ROUNDING_LOGIT``), in the processor's order. A token outside the
        law's support but inside these is at the filter's edge: an exact float32 sampler may
        draw it, so the support test does not count it (``pit.support_test``)."""
        x = logits.double() / self.temperature

        def top_k(x):
            if self.top_k is None or self.top_k >= x.shape[-1]:
                return x
            return x.masked_fill(x < x.topk(self.top_k, dim=-1).values[..., -1:] - ROUNDING_LOGIT, float("-inf"))

        def top_p(x):
            return x if self.top_p is None else sampling.keep_top_p(x, min(1.0, self.top_p + ROUNDING_MASS))

        return (top_k(top_p(x)) if self.top_p_first else top_p(top_k(x))) > float("-inf")

    def hf_kwargs(self) -> dict:
        """The same settings as transformers' ``generate`` arguments (0 and 1.0 switch off
        its top-k and top-p, whose defaults may come from a model's generation config)."""
        if self.top_p_first and self.top_k and self.top_p not in (None, 1.0):
            raise AdapterError("transformers applies top-k before top-p; a top-p cutoff on the law before "
                               "top-k (top_p_first) cannot be asked of its generate")
        return dict(do_sample=True, temperature=self.temperature, top_k=self.top_k or 0,
                    top_p=self.top_p or 1.0)

    def __str__(self) -> str:
        return (f"temperature {self.temperature:g}, top-k {self.top_k or 'off'}, "
                f"top-p {self.top_p if self.top_p not in (None, 1.0) else 'off'}"
                + (" (taken on the law before top-k)" if self.top_p_first else ""))


class TopPThenTopK(sampling.TopKNucleusProcessor):
    """The nucleus of the law before top-k, intersected with top-k's tokens (SGLang's
    convention): top-p first, then top-k of what it kept (the k likeliest of a prefix of the
    decreasing order are top-k's own)."""

    def _filter(self, logits: torch.Tensor) -> torch.Tensor:
        return sampling.keep_top_k(sampling.keep_top_p(logits, self.top_p), self.top_k)


class HFAssisted:
    """transformers' assisted generation: ``target.generate(assistant_model=drafter)`` with
    a constant ``num_assistant_tokens = gamma`` drafts per round (set on the drafter's own
    generation config, where transformers reads it)."""

    def __init__(self, target, drafter, settings: Sampling, new_tokens: int, gamma: int = 4):
        self.name = f"transformers assisted generation (num_assistant_tokens={gamma}, constant)"
        self.target, self.drafter, self.settings, self.new_tokens = target, drafter, settings, new_tokens
        drafter.generation_config.num_assistant_tokens = gamma
        drafter.generation_config.num_assistant_tokens_schedule = "constant"

    def generate(self, prompt_ids: list[int], seed: int) -> list[int]:
        return hf_generate(self.target, prompt_ids, seed, self.new_tokens, self.settings,
                           assistant_model=self.drafter)


class HFPromptLookup:
    """transformers' prompt-lookup decoding: drafts copied from earlier text
    (``prompt_lookup_num_tokens = gamma``), verified by the target."""

    def __init__(self, target, drafter, settings: Sampling, new_tokens: int, gamma: int = 4):
        self.name = f"transformers prompt lookup (prompt_lookup_num_tokens={gamma})"
        self.target, self.drafter, self.settings, self.new_tokens = target, None, settings, new_tokens
        self.gamma = gamma

    def generate(self, prompt_ids: list[int], seed: int) -> list[int]:
        return hf_generate(self.target, prompt_ids, seed, self.new_tokens, self.settings,
                           prompt_lookup_num_tokens=self.gamma)


def hf_generate(target, prompt_ids: list[int], seed: int, new_tokens: int, settings: Sampling, **how) -> list[int]:
    """``target.generate`` for exactly ``new_tokens`` tokens (no end token), seeded."""
    from transformers.utils import logging as transformers_logging

    transformers_logging.set_verbosity_error()  # its notes on generation arguments are noise here
    torch.manual_seed(seed)
    ids = torch.tensor([prompt_ids], device=target.device)
    out = target.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens,
                          min_new_tokens=new_tokens, eos_token_id=None, pad_token_id=0,
                          **settings.hf_kwargs(), **how)
    return out[0, len(prompt_ids):].tolist()


class CourseLoop:
    """One of the course's speculative loops from an implementation (``--impl``). Lesson 11's
    loops draft with ``head``, by default the implementation's ``load_feature_head(target)``
    (the shipped head); lesson 12's from the text so far and ``corpus`` (an index such as
    ``corpus_index()``, or None: the text's own alone). Neither has a drafter model, so
    ``drafter`` is None for them."""

    def __init__(self, target, drafter, settings: Sampling, new_tokens: int, gamma: int = 4,
                 impl: str = implementation.DEFAULT_IMPL, loop: str = "speculative_generate", head=None,
                 corpus=None):
        if loop not in LOOPS:
            raise AdapterError(f"unknown loop {loop!r}; expected one of {', '.join(LOOPS)}")
        module, function = LOOPS[loop]
        try:
            lesson = implementation.load(impl, module)
            self.function = getattr(lesson, function)
            self.head = head or (lesson.load_feature_head(target) if loop in EAGLE_LOOPS else None)
        except (implementation.ImplementationNotFound, ImportError, AttributeError) as exc:
            raise AdapterError(f"cannot take {function} from --impl {impl}: {exc}") from exc
        except (ValueError, RuntimeError) as exc:  # a head saved for another target's shape
            raise AdapterError(f"{function} drafts with the feature head trained for the shipped target, "
                               f"which does not fit this target: {exc}") from exc
        suffix_trees = f"its default trees from the text{' and the corpus' if corpus is not None else ''}"
        shape = {"tree_speculative_generate": "branching=(2, 2, 1)", "eagle_tree_generate": "its default tree",
                 **dict.fromkeys(SUFFIX_LOOPS, suffix_trees)}.get(loop, f"gamma={gamma}")
        self.name = f"{function} from {impl} ({shape})"
        self.target, self.settings, self.new_tokens, self.corpus = target, settings, new_tokens, corpus
        self.drafter = None if loop in EAGLE_LOOPS or loop in SUFFIX_LOOPS else drafter
        self.loop, self.gamma = loop, gamma
        self.processor = settings.processor(target.config.vocab_size)
        if self.head is not None:  # the drafter tests then read the head's q, not an unrelated drafter's
            self.region_model = HeadAlongText(target, self.head)

    def at(self, settings: Sampling) -> "CourseLoop":
        """This loop under other sampling settings (the same function, head and corpus)."""
        moved = copy.copy(self)
        moved.settings, moved.processor = settings, settings.processor(self.target.config.vocab_size)
        return moved

    def generate(self, prompt_ids: list[int], seed: int) -> list[int]:
        torch.manual_seed(seed)
        common = dict(logits_processor=self.processor, max_gen_len=self.new_tokens, eos_tokens_id=NO_EOS)
        try:
            if self.loop == "speculative_generate":
                return self.function(prompt_ids, self.drafter, self.target, gamma=self.gamma,
                                     use_cache=True, **common)[0]
            if self.loop == "fast_speculative_generate":
                return self.function(prompt_ids, self.drafter, self.target, gamma=self.gamma,
                                     compile=False, **common)[0]
            if self.loop == "batched_speculative_generate":
                return self.function([prompt_ids], self.drafter, self.target, gamma=self.gamma, **common)[0][0]
            if self.loop == "eagle_generate":
                return self.function(prompt_ids, self.target, self.head, gamma=self.gamma, **common)[0]
            if self.loop == "eagle_tree_generate":
                return self.function(prompt_ids, self.target, self.head, **common)[0]
            if self.loop == "suffix_speculative_generate":
                return self.function(prompt_ids, self.target, self.corpus, **common)[0]
            if self.loop == "fast_suffix_speculative_generate":
                return self.function(prompt_ids, self.target, self.corpus, compile=False, **common)[0]
            return self.function(prompt_ids, self.drafter, self.target, use_cache=True, **common)[0]
        except NotImplementedError as exc:
            raise AdapterError(f"{self.name}: not started (it raises NotImplementedError); write it, "
                               "or audit the reference with --impl solutions") from exc


class HeadAlongText:
    """Lesson 11's feature head as the model whose law the audit's drafter tests read: called on
    a text ``[1, L]`` it returns ``.logits`` ``[1, L, V]`` whose row ``t`` scores token ``t + 1``,
    as a causal LM's does. That row is the head's logits from the pairs ``(f_s, x_{s+1})``,
    ``s < t`` (``f_s`` the target's features, from one target forward): the q of a round's first
    draft there (later drafts of a round read the head's own predicted features instead). Row
    0 has no pair before it and holds zeros, a law the audit never reads (prompts are longer)."""

    def __init__(self, target, head):
        self.target, self.head, self.device = target, head, target.device

    @torch.inference_mode()
    def __call__(self, text: torch.Tensor):
        from transformers import DynamicCache

        from solutions.eagle import feature_draft_step, target_step

        features, target_logits = target_step(self.target, text, DynamicCache())
        _, head_logits = feature_draft_step(self.head, features[:, :-1], text[:, 1:], None)
        return _Logits(torch.cat([torch.zeros_like(target_logits[:, :1]), head_logits.to(target_logits.dtype)], 1))


@dataclass(frozen=True)
class _Logits:
    logits: torch.Tensor


def load_adapter_file(path: str, target, drafter, settings: Sampling, new_tokens: int):
    """A user's adapter: ``make_adapter(target, drafter, settings, new_tokens)`` from ``path``."""
    file = Path(path)
    if not file.is_file():
        raise AdapterError(f"no adapter file at {path!r}; expected one of {', '.join(BUILT_IN)} or a "
                           ".py file defining make_adapter(target, drafter, settings, new_tokens)")
    spec = importlib.util.spec_from_file_location(f"audit_adapter_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if not callable(getattr(module, "make_adapter", None)):
        raise AdapterError(f"{path} defines no make_adapter(target, drafter, settings, new_tokens)")
    adapter = module.make_adapter(target, drafter, settings, new_tokens)
    missing = [a for a in ("name", "target", "drafter", "settings", "generate") if not hasattr(adapter, a)]
    if missing:
        raise AdapterError(f"the adapter from {path} lacks {', '.join(missing)}; an adapter has name, "
                           "target, drafter, settings and generate(prompt_ids, seed) -> ids")
    return adapter


def make(sampler: str, target, drafter, settings: Sampling, new_tokens: int, gamma: int = 4,
         impl: str = implementation.DEFAULT_IMPL, loop: str = "speculative_generate", head=None, corpus=None):
    """The adapter ``sampler`` names: a built-in one or a user's file (``head``: the feature
    head of lesson 11's loops, when not the implementation's shipped one; ``corpus``: the
    index lesson 12's loops read beside the text's own)."""
    if sampler == "hf-assisted":
        return HFAssisted(target, drafter, settings, new_tokens, gamma)
    if sampler == "prompt-lookup":
        return HFPromptLookup(target, drafter, settings, new_tokens, gamma)
    if sampler == "lessons":
        return CourseLoop(target, drafter, settings, new_tokens, gamma, impl, loop, head, corpus)
    return load_adapter_file(sampler, target, drafter, settings, new_tokens)


def checked_generate(adapter, prompt_ids: list[int], seed: int, new_tokens: int, vocab_size: int) -> list[int]:
    """``adapter.generate``, its output checked against the contract."""
    ids = adapter.generate(list(prompt_ids), seed)
    if isinstance(ids, torch.Tensor):
        ids = ids.tolist()
    if not (isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
        raise AdapterError(f"{adapter.name}: generate returned {type(ids).__name__} {str(ids)[:80]}; "
                           "expected a list of int token ids (the generated ids, prompt excluded)")
    if len(ids) != new_tokens:
        raise AdapterError(f"{adapter.name}: generate returned {len(ids)} ids; expected {new_tokens} "
                           "(no end token stops the text)")
    if any(not 0 <= i < vocab_size for i in ids):
        raise AdapterError(f"{adapter.name}: generate returned ids outside the vocabulary [0, {vocab_size})")
    return ids
