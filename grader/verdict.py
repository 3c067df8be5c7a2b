"""What a check concludes, and how it is shown: plain text, JSON and HTML."""
import enum
import html
import json
import re
from dataclasses import asdict, dataclass, field


class Status(str, enum.Enum):
    """A verdict's status. A str, so that JSON, CSV and text show its value ("passed")."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_STARTED = "not started"
    NOT_DEFINED = "not defined"
    ERROR = "error"  # the learner's code raised, hung, crashed or would not import

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


PASSED, FAILED, NOT_STARTED, NOT_DEFINED, ERROR = (Status.PASSED, Status.FAILED, Status.NOT_STARTED,
                                                   Status.NOT_DEFINED, Status.ERROR)

SYMBOLS = {PASSED: "✔", FAILED: "✘", NOT_STARTED: "·", NOT_DEFINED: "?", ERROR: "✘"}
COLOURS = {PASSED: "#1a7f37", FAILED: "#cf222e", ERROR: "#cf222e", NOT_STARTED: "#6e7781",
           NOT_DEFINED: "#9a6700"}
SHOWN_FINDINGS = 3
TEXT_LIMIT = 64_000  # characters of a verdict's whole text: every field of it may come from a runner
# What a terminal or a spreadsheet would act on rather than show: C0 and C1 control characters
# (escape codes among them), the bidirectional overrides that reorder a line as it is shown,
# line and paragraph separators, and lone surrogates (no encoder writes them).
UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e"
                         "\u2066-\u2069\ud800-\udfff]")
UNPRINTABLE_IN_LINE = re.compile(f"{UNPRINTABLE.pattern}|[\n\t]")  # a cell, a name: one line each
CUT_NOTE = 48  # characters kept free for the note that says how much was cut
Hint = str | tuple[str, ...]  # a hint, or its levels: the idea first, then closer to the code


def levels(hint: Hint) -> list[str]:
    """A hint's levels, the idea first (a plain text is one level)."""
    return [hint] if isinstance(hint, str) else list(hint)


def joined(*hints: Hint, sep: str = " ") -> tuple[str, ...]:
    """Hints given together, level by level: level n joins the hints' texts at level n (a hint
    with fewer levels adds nothing to the deeper ones)."""
    parts = [levels(hint) for hint in hints]
    return tuple(sep.join(part[n] for part in parts if n < len(part)) for n in range(max(map(len, parts))))


class FindingKind(str, enum.Enum):
    """What kind of property a finding is. A str, so that JSON and text show its value ("law")."""

    VALUE = "value"  # deterministic: an output compared with its expected value or formula
    OBSERVED = "observed"  # deterministic, judged from what was observed in the process running
    # the learner's code (forwards fed, host reads, compiled graphs), which that code could rewrite
    LAW = "law"  # statistical: draws tested against their exact law (a p-value, Holm-corrected)
    SUPPORT = "support"  # statistical, failed outright: an outcome of probability 0 under the law occurred

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


VALUE, OBSERVED, LAW, SUPPORT = FindingKind.VALUE, FindingKind.OBSERVED, FindingKind.LAW, FindingKind.SUPPORT
KINDS = tuple(FindingKind)
STATISTICAL = (LAW, SUPPORT)


def printable(text: str, limit: int | None = None, one_line: bool = False) -> str:
    """``text`` safe to print or write: each UNPRINTABLE character (and, ``one_line``, each
    newline and tab) written as its Python escape (``\\x1b``, ``\\ud800``), then cut to ``limit``
    characters, saying how many were cut. Text from a runner or a file name is hostile: this
    runs on it before any of it is shown."""
    text = (UNPRINTABLE_IN_LINE if one_line else UNPRINTABLE).sub(lambda m: ascii(m.group())[1:-1], str(text))
    if limit is not None and len(text) > limit:
        kept = max(0, limit - CUT_NOTE)
        text = f"{text[:kept]} … ({len(text) - kept} more characters cut)"
    return text


def property_text(name: str, case: str = "") -> str:
    """A property as the learner reads it: its name, then its case in parentheses."""
    return f"{name} ({case})" if case else name


@dataclass
class Finding:
    """One property that failed: which (its name, the case it was checked on, its kind), what
    was found, by how much, and the bug it usually means."""

    name: str  # "law of token 1"
    case: str  # the setting it was checked on ("T=0.6, prompt [2]"), or ""
    kind: FindingKind  # a FindingKind, or its value
    message: str
    hint: str = ""
    table: list[list[str]] | None = None  # header row first
    statistic: float | None = None
    p_value: float | None = None
    draws: int | None = None
    more_hints: list[str] = field(default_factory=list)  # the hint's next levels (--hint N)

    def __post_init__(self):
        self.kind = FindingKind(self.kind)  # a kind's value ("law") becomes its member; anything else raises

    @classmethod
    def hinted(cls, name: str, case: str, kind: FindingKind | str, message: str, hint: Hint = "", table=None,
               **numbers) -> "Finding":
        """A Finding whose ``hint`` may come in levels: the first is shown, the rest on asking."""
        given = levels(hint)
        return cls(name, case, FindingKind(kind), message, given[0] if given else "", table, **numbers,
                   more_hints=given[1:])

    @property
    def property(self) -> str:
        """"law of token 1 (T=0.6, prompt [2])": the name and the case, as shown."""
        return property_text(self.name, self.case)


@dataclass
class Verdict:
    exercise: str
    status: Status  # a Status, or its value
    summary: str
    seed: int
    findings: list[Finding] = field(default_factory=list)
    properties: int = 0  # how many properties were checked
    traceback: str = ""
    output: str = ""  # what the learner's code printed, truncated
    seconds: float = 0.0
    stopped: bool = False  # a property failed that the later ones depend on: they did not run
    observed: list[tuple[str, str]] = field(default_factory=list)  # (name, case) of the properties
    # judged from what was observed in the process running the learner's code (kind OBSERVED)
    reference_opened: list[str] = field(default_factory=list)  # the course's reference or check
    # files that process reports opening (a report of the learner's process, not a proof)
    detectable: list[tuple[str, float]] = field(default_factory=list)  # (statistical property,
    # the total variation from its law it detects in any direction w.p. 0.99: grader/oracle/chi2_power.py)
    threshold: float = 0.0  # Holm's strictest threshold, at which ``detectable`` is computed
    notes: list[str] = field(default_factory=list)  # what the check measured (train_drafter's
    # divergence and α before and after), shown with -v, passed or not
    stood_in: list[str] = field(default_factory=list)  # graded on its own (grader grade): the
    # other exercises' steps its reference calls, the reference's run in place of the learner's
    stood_in_failed: list[str] = field(default_factory=list)  # those of ``stood_in`` whose own
    # exercise the learner's code did not pass in the same run (information, not a finding)

    def __post_init__(self):
        self.status = Status(self.status)  # a status's value ("passed") becomes its member; anything else raises

    @property
    def observed_failed(self) -> int:
        return sum(f.kind == OBSERVED for f in self.findings)

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def to_dict(self) -> dict:
        """JSON-able fields; each finding's ``property`` text beside its name and case."""
        data = asdict(self)
        for finding, written in zip(self.findings, data["findings"]):
            written["property"] = finding.property
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Verdict":
        data = dict(data)
        findings = [Finding(**{k: v for k, v in f.items() if k != "property"}) for f in data.pop("findings", [])]
        observed = [tuple(pair) for pair in data.pop("observed", [])]
        detectable = [tuple(pair) for pair in data.pop("detectable", [])]
        return cls(findings=findings, observed=observed, detectable=detectable, **data)


class LoadErrorKind(str, enum.Enum):
    """Why an implementation would not import (``grader.protocol.LoadError.kind``). A str, so
    that a runner's record holds its value ("syntax")."""

    SYNTAX = "syntax"  # with the file, the line and the parser's message
    MISSING = "missing"  # no implementation found: the message says where it was looked for
    RAISED = "raised"  # its top level raised: the message, the learner's frame, the traceback


def load_error_verdict(exercise: str, seed: int, error) -> Verdict:
    """The verdict on an implementation that would not import, worded from ``error``, a
    ``grader.protocol.LoadError`` (its kind a LoadErrorKind, each other value text, None where
    absent), whichever process made it: the decoder refused an unknown kind and cut a forged
    one's values to text."""
    if error.kind is LoadErrorKind.SYNTAX:
        summary = (f"your code has a syntax error in {error.file}, line {error.line}: "
                   f"{error.message}. Fix it, then check again.")
    elif error.kind is LoadErrorKind.MISSING:
        summary = error.message or ""
    else:  # LoadErrorKind.RAISED
        summary = (f"importing your code failed with {error.message}{error.frame or ''}. "
                   "Code at the top level of a module runs on import: keep it to definitions.")
    return Verdict(exercise, ERROR, summary, seed, traceback=error.traceback or "")


def format_table(table: list[list[str]]) -> str:
    widths = [max(len(str(row[i])) for row in table) for i in range(len(table[0]))]
    lines = ["  ".join(str(cell).rjust(w) for cell, w in zip(row, widths)) for row in table]
    return "\n".join("      " + line for line in lines)


def listed(properties: list[tuple[str, str]]) -> str:
    """(name, case) pairs with each case written once: "law of token 1, law of token 2 (T=0.6);
    law of the first 5 tokens (top-k)" for consecutive properties that share a case."""
    groups: list[tuple[list[str], str]] = []
    for name, case in properties:
        if groups and case and groups[-1][1] == case:
            groups[-1][0].append(name)
        else:
            groups.append(([name], case))
    return "; ".join(property_text(", ".join(names), case) for names, case in groups)


def format_text(verdict: Verdict, verbose: bool = False, timing: bool = True, hints: int = 1) -> str:
    """A deterministic block of text (nbval compares it when ``timing`` is False), with
    ``hints`` levels of each hint."""
    head = f"{SYMBOLS[verdict.status]} {verdict.exercise}: {verdict.status}"
    if timing and verdict.seconds:
        head += f" ({verdict.seconds:.1f}s)"
    lines = [head, f"  {verdict.summary}"]
    findings = verdict.findings if verbose else verdict.findings[:SHOWN_FINDINGS]
    previous_case, deeper = "", False
    hinted: dict[str, str] = {}  # hint -> the first property shown with it
    for finding in findings:
        if sum(map(len, lines)) > TEXT_LIMIT:  # a runner may send megabytes of findings: all cut below
            break
        name, case = finding.name, finding.case
        shown = f"{name} (same case)" if case and case == previous_case else finding.property
        previous_case = case
        lines.append(f"  - {shown}: {finding.message}")
        if finding.p_value is not None:
            lines.append(f"    statistic {finding.statistic:.4g}, p-value {finding.p_value:.3g}, "
                         f"{finding.draws} draws, seed {verdict.seed}")
        if finding.table:
            lines.append(format_table(finding.table))
        if finding.hint in hinted:  # written once: later findings point back to it, case left out
            lines.append(f"    hint: as for {hinted[finding.hint]} above")
        elif finding.hint:
            hinted[finding.hint] = name
            lines.append(f"    hint: {finding.hint}")
            lines.extend(f"    hint {level}: {text}"
                         for level, text in enumerate(finding.more_hints[:hints - 1], start=2))
            deeper = deeper or len(finding.more_hints) >= hints
    hidden = len(verdict.findings) - len(findings)
    if hidden:
        lines.append(f"  (+{hidden} more; -v shows all)")
    if deeper:
        lines.append(f"  (the next level of hints, closer to the code: --hint {hints + 1}, or "
                     f"hint={hints + 1} in a notebook)")
    elif hints > 1 and not any(len(f.more_hints) >= hints - 1 for f in verdict.findings):  # more asked than there is
        why = "the check passed, so there is nothing to hint" if verdict.passed else \
            f"no hint of this verdict goes {hints} levels deep"
        lines.append(f"  (--hint {hints}: {why})")
    if verdict.stood_in:
        lines.append(f"  {stood_in_text(verdict)}")
    if verdict.output:
        lines.append("  your code printed:")
        lines.extend("    | " + line for line in verdict.output.splitlines())
    if verbose and verdict.detectable:
        lines.append(f"  {power_statement(verdict.detectable)}")
    if verbose:
        lines.extend(f"  measured: {note}" for note in verdict.notes)
    if verbose and verdict.observed:
        lines.append(f"  {len(verdict.observed)} properties were judged from what was observed in "
                     f"the process running your code: {listed(verdict.observed)}")
    if verbose and verdict.traceback:
        lines.append(verdict.traceback.rstrip())
    return printable("\n".join(lines), TEXT_LIMIT)


def stood_in_text(verdict: Verdict) -> str:
    """One line on the reference's steps that stood in for the learner's other exercises'."""
    steps, failed = ", ".join(verdict.stood_in), ", ".join(verdict.stood_in_failed)
    if not failed:
        return f"graded on its own: the reference's {steps} stood in for yours."
    outcome = "passes" if verdict.passed else "graded on its own,"
    return (f"{outcome} with the reference's {steps} in place of yours; your {failed} did not pass its "
            "own check in this run — fix it first.")


def power_statement(detectable: list[tuple[str, float]]) -> str:
    """One line on how small a change of its law each statistical test sees."""
    ordered = sorted(detectable, key=lambda d: d[1])
    (strongest, low), (weakest, high) = ordered[0], ordered[-1]
    return (f"power: each of the {len(detectable)} statistical tests detects, with probability "
            f"≥ 0.99, any change of its law by a total variation ≥ δ, whatever the bug: δ = "
            f"{low:.3f} ({strongest}) to {high:.3f} ({weakest})")


def format_html(verdict: Verdict, verbose: bool = False, hints: int = 1) -> str:
    colour = COLOURS[verdict.status]
    body = html.escape(format_text(verdict, verbose, timing=False, hints=hints))
    return (f'<pre style="border-left: 4px solid {colour}; padding-left: 8px; color: {colour}">'
            f"{body}</pre>")


def to_json(verdicts: list[Verdict], seconds: float | None = None) -> str:
    """The verdicts as one JSON object; ``seconds``: the command's wall time, when known."""
    timed = {} if seconds is None else {"seconds": round(seconds, 3)}
    return json.dumps({"passed": all(v.passed for v in verdicts), **timed,
                       "checks": [v.to_dict() for v in verdicts]})
