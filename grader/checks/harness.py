"""The harness every check is written against: ``CheckRun``, ``Stop`` and ``checked``.

A check module defines ``run(check: CheckRun)``. It takes the learner's functions with
``check.function(name)``, calls them through ``check.call``, and records each property
with ``check.require`` (deterministic) or ``check.test`` (a p-value; Holm-corrected
across the check at the end), by its name and, in ``case=``, the setting it is checked on
(a failed one becomes a ``verdict.Finding`` with both, and its kind). Learner misbehaviour inside ``call`` (an exception, a stub,
``sys.exit``, a changed input) ends the check with a one-paragraph diagnosis.

``CheckRun`` calls the implementation in this process. The runner's
``RecordingCheckRun`` (grader/runner/record.py) also sends what each call gave, and the
decider's ``ReplayCheckRun`` (grader/decider/replay.py) takes it instead of calling
anything; grader/studies/in_process.py runs a check in one process either way.

Rules for writing a check (the replay contract). Every check runs twice: in the runner,
calling the learner's code, and in the decider, which answers each ``check.call`` with the
runner's next record after matching its index and the digest of its arguments. So:

1. Randomness only from ``check.generator(key)`` or after ``check.seed_everything(key)``:
   an unseeded draw gives the two runs different arguments; the decider then checks the
   course's reference too, and its verdict names a grader bug (grader/decider/run.py).
   tests/test_layout.py lints the checks for draws from a global generator.
2. Branch only on the seed and on what ``check.function`` and ``check.call`` returned:
   never on time, the machine, hash order, or state left by an earlier check.
3. Whatever watches the learner's code while it runs (a model wrapper, a counter) is an
   ``observers.observation.Observer`` made with this run's ``check.observation``, created
   in the same order in both runs (observers are numbered by creation in their run), and
   the properties judged from it are recorded inside ``check.observing()``.
4. A property the check cannot evaluate is ``check.skip``-ped, never passed.
5. Expected values go in the check's judge (grader/judges/), called with ``check.judge``:
   the runner skips it, so no argument of a later call may depend on what it decides
   (take it from the learner's own earlier output instead). The runner imports the
   reference with the graded exercises' names withheld (grader/decider/reference.py):
   a check calls none of them, and takes from ``solutions`` only inputs (processors) and
   provided helpers.

``tests/test_determinism.py`` runs every check twice on the reference and fails on the
first call that differs (``studies.in_process.first_difference``).
"""
import errno
import hashlib
import importlib
import random
import sysconfig
import traceback
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

from grader import exercises, meanwhile
from grader.exercises import Exercise
from grader.observers.observation import Observation
from grader.oracle import chi2_power, stats
from grader.verdict import (
    ERROR,
    FAILED,
    LAW,
    NOT_DEFINED,
    NOT_STARTED,
    OBSERVED,
    PASSED,
    SUPPORT,
    VALUE,
    Finding,
    Hint,
    Verdict,
    listed,
    property_text,
)

FAMILY_ERROR_RATE = 1e-3  # a correct implementation fails a check with at most this probability


class Stop(Exception):
    """Ends a check early with a verdict (the learner's code cannot go on being tested)."""

    def __init__(self, status: str, summary: str, finding: Finding | None = None, tb: str = "",
                 findings: list[Finding] | None = None):
        super().__init__(summary)
        self.status, self.summary, self.tb = status, summary, tb
        self.findings = findings if findings is not None else [finding] if finding else []


class CheckRun:
    """One run of a check; ``observation``: where the observers it creates register (a
    direct one, watching the calls made here, unless the runner or the decider gives theirs)."""

    def __init__(self, exercise: Exercise, module: ModuleType, seed: int,
                 observation: Observation | None = None):
        self.exercise, self.module, self.seed = exercise, module, seed
        self.observation = observation or Observation()
        self.findings: list[Finding] = []
        self.tests: list[tuple[Finding, float]] = []
        self.powered: list[tuple[str, int, int]] = []  # (property, draws, dof) of every test
        self.properties = 0
        self.observed: list[tuple[str, str]] = []  # (name, case) of the properties judged from
        # observations (see ``observing``)
        self._observing = False
        self.skipped: list[tuple[str, str]] = []  # (property, why it could not be evaluated)
        self.revisions = []  # functions that may rewrite the failing findings' hints
        self.notes: list[str] = []  # what the check measured, shown with -v and in --json
        self.draws = exercises.draws(seed)  # times its default samples a statistical check draws
        if self.draws > 1:
            self.notes.append(f"{self.draws} times the default samples drawn (the grading config's draws, "
                              "carried by the seed); the power stated is theirs.")

    def revise(self, revision) -> None:
        """Run ``revision(findings)`` on the failing findings when the verdict is made: a
        hint that depends on which properties failed together (e.g. only T != 1 cases)."""
        self.revisions.append(revision)

    # --- the learner's code -------------------------------------------------------
    def function(self, name: str):
        value = getattr(self.module, name, None)
        if value is None:
            where = getattr(self.module, "__file__", None) or self.module.__name__
            raise Stop(NOT_DEFINED, f"`{name}` is not defined in {where}; "
                                    f"the exercise {self.exercise.id} needs it.")
        return value

    def call(self, fn, *args, what: str = "", **kwargs):
        """``fn(*args, **kwargs)``; any misbehaviour becomes a Stop with a diagnosis."""
        name = getattr(fn, "__qualname__", None) or f"{type(fn).__name__}(...)"
        where = f" {what}" if what else ""
        before = _snapshot((args, kwargs))
        try:
            with self.observation.learner_call():
                result = fn(*args, **kwargs)
        except NotImplementedError as exc:
            raise self._unfinished(name, exc) from None
        except (SystemExit, KeyboardInterrupt) as exc:
            raise Stop(ERROR, f"`{name}` raised {type(exc).__name__}{where}; "
                              "an exercise must return its result, never end the program.",
                       tb=traceback.format_exc()) from None
        except RecursionError:
            raise Stop(ERROR, f"`{name}` recursed without end (RecursionError){where}.",
                       tb=traceback.format_exc()) from None
        except MemoryError:
            raise Stop(ERROR, f"`{name}` ran out of memory (MemoryError){where}; look for a "
                              "tensor or list that grows with every step.",
                       tb=traceback.format_exc()) from None
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
                raise Stop(ERROR, f"`{name}` printed more output than the grader keeps (the "
                                  f"limit is a few tens of MB){where}; take the prints out of "
                                  "loops, or keep them behind `debug`.") from None
            frame = learner_frame(exc)
            raise Stop(ERROR, f"`{name}` raised {type(exc).__name__}: {exc}{where}{frame}. "
                              "Run with -v for the traceback.", tb=traceback.format_exc()) from None
        if not _same(before, (args, kwargs)):
            raise Stop(FAILED, f"`{name}` changed one of its input tensors{where}. The caller "
                               "still uses them afterwards (the same distributions are reused to "
                               "verify and to resample), so an exercise must not write into its "
                               "inputs: work on a copy, or use out-of-place operations.")
        return result

    def _unfinished(self, name: str, exc: NotImplementedError) -> Stop:
        """"Not started" when a function of this exercise raised NotImplementedError itself;
        otherwise an error that names the unfinished helper and how to get past it."""
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        raiser = _qualname(exc.__traceback__)
        if raiser.split(".")[0] in self.exercise.functions:
            unwritten = f"`{name}`" if raiser == name else f"`{name}` calls `{raiser}`, which"
            return Stop(NOT_STARTED, f"{unwritten} still raises NotImplementedError: "
                                     "write it, then check again.")
        return Stop(ERROR, f"`{name}` calls `{raiser}` ({Path(frame.filename).name}, line "
                           f"{frame.lineno}), which still raises NotImplementedError. "
                           f"{meanwhile.reached_text(self._reached(exc, raiser), self._importable)}",
                    tb=traceback.format_exc())

    def _reached(self, exc: NotImplementedError, raiser: str) -> list[meanwhile.Step]:
        """Every unfinished step the exercise's functions reach (grader/meanwhile.py), the one
        that raised first: all named in one verdict, not one per run."""
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        module = tb.tb_frame.f_globals.get("__name__", "")
        library = any(Path(tb.tb_frame.f_code.co_filename).is_relative_to(sysconfig.get_paths()[where])
                      for where in ("stdlib", "purelib", "platlib"))  # torch's abstract methods: not a step
        packages = (getattr(self.module, "__name__", "").split(".")[0], *[module.split(".")[0]] * (not library))
        steps = {meanwhile.Step(raiser, module.rpartition(".")[2]): None}
        for function in self.exercise.withheld:
            steps.update(dict.fromkeys(meanwhile.unfinished_steps(getattr(self.module, function, None), packages)))
        return list(steps)

    def _importable(self, step: meanwhile.Step) -> bool:
        """Whether to offer the reference's ``step`` meanwhile: never one this exercise withholds
        (its own helpers, refused while it is graded), nor a stub of the reference's."""
        return step.head not in self.exercise.withheld and _reference_has(step)

    # --- properties ----------------------------------------------------------------
    def judge(self, name: str, *args, **kwargs) -> None:
        """Run ``name`` of this check's judge (``grader.judges.<check>``) with this run first:
        the properties it records from expected values the runner never holds. A dotted name,
        ``"<module>.<function>"``, names a judge shared by several checks."""
        module, _, function = name.rpartition(".")
        module = module or self.exercise.check.rsplit(".", 1)[-1]
        getattr(importlib.import_module(f"grader.judges.{module}"), function)(self, *args, **kwargs)

    @contextmanager
    def observing(self):
        """Properties recorded inside are judged from what observers saw in the process that
        runs the learner's code (forwards fed, host reads, torch calls, compiled graphs), which
        that code could have rewritten: verdicts and ``grader grade`` list them apart."""
        self._observing = True
        try:
            yield
        finally:
            self._observing = False

    def _kind(self, prop: str, case: str, kind: str) -> str:
        """The kind of a property recorded now: ``kind``, or OBSERVED inside ``observing``."""
        if self._observing:
            self.observed.append((prop, case))
            return OBSERVED
        return kind

    def require(self, prop: str, ok: bool, message: str, hint: Hint = "", table=None, *, case: str = ""):
        """A deterministic property, ``prop`` checked on ``case`` (the setting, shown in
        parentheses after it): record a finding if ``ok`` is false. A ``hint`` may come in
        levels (a tuple): the idea first, then closer to the code."""
        self.properties += 1
        kind = self._kind(prop, case, VALUE)
        if not ok:
            self.findings.append(Finding.hinted(prop, case, kind, message, hint, table))
        return ok

    def fail(self, prop: str, message: str, hint: Hint = "", table=None, *, case: str = ""):
        """Stop the check now: later properties depend on this one."""
        kind = self._kind(prop, case, VALUE)
        raise Stop(FAILED, f"{property_text(prop, case)} failed, and the properties after it depend on it.",
                   Finding.hinted(prop, case, kind, message, hint, table))

    def note(self, text: str) -> None:
        """A measurement worth showing even when the check passes (``-v``, ``--json``)."""
        self.notes.append(text)

    def skip(self, prop: str, why: str) -> None:
        """A property this check cannot evaluate here: the verdict is then an error, never
        a pass (a pass means every property was evaluated)."""
        self.skipped.append((prop, why))

    def stop_if_failed(self, skipped: str) -> None:
        """End the check now if a deterministic property failed: what it would run next
        (``skipped``) could only measure the same bug again, and slowly."""
        if self.findings:
            raise Stop(FAILED, f"{self._failed(self.findings)} The {skipped} were not run: "
                               "they rest on these.", findings=list(self.findings))

    def test(self, prop: str, result: "stats.TestResult", hint: Hint = "", *, case: str = ""):
        """A statistical property, ``prop`` on ``case``. Impossible outcomes fail at once (the
        support test); p-values are Holm-corrected across the check when it ends."""
        self.properties += 1
        kind = self._kind(prop, case, SUPPORT if result.impossible else LAW)
        finding = Finding.hinted(prop, case, kind, result.message, hint, result.table,
                                 statistic=result.statistic, p_value=result.p_value, draws=result.draws)
        if result.dof:
            self.powered.append((property_text(prop, case), result.draws, result.dof))
        if result.impossible:
            self.findings.append(finding)
        else:
            self.tests.append((finding, result.p_value))

    def _failed(self, findings: list[Finding]) -> str:
        names = list(dict.fromkeys((f.name, f.case) for f in findings))
        shown = listed(names[:3]) + (f"; and {len(names) - 3} more" if len(names) > 3 else "")
        return f"{len(findings)} of {self.properties} properties failed: {shown}."

    # --- randomness ----------------------------------------------------------------
    def generator(self, *key) -> torch.Generator:
        return torch.Generator().manual_seed(self._derive(key))

    def seed_everything(self, *key) -> None:
        """Seed the global generators the learner's code may draw from."""
        derived = self._derive(key)
        torch.manual_seed(derived)
        random.seed(derived)
        np.random.seed(derived % 2**32)

    def _derive(self, key) -> int:
        text = repr((self.exercise.id, self.seed) + tuple(key)).encode()
        return int.from_bytes(hashlib.sha256(text).digest()[:8], "little") % 2**63

    # --- the verdict ---------------------------------------------------------------
    def verdict(self) -> Verdict:
        rejected = stats.holm([p for _, p in self.tests], FAMILY_ERROR_RATE)
        findings = self.findings + [f for (f, _), r in zip(self.tests, rejected) if r]
        for revision in self.revisions:
            revision(findings)
        threshold = FAMILY_ERROR_RATE / max(1, len(self.tests))  # Holm's strictest step
        detectable = [(prop, chi2_power.detectable_tv(draws, dof, threshold)) for prop, draws, dof in self.powered]
        if findings:
            return Verdict(self.exercise.id, FAILED, self._failed(findings), self.seed, findings,
                           self.properties, observed=self.observed, detectable=detectable,
                           threshold=threshold, notes=self.notes)
        if self.skipped or not self.properties:
            why = "; ".join(f"{prop}: {reason}" for prop, reason in self.skipped) or "none was"
            return Verdict(self.exercise.id, ERROR, f"{self.properties} properties hold, but not "
                           f"every property was evaluated ({why}), so this is no pass.",
                           self.seed, [], self.properties, observed=self.observed)
        tests = (f"{len(self.tests)} statistical tests at family error rate {FAMILY_ERROR_RATE:g}"
                 if self.tests else "no statistical tests")
        summary = f"all {self.properties} properties hold ({tests})."
        return Verdict(self.exercise.id, PASSED, summary, self.seed, [], self.properties,
                       observed=self.observed, detectable=detectable, threshold=threshold,
                       notes=self.notes)


def checked(check: CheckRun) -> Verdict:
    """Run the exercise's check with ``check``; its verdict, or the Stop that ended it."""
    check_module = __import__(check.exercise.check, fromlist=["run"])
    try:
        check_module.run(check)
        return check.verdict()
    except Stop as stop:  # the laws tested before it were never decided (Holm runs at the end):
        # they count as not evaluated, so that partial credit never counts them as held
        return Verdict(check.exercise.id, stop.status, stop.summary, check.seed, stop.findings,
                       check.properties - len(check.tests), stop.tb, stopped=True,
                       observed=check.observed, notes=check.notes)


_OPAQUE = object()  # models, processors and other objects: not compared


def _snapshot(value):
    """A copy of the tensors, arrays, lists and numbers in ``value``, to compare after a call."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(_snapshot(v) for v in value)
    if isinstance(value, dict):
        return {k: _snapshot(v) for k, v in value.items()}
    if isinstance(value, (int, float, str)):
        return value
    return _OPAQUE


def _same(before, after) -> bool:
    if before is _OPAQUE:
        return True
    if isinstance(before, torch.Tensor):
        return (isinstance(after, torch.Tensor) and before.shape == after.shape
                and torch.equal(before, after.detach()))
    if isinstance(before, np.ndarray):
        return isinstance(after, np.ndarray) and np.array_equal(before, after, equal_nan=True)
    if isinstance(before, (list, tuple)):
        return (isinstance(after, (list, tuple)) and len(before) == len(after)
                and all(_same(x, y) for x, y in zip(before, after)))
    if isinstance(before, dict):
        return before.keys() == after.keys() and all(_same(before[k], after[k]) for k in before)
    return before == after


def _reference_has(step) -> bool:
    """Whether the reference offers ``step`` (a ``meanwhile.Step``) to import meanwhile: the
    public reference of a release without solutions stubs every exercise's names."""
    reference = _reference_module(step.module)
    return hasattr(reference, step.head) and step.head not in getattr(reference, "__withheld__", ())


def _reference_module(name: str) -> ModuleType | None:
    """The reference's module of that name, or None where there is none."""
    try:
        return importlib.import_module(f"solutions.{name}")
    except ImportError:
        return None


def _qualname(tb) -> str:
    """The qualified name of the function running in a traceback's innermost frame."""
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return getattr(code, "co_qualname", code.co_name)  # co_qualname: Python 3.11+


def learner_frame(exc: BaseException) -> str:
    """' (at file.py, line N: `code`)' for the innermost frame outside torch, transformers
    and the grader; when that frame is a helper (a lesson's provided one, say) called from
    another function of the learner's files, the call comes first and the helper's line
    after it, so the learner sees the line they wrote."""
    frames = traceback.extract_tb(exc.__traceback__)
    skip = ("/torch/", "/transformers/", "/grader/", "/numpy/", "/scipy/", "(as sent for grading)")
    ours = [f for f in frames if not any(s in f.filename for s in skip)]
    if not ours:
        return ""
    last = ours[-1]
    inner = f"{last.filename.rsplit('/', 1)[-1]}, line {last.lineno}: `{last.line}`"
    if len(ours) > 1 and ours[-2].name != last.name:
        caller = ours[-2]
        return (f" (at {caller.filename.rsplit('/', 1)[-1]}, line {caller.lineno}: `{caller.line}`, "
                f"inside `{last.name}` at {inner})")
    return f" (at {inner})"
