"""Lesson 7 — the fast loop: one static cache per model, rollback by moving a counter,
compiled steps of fixed shape.

Lessons 3–4 grow a ``DynamicCache`` by concatenation and crop it by slicing: every step
allocates, and every step has a new shape, so nothing can be compiled. Real systems
(gpt-fast, vLLM, transformers' own ``generate``) do three things instead:

1. **One static cache per model.** A transformers ``StaticCache`` allocates its keys and
   values once, ``[1, heads, N, head_dim]`` per layer, and every forward writes into it in
   place. In transformers 5.24 each layer writes at its own on-device counter
   (``cumulative_length``, a 0-dim LongTensor): ``m`` fed tokens land at
   ``counter … counter + m − 1`` and the counter moves on by ``m``.
2. **Rollback = moving the write position back.** ``cache.crop(-m)`` subtracts ``m`` from
   every layer's counter, on the device, without a host sync. The rejected drafts' keys
   and values stay in memory: the causal mask (its offset is the counter, so each query
   sees only positions up to its own) hides them, and the next forward overwrites them.
   The one rule: the positions a forward feeds (``position_ids``, which rotate the keys)
   must be the counter's positions, ``counter … counter + m − 1``. Feed position 7 while
   the counter says 9 and the keys land at 9 with the rotation of 7: wrong logits, no error.
   (transformers 4 called these positions ``cache_position`` and took them as an argument;
   5.24 has no such argument and silently ignores one.)
3. **Fixed shapes, compiled once.** The drafter always runs ``[1, 1]`` steps and the
   target always verifies ``[1, gamma + 1]`` tokens, even in the last, shorter rounds, so
   ``torch.compile`` builds exactly two graphs and replays them (CUDA graphs on a GPU, a
   C++ wrapper on a CPU): no Python dispatch per operator, no allocation per step. The
   cache's length is rounded up to ``CACHE_BLOCK`` and the cache is kept per model across
   calls, so another prompt length compiles nothing new. The prefill, whose shape is the
   prompt's, runs eagerly: it happens once per call.

What is left per step is mostly the graphs' own work, and dynamo's check that a call may
reuse a graph (its guards); ``StaticModel.step`` checks them fully once per shape only.

The output law is the one of ``solutions.speculative.speculative_generate``; greedy output
equals greedy target-only decoding token for token.

Exercise ``static_cache``: write ``fast_speculative_generate`` (with its two steps
``draft`` and ``roll_back``) and ``fast_autoregressive_generate``, then run
``grader check static_cache``. ``StaticModel`` (a model, its cache and its compiled step),
the cache sizing and the compiling are provided complete below the stubs: read them, the
loop is built on them. Try ``compile=False`` first: the same code runs eagerly, and every
error message is a plain Python one.
"""
import warnings
import weakref

import torch
from transformers import StaticCache

from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
from lessons.speculative import settle  # noqa: F401  (your lesson-3 step: n and the first end token)
from lessons.verification import speculative_sampling  # noqa: F401  (your lesson-2 verifier)
from solutions.sampling import GreedyProcessor, LogitsProcessor  # the course's (below)

# Earlier steps this lesson calls, and the exercise that grades each:
#   speculative_sampling (lesson 2: `grader check speculative_sampling`)
#   settle (lesson 3's step: `grader check speculative_generate`)
# Not passed yet? Meanwhile take the reference's, in place of the import above:
#   from solutions.verification import speculative_sampling
#   from solutions.speculative import settle
# `grader check` and `grader grade` both accept it: each exercise is graded on its own
# functions, and the reference is refused only for the exercise being graded.
# The default processor, GreedyProcessor, is the course's, so the loop runs before lesson 0
# is done; pass your own processors in (logits_processor=...) to use them.

CACHE_BLOCK = 256  # cache lengths are multiples of this: one compiled graph serves every prompt length


@torch.inference_mode()
def fast_speculative_generate(
    inputs: list[int],
    drafter,
    target,
    gamma: int = 5,
    logits_processor: LogitsProcessor = GreedyProcessor(),
    max_gen_len: int = 40,
    eos_tokens_id: int | list[int] = 1,
    compile: bool = True,
) -> tuple[list[int], float]:
    """Speculative decoding with static caches and compiled steps; same contract as
    ``speculative_generate(..., use_cache=True, first_target=True)``.

    Returns ``(ids, acceptance_rate)``: the generated ids (prompt excluded, stopping right
    after the earliest token of ``eos_tokens_id``, never more than ``max_gen_len``) and
    accepted drafts / drafted tokens, where a round drafts ``k = min(gamma, tokens still
    allowed − 1)`` (0.0 when nothing was drafted).

    Tensors, ``L = len(inputs) + max_gen_len``: the sequence buffer ``ids [1, L + gamma]``
    (room for a whole draft past the last slot); per round the drafter runs ``gamma``
    steps ``[1, 1] -> [1, V]``, the target one verification ``[1, gamma + 1] -> [gamma + 1, V]``.

    A round, with ``end`` the text's length so far (prompt included) and both caches
    holding ``ids[:, :end-1]``:
    draft ``gamma`` tokens into ``ids[end:end+gamma]``; the target scores
    ``ids[end-1:end+gamma]`` (the last token and the drafts); ``speculative_sampling``
    accepts ``n`` of them; then both caches move their counters back to ``end + n``, the
    new ``end - 1``. One host sync per round (``settle`` reads ``n`` and the first end token).

    ``compile=True`` runs the steps through ``torch.compile`` (a warning and eager steps
    where this platform cannot compile); ``compile=False`` runs the same code eagerly.

    Hints, in order:

    - ``ids = sequence_buffer(inputs, L + gamma, device)``, ``stop_ids`` as a tensor; one
      ``StaticModel`` per role: ``static_model(target, "target", L + gamma, compile)`` and
      ``static_model(drafter, "drafter", L + gamma, compile)``.
    - The prefill: ``target_model.prefill(ids, len(inputs))`` gives the target's logits
      ``[V]`` of the first new token; sample it into ``ids``; return if it is an end token
      (or if ``max_gen_len == 1``); then ``draft_model.prefill(ids, len(inputs))``.
    - A round: ``k = min(gamma, L - end - 1)``; ``q = draft(...)`` ``[gamma, V]``;
      ``p = logits_processor(target_model.step(ids, end - 1, gamma + 1))``
      ``[gamma + 1, V]``; ``speculative_sampling(p, q, ids[0, end:end + gamma])``; write its
      token with ``ids.index_copy_``; then ``n, first_stop = settle(ids[0, end:end + k + 1],
      rejected_idx.clamp(max=k), stop_ids)``: only the first ``k`` drafts count.
    - Why drafting ``gamma`` but counting ``k`` keeps the law: the verifier decides the
      drafts in order, so its first ``k`` decisions do not depend on what follows; and the
      token at position ``k`` (draft ``k`` accepted, or resampled from the residual) follows
      ``p_k``, exactly as the bonus of a ``k``-draft round would. Write it as a comment.
    - Stop after an end token or when ``L`` tokens are there; otherwise ``roll_back`` and
      ``end += n + 1``.
    """
    raise NotImplementedError


@torch.inference_mode()
def fast_autoregressive_generate(
    inputs: list[int],
    model,
    max_gen_len: int = 40,
    logits_processor: LogitsProcessor = GreedyProcessor(),
    eos_tokens_id: int | list[int] = 1,
    compile: bool = True,
) -> list[int]:
    """The baseline, made fast the same way: one static cache, compiled ``[1, 1]`` steps.

    Same contract as ``autoregressive_generate(..., use_cache=True)``: the generated ids,
    prompt excluded, stopping right after the first end token. ``ids [1, L]`` with
    ``L = len(inputs) + max_gen_len``; an eager prefill ``[1, len(inputs)]``, then one
    compiled step ``[1, 1] -> [1, V]`` per token and one host sync per token (the end test).

    Hint: ``runner = static_model(model, "target", L, compile)``; the first token's logits
    are ``runner.prefill(ids, len(inputs))``, every later one's
    ``runner.step(ids, end - 1, 1)[0]`` (the cache then holds ``ids[:, :end-1]``).
    """
    raise NotImplementedError


def draft(draft_model: "StaticModel", ids: torch.Tensor, end: int, gamma: int, processor) -> torch.Tensor:
    """Sample ``gamma`` drafts into ``ids[0, end:end+gamma]``; returns their q ``[gamma, V]``.

    The drafter has seen ``ids[:, :end-1]``: step i feeds ``ids[:, end-1+i]`` (``[1, 1]``)
    and samples the token at ``end + i`` on the device. Afterwards it has seen
    ``ids[:, :end-1+gamma]``: every draft but the last.

    Hint: ``draft_model.step(ids, start, 1)`` returns logits ``[1, V]``; sample with
    ``processor.sample`` and write with ``ids[0, end + i] = token`` (a device copy, no sync).
    """
    raise NotImplementedError


def roll_back(draft_model: "StaticModel", target_model: "StaticModel", ids: torch.Tensor, end: int,
              gamma: int, n: int) -> None:
    """After a round that kept ``n`` drafts, leave both caches holding ``ids[:, :end+n]``
    (the new ``end - 1`` tokens: the round's last token is fed next round).

    Where the counters are now: the target verified ``ids[end-1:end+gamma]``; the drafter
    fed ``ids[end-1:end-1+gamma]``, one ``[1, 1]`` step per draft, so it never saw its last
    draft. Move each counter back to ``end + n`` with ``cache.crop(-m)`` (``m >= 0``; ``crop``
    refuses a positive number). One case moves forward instead: when
    every draft was accepted (``n == gamma``) the drafter lags one token behind; feed it
    that token with one more ``draft_model.step`` (still ``[1, 1]``: nothing recompiles).
    No host sync: ``crop`` subtracts on the device, and ``n`` is already a Python int.
    """
    raise NotImplementedError


def sequence_buffer(inputs: list[int], length: int, device) -> torch.Tensor:
    """``[1, length]`` LongTensor on ``device``: the prompt, then zeros to be overwritten."""
    ids = torch.zeros((1, length), dtype=torch.long, device=device)
    ids[0, : len(inputs)] = torch.tensor(inputs, dtype=torch.long, device=device)
    return ids


def cache_length(tokens: int) -> int:
    """``tokens`` rounded up to a multiple of ``CACHE_BLOCK``.

    The compiled graphs are specialised to the cache's shape: a length that depended on
    the prompt would compile the steps again for every prompt length.
    """
    return -(-tokens // CACHE_BLOCK) * CACHE_BLOCK


class StaticModel:
    """A model, its one ``StaticCache`` (``[1, heads, length, head_dim]`` keys and values per
    layer, allocated at the first forward) and its step function (compiled or eager)."""

    def __init__(self, model, length: int):
        self.length = length
        self._model = weakref.ref(model)  # kept per model in _KEPT: a strong reference would keep it alive
        self.cache = StaticCache(config=model.config, max_cache_len=length)
        self.step_fn = forward_step
        self.warm: set[int] = set()  # step lengths whose compiled graph has run once

    @property
    def model(self):
        return self._model()

    def prefill(self, ids: torch.Tensor, length: int) -> torch.Tensor:
        """Empty the cache, feed the prompt ``ids[:, :length]`` eagerly; logits ``[V]`` of its
        last position.

        Eager because its shape is the prompt's: compiled, every new prompt length would
        compile a graph used once. ``reset`` zeroes the cache in place, keeping the tensors'
        addresses (which CUDA graphs rely on).
        """
        self.cache.reset()
        return forward_step(self.model, self.cache, ids[:, :length],
                            torch.arange(length, device=ids.device).unsqueeze(0))[-1]

    def step(self, ids: torch.Tensor, start: int, m: int) -> torch.Tensor:
        """Feed ``ids[:, start:start+m]`` at positions ``start … start+m-1``; logits ``[m, V]``.

        ``start`` must be the cache's counter: that is where the keys are written.
        """
        positions = torch.arange(start, start + m, device=ids.device).unsqueeze(0)  # [1, m]
        # a contiguous copy: a view of ids would carry ids' length in its strides, and the
        # compiled graph, specialised to strides, would compile again for each new length
        tokens = ids[:, start : start + m].clone(memory_format=torch.contiguous_format)
        args = (self.model, self.cache, tokens, positions)
        if self.step_fn is forward_step:
            return forward_step(*args)
        if m in self.warm:
            # Before each call dynamo evaluates ~2,000 guards (types, shapes, config values)
            # to pick a graph: 0.2-0.7 ms on a CPU, more than the drafter's step itself. This
            # model, cache and shape passed them all on the first call and nothing they check
            # changes between our calls, so only the guards that tell our graphs apart run.
            try:
                with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
                    return self.step_fn(*args)
            except RuntimeError:  # dynamo refuses to recompile here: its caches were reset
                self.warm.discard(m)
        try:
            logits = self.step_fn(*args)  # the first call compiles, with every guard
        except Exception as error:  # no C++ compiler, unsupported platform, ...
            self.step_fn = eager_after_failure(self.model.device, error)
            return forward_step(*args)
        self.warm.add(m)
        return logits


def forward_step(model, cache: StaticCache, tokens: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """One forward: tokens ``[1, m]`` at positions ``[1, m]`` -> logits ``[m, V]``.

    The keys and values land in ``cache`` at its counter, which moves on by ``m``.
    """
    return model(tokens, position_ids=positions, cache=cache, use_cache=True).logits[0]


_KEPT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # model -> {key: StaticModel}
_COMPILED: dict[str, object] = {}  # device type -> compiled forward_step (or eager after a failure)


def static_model(model, role: str, tokens: int, compile: bool) -> StaticModel:
    """The ``StaticModel`` kept for ``model`` in ``role`` ("drafter" or "target"), with room
    for ``tokens`` positions; a new one (new cache, new graphs) only when it is too short.

    Keeping it across calls keeps the cache tensors, so the compiled graphs (CUDA graphs
    included) are replayed, not rebuilt. The role separates a model used as both drafter
    and target.
    """
    kept = _KEPT.setdefault(model, {})
    key = (role, model.device, model.dtype)
    if key not in kept or kept[key].length < tokens:
        kept[key] = StaticModel(model, cache_length(tokens))
    kept[key].step_fn = compiled_step(model.device) if compile else forward_step
    return kept[key]


def compiled_step(device: torch.device):
    """``forward_step`` compiled for ``device``'s type, built once per process.

    ``dynamic=False``: one graph per input shape, which the fixed-shape loop keeps to two
    per gamma (and one for the baseline). Dynamo keeps at most
    ``torch._dynamo.config.recompile_limit`` (8) graphs of one function: past that (many
    gammas, many model shapes in one process) new shapes run eagerly, with its warning.
    CUDA: ``reduce-overhead`` replays CUDA graphs, one launch per step. CPU: inductor with
    ``cpp_wrapper``, which calls the kernels from C++ (without it the compiled step is no
    faster than eager on a CPU).
    """
    if device.type not in _COMPILED:
        try:
            if device.type == "cuda":
                _COMPILED[device.type] = torch.compile(forward_step, mode="reduce-overhead", dynamic=False)
            else:
                _COMPILED[device.type] = torch.compile(forward_step, dynamic=False,
                                                       options={"cpp_wrapper": True})
        except Exception as error:
            eager_after_failure(device, error)
    return _COMPILED[device.type]


def eager_after_failure(device: torch.device, error: Exception):
    """Record that compiling failed on this device type, warn once, return ``forward_step``."""
    if _COMPILED.get(device.type) is not forward_step:
        warnings.warn(f"torch.compile failed on {device.type} ({type(error).__name__}: {error}); "
                      "running the steps eagerly (same results, slower)", RuntimeWarning, stacklevel=3)
        _COMPILED[device.type] = forward_step
    return forward_step
