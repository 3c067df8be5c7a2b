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
   C++ wrapper on a CPU): no Python dispatch per operator, no allocation per step. A step
   is the whole decode step: the forward, the logits processor, the draw and the end-token
   test (``decode_step``), so on a GPU one graph launch does all of it. The verification is
   one step too: the target's forward, the processor and ``speculative_sampling``
   (``verify_step``). The cache's length
   is rounded up to ``CACHE_BLOCK`` and the cache is kept per model across calls, so
   another prompt length compiles nothing new. The prefill, whose shape is the prompt's,
   runs eagerly: it happens once per call.
4. **The host reads rarely.** Every read of a tensor's value on the host (``.tolist()``,
   ``if tensor:``) waits for the device to finish its queue. Speculative decoding reads
   once per round (how many drafts were kept); the baseline keeps its end-token tests on
   the device and reads them once every ``HOST_READ_EVERY`` tokens, decoding at most
   ``HOST_READ_EVERY - 1`` tokens past an end token, which it then drops.

What is left per step is mostly the graphs' own work, and dynamo's check that a call may
reuse a graph (its guards); ``StaticModel.step`` checks them fully once per shape and
sampling only.

The output law is the one of ``solutions.speculative.speculative_generate``; greedy output
equals greedy target-only decoding token for token.

Exercise ``static_cache``: write ``fast_speculative_generate`` (with its two steps
``draft`` and ``roll_back``) and ``fast_autoregressive_generate``, then run
``grader check static_cache``. ``StaticModel`` (a model, its cache and its compiled steps),
the cache sizing and the compiling are provided complete below the stubs: read them, the
loop is built on them. Try ``compile=False`` first: the same code runs eagerly, and every
error message is a plain Python one.
"""
import warnings
import weakref

import torch
from transformers import StaticCache

from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors
from lessons.speculative import settle  # noqa: F401  (your lesson-3 step: n and the first end token)
from lessons.verification import speculative_sampling  # your lesson-2 verifier, run by verify_step

# Earlier steps this lesson calls, and the exercise that grades each:
#   GreedyProcessor, the default logits_processor (lesson 0: `grader check processors`)
#   speculative_sampling (lesson 2: `grader check speculative_sampling`)
#   settle (lesson 3's step: `grader check speculative_generate`)
# Not passed yet? Meanwhile take the reference's, in place of the import above:
#   from solutions.sampling import GreedyProcessor, LogitsProcessor
#   from solutions.verification import speculative_sampling
#   from solutions.speculative import settle
# `grader check` and `grader grade` both accept it: each exercise is graded on its own
# functions, and the reference is refused only for the exercise being graded.
# The checks pass processors of their own, so a loop is graded before lesson 0 is done.

__all__ = ["fast_speculative_generate", "fast_autoregressive_generate"]

CACHE_BLOCK = 256  # cache lengths are multiples of this: one compiled graph serves every prompt length
HOST_READ_EVERY = 8  # the baseline reads its end-token tests on the host once per this many tokens


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
    steps ``[1, 1] -> q [1, V]``, the target one verification ``[1, gamma + 1]`` (its
    ``p [gamma + 1, V]`` never leaves the compiled step) ``-> (rejected_idx, token)``.

    A round, with ``end`` the text's length so far (prompt included) and both caches
    holding ``ids[:, :end-1]``:
    draft ``gamma`` tokens into ``ids[end:end+gamma]``; the target scores
    ``ids[end-1:end+gamma]`` (the last token and the drafts) and ``speculative_sampling``
    accepts ``n`` of them, in one step; then both caches move their counters back to
    ``end + n``, the new ``end - 1``. One host sync per round (``settle`` reads ``n`` and
    the first end token); the processor, the draws and the verifier run inside the
    compiled steps.

    ``compile=True`` runs the steps through ``torch.compile`` (a warning and eager steps
    where this platform cannot compile); ``compile=False`` runs the same code eagerly.

    Hints, in order:

    - ``ids = sequence_buffer(inputs, L + gamma, device)``, ``stop_ids`` as a tensor; one
      ``StaticModel`` per role: ``static_model(target, "target", L + gamma, compile)`` and
      ``static_model(drafter, "drafter", L + gamma, compile)``.
    - The prefill: ``target_model.prefill(ids, len(inputs), logits_processor, stop_ids)``
      samples the first new token: ``(probs [1, V], token [1], stop [1])``; write the token
      into ``ids`` (``ids[:, len(inputs)] = token``); return if it is an end token (or if
      ``max_gen_len == 1``); then ``draft_model.prefill(...)`` the same way. Every later
      ``step`` of that model applies the processor and draws inside the compiled step.
    - A round: ``k = min(gamma, L - end - 1)``; ``q = draft(...)`` ``[gamma, V]``;
      ``rejected_idx, token = target_model.verify(ids, end, q)`` (the target's forward, its
      processor and your ``speculative_sampling``, in one step); write the token at
      ``end + rejected_idx`` with ``ids.index_copy_`` (a tensor index: no host sync); then
      ``n, first_stop = settle(ids[0, end:end + k + 1], rejected_idx.clamp(max=k), stop_ids)``:
      only the first ``k`` drafts count.
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
    ``L = len(inputs) + max_gen_len``, and beside it ``stops [1, L]``, which of those tokens
    are end tokens; an eager prefill ``[1, len(inputs)]``, then one compiled step
    ``[1, 1] -> token [1], stop [1]`` per token (sampling and end test inside it). The host
    reads ``stops`` once every ``HOST_READ_EVERY`` tokens and once at the end: the tokens
    decoded past the first end token, fewer than ``HOST_READ_EVERY``, are dropped.

    Hint: ``runner = static_model(model, "target", L, compile)``; the first token comes
    from ``runner.prefill(ids, len(inputs), logits_processor, stop_ids)``, every later one
    from ``runner.step(ids, end - 1, 1)`` (the cache then holds ``ids[:, :end-1]``), each as
    ``(probs [1, V], token [1], stop [1])``. Write tokens and stops into the two buffers
    (``ids[:, end] = token``, no host sync); test ``stops`` on the host only when
    ``HOST_READ_EVERY`` tokens have been added since the last test; at the end read both
    buffers at once and cut after the first end token.
    """
    raise NotImplementedError


def draft(draft_model: "StaticModel", ids: torch.Tensor, end: int, gamma: int) -> torch.Tensor:
    """Sample ``gamma`` drafts into ``ids[0, end:end+gamma]``; returns their q ``[gamma, V]``.

    The drafter has seen ``ids[:, :end-1]``: step i feeds ``ids[:, end-1+i]`` (``[1, 1]``)
    and samples the token at ``end + i`` on the device, inside the step, with the processor
    the drafter's ``prefill`` was given. Afterwards it has seen
    ``ids[:, :end-1+gamma]``: every draft but the last.

    Hint: ``q, token, _ = draft_model.step(ids, start, 1)`` gives q ``[1, V]`` and its draw
    ``[1]``; write it with ``ids[:, end + i] = token`` (a device copy, no sync).
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
    layer, allocated at the first forward), whether its steps run compiled, and the
    sampling of the current call (the processor and end tokens its ``prefill`` was given)."""

    def __init__(self, model, length: int, compile: bool = False):
        self.length = length
        self._model = weakref.ref(model)  # kept per model in _KEPT: a strong reference would keep it alive
        self.cache = StaticCache(config=model.config, max_cache_len=length)
        self.compile = compile
        self.sampling: tuple = ()  # (processor, stop_ids) of the current call
        self.sampling_key: tuple = ()  # what tells one call's sampling from another's (see step)
        self.warm: set[tuple] = set()  # (step, length, sampling_key) whose compiled graph has run once

    @property
    def model(self):
        return self._model()

    def prefill(self, ids: torch.Tensor, length: int, processor, stop_ids: torch.Tensor) -> "Step":
        """Empty the cache, feed the prompt ``ids[:, :length]`` eagerly and sample the token
        after it: ``(probs [1, V], token [1], stop [1])``. The steps of this call sample
        with the same ``processor`` and test for the same end tokens ``stop_ids [s]``.

        Eager because its shape is the prompt's: compiled, every new prompt length would
        compile a graph used once. ``reset`` zeroes the cache in place, keeping the tensors'
        addresses (which CUDA graphs rely on).
        """
        self.cache.reset()
        self.sampling = (processor, stop_ids)
        # the compiled graph bakes in the processor's class and settings and the number of
        # end tokens: a call that changes any of them must be checked by every guard once
        self.sampling_key = (type(processor), repr(getattr(processor, "__dict__", None)), tuple(stop_ids.shape))
        logits = forward_step(self.model, self.cache, ids[:, :length],
                              torch.arange(length, device=ids.device).unsqueeze(0))
        return sampled(logits[-1:], processor, stop_ids)

    def step(self, ids: torch.Tensor, start: int, m: int) -> "Step":
        """Feed ``ids[:, start:start+m]`` at positions ``start … start+m-1`` and sample after
        each: ``(probs [m, V], tokens [m], stops [m])``, all on the device.

        ``start`` must be the cache's counter: that is where the keys are written.
        """
        tokens, positions = fed(ids, start, m)
        return self.run(decode_step, (self.model, self.cache, tokens, positions, *self.sampling))

    def verify(self, ids: torch.Tensor, end: int, q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Verify the drafts ``ids[0, end:end+gamma]``, drawn from ``q [gamma, V]``: feed
        ``ids[:, end-1:end+gamma]`` (the last token and the drafts) at positions
        ``end-1 … end+gamma-1``, process the logits into ``p [gamma + 1, V]`` and run
        ``speculative_sampling(p, q, drafts)``: ``(rejected_idx, token)``, 0-dim, on the device.

        One compiled step, so ``p`` never leaves it. ``end - 1`` must be the cache's counter.
        """
        tokens, positions = fed(ids, end - 1, q.shape[0] + 1)
        return self.run(verify_step, (self.model, self.cache, tokens, positions, self.sampling[0], q))

    def run(self, step, args: tuple) -> tuple[torch.Tensor, ...]:
        """``step(*args)``: eagerly, or compiled for this model's device when ``self.compile``."""
        if not self.compile:
            return step(*args)
        compiled = compiled_step(step, self.model.device)
        if compiled is step:  # compiling failed on this device: eager, warned once
            return step(*args)
        # what tells this call's graph from the others: the step, its length, the sampling,
        # and the dtypes of its tensors (a drafter's q may come in another dtype)
        key = (step.__name__, args[2].shape[1], self.sampling_key,
               tuple(a.dtype for a in args if isinstance(a, torch.Tensor)))
        if key in self.warm:
            # Before each call dynamo evaluates ~2,000 guards (types, shapes, config values)
            # to pick a graph: 0.2-0.7 ms on a CPU, more than the drafter's step itself. This
            # model, cache, shape and sampling passed them all on the first call and nothing
            # they check changes between our calls, so only the guards that tell our graphs
            # apart run.
            try:
                with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
                    return kept_outputs(compiled(*args))
            except RuntimeError:  # dynamo refuses to recompile here: its caches were reset
                self.warm.discard(key)
        try:
            outputs = compiled(*args)  # the first call compiles, with every guard
        except Exception as error:  # no C++ compiler, unsupported platform, ... or the step's own bug
            outputs = step(*args)  # a bug of the step raises here too, as itself: the compiler is not blamed
            eager_after_failure(self.model.device, step, error)
            return outputs
        self.warm.add(key)
        return kept_outputs(outputs)


Step = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # (probs [m, V], tokens [m], stops [m])


def forward_step(model, cache: StaticCache, tokens: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """One forward: tokens ``[1, m]`` at positions ``[1, m]`` -> logits ``[m, V]``.

    The keys and values land in ``cache`` at its counter, which moves on by ``m``.
    """
    return model(tokens, position_ids=positions, cache=cache, use_cache=True).logits[0]


def sampled(logits: torch.Tensor, processor, stop_ids: torch.Tensor) -> Step:
    """The sampling step after a forward: logits ``[m, V]`` -> ``(probs [m, V], tokens [m],
    stops [m])``, ``stops[i]`` true when ``tokens[i]`` is one of ``stop_ids``. No host sync."""
    probs = processor(logits)
    tokens = processor.sample(probs)
    return probs, tokens, torch.isin(tokens, stop_ids)


def decode_step(model, cache: StaticCache, tokens: torch.Tensor, positions: torch.Tensor, processor,
                stop_ids: torch.Tensor) -> Step:
    """The whole decode step, a function compiled: a forward (tokens ``[1, m]`` at
    positions ``[1, m]``), then the processor, a draw per position and the end-token test."""
    return sampled(forward_step(model, cache, tokens, positions), processor, stop_ids)


def verify_step(model, cache: StaticCache, tokens: torch.Tensor, positions: torch.Tensor, processor,
                q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The whole verification, a function compiled: a forward of the last token and the
    ``gamma`` drafts (tokens ``[1, gamma + 1]`` at positions ``[1, gamma + 1]``), the processor
    (``p [gamma + 1, V]``), then ``speculative_sampling(p, q [gamma, V], drafts)``:
    ``(rejected_idx, token)``."""
    p = processor(forward_step(model, cache, tokens, positions))
    return speculative_sampling(p, q, tokens[0, 1:])


def fed(ids: torch.Tensor, start: int, m: int) -> tuple[torch.Tensor, torch.Tensor]:
    """What a step feeds: the tokens ``ids[:, start:start+m]`` and their positions, both ``[1, m]``.

    The tokens are a contiguous copy: a view of ids would carry ids' length in its
    strides, and the compiled graph, specialised to strides, would compile again for each
    new length.
    """
    tokens = ids[:, start : start + m].clone(memory_format=torch.contiguous_format)
    return tokens, torch.arange(start, start + m, device=ids.device).unsqueeze(0)


def kept_outputs(outputs: Step) -> Step:
    """Copies of a compiled step's outputs. A CUDA graph writes its outputs to the same
    memory at every replay: the drafter's q of one step would be overwritten by the next."""
    return tuple(t.clone() for t in outputs)


_KEPT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # model -> {key: StaticModel}
_COMPILED: dict[tuple, object] = {}  # (device type, step) -> the step compiled (or eager after a failure)


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
    kept[key].compile = compile
    return kept[key]


def compiled_step(step, device: torch.device):
    """``step`` (``decode_step`` or ``verify_step``) compiled for ``device``'s type, built
    once per process.

    ``dynamic=False``: one graph per input shape (and processor), which the fixed-shape
    loop keeps to one drafter step and one verification per gamma (and one step for the
    baseline). Dynamo keeps at most ``torch._dynamo.config.recompile_limit`` (8) graphs of
    one function: past that (many gammas, many model shapes in one process) new shapes run
    eagerly, with its warning. CUDA: ``reduce-overhead`` replays CUDA graphs, one launch per
    step. CPU: inductor with ``cpp_wrapper``, which calls the kernels from C++ (without it
    the compiled step is no faster than eager on a CPU).
    """
    key = (device.type, step.__name__)
    if key not in _COMPILED:
        try:
            if device.type == "cuda":
                _COMPILED[key] = torch.compile(step, mode="reduce-overhead", dynamic=False)
            else:
                _COMPILED[key] = torch.compile(step, dynamic=False, options={"cpp_wrapper": True})
        except Exception as error:
            eager_after_failure(device, step, error)
    return _COMPILED[key]


def eager_after_failure(device: torch.device, step, error: Exception):
    """Record that compiling failed on this device type: warn once, run every step of that
    device eagerly from now on, return ``step``."""
    if _COMPILED.get((device.type, step.__name__)) is not step:
        warnings.warn(f"torch.compile failed on {device.type} ({type(error).__name__}: {error}); "
                      "running the steps eagerly (same results, slower)", RuntimeWarning, stacklevel=3)
        for each in (decode_step, verify_step):
            _COMPILED[device.type, each.__name__] = each
    return step
