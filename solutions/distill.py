"""Lesson 10 — train the drafter: acceptance is one minus total variation, so distil for it.

At a drafted position the verifier accepts the drafter's token with probability
``α = Σ_x min(p(x), q(x)) = 1 − TV(p, q)`` (Leviathan et al.), ``p`` the target's
distribution and ``q`` the drafter's. Every speedup of the course is a function of α, and
α is a property of the drafter alone: training the drafter to imitate the target is how
it rises.

- ``expected_acceptance(p, q)``: α per position.
- ``distillation_loss(target_logits, draft_logits, kind)``: how far ``q`` is from ``p``,
  averaged over positions, for one of ``KINDS``: forward KL ``KL(p‖q)`` (cross-entropy
  against the target's soft labels: EAGLE, Medusa), reverse KL ``KL(q‖p)``, the
  Jensen–Shannon divergence, and total variation ``½ Σ |p − q|`` (``= 1 − α``). The target
  is the teacher: its distribution is a constant of the loss, never trained.
- ``on_policy_batch``: training text continued by the drafter itself (on-policy, as
  DistillSpec does), a given fraction of the rows by the target, each position labelled
  with the target's logits.
- ``train_drafter``: AdamW over those batches (or over fixed text), clipped gradients, and
  α along text the target generates from held-out prompts, every few steps.

Exercises, in order: ``expected_acceptance`` (``grader check expected_acceptance``),
``distillation_loss`` (``grader check distillation_loss``), ``on_policy_batch``
(``grader check on_policy_batch``), ``train_drafter`` (``grader check train_drafter``);
``distillation_loss`` has the steps ``divergence`` and ``kl``, ``train_drafter`` the step
``held_out_alpha``, graded with them.
``sample_continuations`` (T = 1 sampling of a batch of rows) is provided complete below
the stubs.

Positions: for ids ``[B, P + L]`` with a prompt of ``P`` tokens, the logits that predict
the ``L`` continuation tokens are ``logits[:, P − 1 : −1]`` (``[B, L, V]``).
"""
import math  # noqa: F401  (math.log(2.0), for the JSD)

import torch

__all__ = ["expected_acceptance", "distillation_loss", "on_policy_batch", "train_drafter"]

KINDS = ("forward_kl", "reverse_kl", "jsd", "total_variation")


def expected_acceptance(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """α = Σ min(p, q) over the last dim: p, q ``[..., V]`` probabilities -> ``[...]``
    (``[N, V]`` -> ``[N]``), the chance that a draft from ``q`` is accepted against ``p``.

    The verifier accepts a draft ``x ~ q`` with probability ``min(1, p(x) / q(x))``; average
    that over ``x ~ q``. It equals ``1 − TV(p, q)``, ``TV = ½ Σ |p − q|``, and it is
    symmetric in ``p`` and ``q``. It is not ``q`` of the drafted token, nor its mean.

    Hint: one line, ``torch.minimum`` and a sum over ``dim=-1``.
    """
    # BEGIN SOLUTION
    return torch.minimum(p, q).sum(dim=-1)
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def distillation_loss(target_logits: torch.Tensor, draft_logits: torch.Tensor, kind: str,
                      temperature: float = 1.0) -> torch.Tensor:
    """The mean over positions of a divergence of the drafter's ``q`` from the target's ``p``.

    ``target_logits``, ``draft_logits``: ``[..., V]`` (``[N, V]``: N positions); ``p`` and
    ``q`` are their softmaxes at ``temperature`` (the ``MultinomialProcessor`` the verifier
    applies to both). Returns a 0-dim tensor, the mean over positions of:

    - ``"forward_kl"``: ``KL(p‖q) = Σ p (log p − log q)``;
    - ``"reverse_kl"``: ``KL(q‖p) = Σ q (log q − log p)``;
    - ``"jsd"``: ``½ KL(p‖m) + ½ KL(q‖m)``, ``m = (p + q) / 2``;
    - ``"total_variation"``: ``½ Σ |p − q|`` (so that ``α = 1 − TV``).

    Any other ``kind``: ``ValueError`` naming the kinds (``KINDS``). The target is the
    teacher: its side is a constant, so no gradient may reach ``target_logits``.

    Hint: the formulas take distributions, not logits. Turn each side into
    log-probabilities at the temperature (stable, and what ``divergence`` takes), and keep
    the teacher's side out of the graph. Write each formula once per position, in
    ``divergence`` and ``kl`` (below), and average here. For the JSD, ``log m`` can be had
    from ``log_p`` and ``log_q`` without leaving log space: look at ``torch.logaddexp``.
    """
    # BEGIN SOLUTION
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(map(repr, KINDS))}")
    if target_logits.shape != draft_logits.shape:
        raise ValueError(f"target_logits {list(target_logits.shape)} and draft_logits "
                         f"{list(draft_logits.shape)} must have the same shape [..., V]")
    log_p = (target_logits.detach() / temperature).log_softmax(dim=-1)
    log_q = (draft_logits / temperature).log_softmax(dim=-1)
    return divergence(log_p, log_q, kind).mean()
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def divergence(log_p: torch.Tensor, log_q: torch.Tensor, kind: str) -> torch.Tensor:
    """The divergence of ``kind`` per position from log-probabilities ``[..., V]`` -> ``[...]``.

    A step of ``distillation_loss``: ``log_p`` the target's, ``log_q`` the drafter's, both
    from ``log_softmax``. ``"forward_kl"``: ``kl(log_p, log_q)``; ``"reverse_kl"``:
    ``kl(log_q, log_p)``; ``"jsd"``: ``½ kl(log_p, log_m) + ½ kl(log_q, log_m)``;
    ``"total_variation"``: ``½ Σ |p − q|`` over the last dim.
    """
    # BEGIN SOLUTION
    if kind == "forward_kl":
        return kl(log_p, log_q)
    if kind == "reverse_kl":
        return kl(log_q, log_p)
    if kind == "jsd":
        log_m = torch.logaddexp(log_p, log_q) - math.log(2.0)  # m = (p + q) / 2, in logs
        return 0.5 * kl(log_p, log_m) + 0.5 * kl(log_q, log_m)
    return 0.5 * (log_p.exp() - log_q.exp()).abs().sum(dim=-1)
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def kl(log_a: torch.Tensor, log_b: torch.Tensor) -> torch.Tensor:
    """KL(a‖b) = Σ a (log a − log b) over the last dim, from log-probabilities ``[..., V]`` -> ``[...]``.

    Hint: ``a = log_a.exp()``; the sum runs over ``dim=-1``.
    """
    # BEGIN SOLUTION
    return (log_a.exp() * (log_a - log_b)).sum(dim=-1)
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


# BEGIN SOLUTION
@torch.no_grad()
# END SOLUTION
def on_policy_batch(drafter, target, prompts: torch.Tensor, length: int, target_fraction: float = 0.0,
                    generator: torch.Generator | None = None):
    """Training rows continued by the models themselves, labelled by the target.

    ``prompts``: LongTensor ``[B, P]``. The first ``round(target_fraction · B)`` rows are
    continued by the target, the others by the drafter, ``length`` tokens each, sampled at
    T = 1 with ``generator``. Returns ``(ids [B, P + length], target_logits [B, length, V],
    from_target [B] bool)``: ``target_logits[b, i]`` is the target's logits for token
    ``P + i`` of row ``b`` given the tokens before it, computed without a graph.
    ``target_fraction`` outside ``[0, 1]``: ``ValueError``.

    Hint: decide first how many rows each model continues; each part is then continued by
    its own model with the provided sampler (below), and every row is labelled by the
    target in one forward that builds no graph. Which logits predict token ``P + i``: see
    "Positions" at the top of this module.
    """
    # BEGIN SOLUTION
    if not 0.0 <= target_fraction <= 1.0:
        raise ValueError(f"target_fraction must lie in [0, 1], got {target_fraction!r}")
    rows, prompt_length = prompts.shape
    from_target = torch.arange(rows, device=prompts.device) < round(target_fraction * rows)
    cut = int(from_target.sum())
    ids = torch.cat([sample_continuations(target, prompts[:cut], length, generator),
                     sample_continuations(drafter, prompts[cut:], length, generator)])
    target_logits = target(ids).logits[:, prompt_length - 1 : -1]
    return ids, target_logits, from_target
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def train_drafter(drafter, target, prompts: torch.Tensor, held_out: torch.Tensor, steps: int,
                  kind: str = "total_variation", on_policy: bool = True, texts: torch.Tensor | None = None,
                  batch_size: int = 8, length: int = 16, lr: float = 1e-3, target_fraction: float = 0.0,
                  eval_every: int = 10, generator: torch.Generator | None = None) -> list[tuple[int, float]]:
    """Distil ``target`` into ``drafter`` (in place); returns ``[(step, α), ...]``.

    Each of ``steps`` steps draws ``batch_size`` rows (``torch.randint`` with ``generator``):
    on-policy, prompts from ``prompts`` ``[M, P]`` continued by ``on_policy_batch``;
    otherwise whole rows of the fixed ``texts`` ``[M, P + length]`` (no sliding window: a
    step takes ``batch_size`` of its rows as they are; texts wrong or missing:
    ``ValueError``), labelled by the target under ``torch.no_grad()``. The drafter's logits
    at the ``length`` continuation positions go into ``distillation_loss(…, kind)``;
    ``torch.optim.AdamW(drafter.parameters(), lr=lr)``, gradients clipped to norm 1
    (``torch.nn.utils.clip_grad_norm_``). The target is never trained.

    α is measured at step 0, every ``eval_every`` steps and after the last one: the mean
    ``expected_acceptance(p, q)`` at the continuation positions of ``held_out`` ``[H, P]``
    continued ``length`` tokens by the target (``sample_continuations``, once, before
    training): the positions a speculative loop drafts.

    Hint: ``drafter.train()`` around the step, ``drafter.eval()`` to measure with
    ``held_out_alpha`` (its step, below); the target's ``p`` on the held-out texts never
    changes, so compute it once.
    """
    # BEGIN SOLUTION
    if not on_policy and (texts is None or texts.shape[1] != prompts.shape[1] + length):
        raise ValueError(f"training on fixed data needs texts [M, P + length] = [M, {prompts.shape[1] + length}]"
                         f", got {None if texts is None else list(texts.shape)}")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(map(repr, KINDS))}")
    start = held_out.shape[1] - 1
    with torch.no_grad():
        held_texts = sample_continuations(target, held_out, length, generator)
        p = target(held_texts).logits[:, start:-1].softmax(dim=-1)
    optimizer = torch.optim.AdamW(drafter.parameters(), lr=lr)
    history = [(0, held_out_alpha(drafter, held_texts, p, start))]
    for step in range(1, steps + 1):
        rows = torch.randint(len(prompts if on_policy else texts), (batch_size,), generator=generator)
        if on_policy:
            ids, target_logits, _ = on_policy_batch(drafter, target, prompts[rows], length, target_fraction,
                                                    generator)
        else:
            ids = texts[rows].to(prompts.device)
            with torch.no_grad():
                target_logits = target(ids).logits[:, prompts.shape[1] - 1 : -1]
        drafter.train()
        draft_logits = drafter(ids).logits[:, prompts.shape[1] - 1 : -1]
        loss = distillation_loss(target_logits, draft_logits, kind)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(drafter.parameters(), 1.0)
        optimizer.step()
        drafter.eval()
        if step % eval_every == 0 or step == steps:
            history.append((step, held_out_alpha(drafter, held_texts, p, start)))
    return history
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


# BEGIN SOLUTION
@torch.no_grad()
# END SOLUTION
def held_out_alpha(drafter, texts: torch.Tensor, p: torch.Tensor, start: int) -> float:
    """Mean α at positions ``start + 1 …`` of ``texts`` ``[H, T]``, the target's ``p`` given.

    A step of ``train_drafter``: ``p`` ``[H, T − 1 − start, V]`` is the target's distribution
    at those positions (computed once); ``q`` is the drafter's now, from one forward under
    ``torch.no_grad()``, ``logits[:, start:-1]``. Returns a Python float.
    """
    # BEGIN SOLUTION
    q = drafter(texts).logits[:, start:-1].softmax(dim=-1)
    return float(expected_acceptance(p, q.to(p.dtype)).mean())
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


@torch.no_grad()
def sample_continuations(model, prompts: torch.Tensor, length: int,
                         generator: torch.Generator | None = None) -> torch.Tensor:
    """``prompts`` ``[B, P]`` continued by ``model`` at T = 1, ``length`` tokens: ``[B, P + length]``.

    One full forward per token (no cache: rows this short cost little), each row's token
    drawn by the exponential race (``argmax p / E``, ``E`` ~ Exp(1)), which is a draw from ``p``.
    """
    ids = prompts
    if not len(prompts):  # a batch with no row for this model
        return prompts.new_empty((0, prompts.shape[1] + length))
    for _ in range(length):
        probs = model(ids).logits[:, -1].softmax(dim=-1)
        race = torch.empty_like(probs).exponential_(1.0, generator=generator)
        ids = torch.cat([ids, (probs / race).argmax(dim=-1, keepdim=True)], dim=1)
    return ids
