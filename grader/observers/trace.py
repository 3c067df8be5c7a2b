"""Trace a speculative decoding run from what its two models were fed, whatever the code.

Both models are wrapped so that every forward lands, in call order, in one shared log
(role, tokens fed, tokens already cached). A round is the drafter forwards since the
previous target forward (its ``k`` drafts) followed by one target forward, which sees
the sequence up to the last draft: ``cached + fed = start + k``. Comparing the drafts
the target was fed with the output tells which were accepted, and whether the round's
last token was a correction or the bonus (grader/bench/round_colours.py draws it).
"""
from dataclasses import asdict, dataclass, field

from grader.observers import observation
from grader.observers.recording import Forward, RecordingModel, forward


@dataclass
class Call(Forward):
    role: str = ""  # "drafter" or "target"
    ids: list[int] = field(default_factory=list)  # the tokens fed


class LoggedModel(RecordingModel):
    """A RecordingModel that also appends each forward, with its tokens, to a shared log
    (``run``: the check's, as for RecordingModel)."""

    def __init__(self, model, role: str, log: list[Call], run: observation.Observation | None = None):
        super().__init__(model, run)
        self.role, self.log = role, log

    def entry(self, input_ids, kwargs) -> dict:
        return dict(super().entry(input_ids, kwargs), ids=input_ids[0].tolist())

    def append(self, entry: dict) -> None:
        super().append(entry)
        self.log.append(Call(**asdict(forward(entry["forward"])), role=self.role,
                             ids=observation.ints(entry["ids"], "forward's tokens")))

    def forward(self, *args, **kwargs):  # model.forward(...) is logged like model(...)
        return self(*args, **kwargs)


def recorded(generate, prompts: list[list[int]], target, run: observation.Observation | None,
             **kwargs) -> tuple[dict[str, list], list[Call]]:
    """({role: its forwards}, the forwards of both in call order) of one run of a batched
    ``generate`` whose drafter and target are both ``target``, wrapped with ``run`` (the
    check's observation, or None for the judge's reference run)."""
    log: list[Call] = []
    drafter, recorded_target = (LoggedModel(target, role, log, run) for role in ("drafter", "target"))
    generate(prompts, drafter, recorded_target, **kwargs)
    return {"drafter": drafter.forwards, "target": recorded_target.forwards}, log


@dataclass
class Round:
    start: int  # sequence length (prompt included) when the round began
    drafts: list[int]  # the k tokens the drafter proposed
    tokens: list[int]  # what the round added to the output
    kinds: list[str]  # "accepted", "correction", "bonus" or "target", one per token
    target_cached: int  # what the target's cache held at its forward (0 without a cache)
    drafter_cached: int | None  # what the drafter's cache held at its first forward

    @property
    def accepted(self) -> int:
        return self.kinds.count("accepted")


def traced(generate, prompt: list[int], drafter, target, **kwargs):
    """Run ``generate(prompt, drafter, target, **kwargs)``; returns (ids, rate, log)."""
    log: list[Call] = []
    ids, rate = generate(prompt, LoggedModel(drafter, "drafter", log),
                         LoggedModel(target, "target", log), **kwargs)
    return ids, rate, log


def rounds(log: list[Call], prompt: list[int], ids: list[int]) -> list[Round]:
    """The rounds of a run, from its log and its output ``ids`` (prompt excluded)."""
    sequence = list(prompt) + list(ids)
    found, drafter_calls = [], []
    for call in log:
        if call.role == "drafter":
            drafter_calls.append(call)
            continue
        k = len(drafter_calls)
        start = call.cached + call.fed - k
        drafts = call.ids[len(call.ids) - k :] if k else []
        drafter_cached = drafter_calls[0].cached if drafter_calls else None
        found.append((start, drafts, call.cached, drafter_cached))
        drafter_calls = []
    result = []
    for i, (start, drafts, target_cached, drafter_cached) in enumerate(found):
        stop = found[i + 1][0] if i + 1 < len(found) else len(sequence)
        tokens = sequence[start:stop]
        result.append(Round(start, drafts, tokens, classify(tokens, drafts),
                            target_cached, drafter_cached))
    return result


def classify(tokens: list[int], drafts: list[int]) -> list[str]:
    """A token equal to the draft at its place is an accepted draft; the first one that
    differs is the correction (an exact verifier never resamples the rejected draft: the
    residual gives it no mass) and ends the round; one past every draft is the bonus."""
    if not drafts:
        return ["target"] * len(tokens)
    kinds = []
    for i, token in enumerate(tokens):
        if i >= len(drafts):
            kinds.append("bonus")
        else:
            kinds.append("accepted" if token == drafts[i] else "correction")
    return kinds


def acceptance_by_position(found: list[Round]) -> list[tuple[int, int]]:
    """(accepted, reached) for each draft position: a position is reached when every
    draft before it was accepted. Rounds cut short by an end token are left out."""
    width = max((len(r.drafts) for r in found), default=0)
    counts = [[0, 0] for _ in range(width)]
    for r in found:
        if r.tokens and len(r.tokens) == r.accepted + 1:  # ended by a correction or bonus
            for i in range(min(r.accepted + 1, len(r.drafts))):
                counts[i][1] += 1
                counts[i][0] += i < r.accepted
    return [tuple(c) for c in counts]
