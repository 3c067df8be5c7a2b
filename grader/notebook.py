"""``check("<exercise>")`` for notebooks: the same two-process check as `grader check`.

The learner's code is read from disk by a runner process, so a stale kernel never gives a
false verdict. In a release without the reference (``grader release --no-solutions``) the
notebooks run the learner's code alone, and ``check()`` runs the public checks
(grader/release/public.py), with one line for each exercise asked for whose check needs the
reference. The verdict is decided in the kernel itself, where the learner's notebook
code also runs: enough for learning; grading for credit uses `grader grade`, which
decides outside the learner's reach (docs/grading.md). The text printed is deterministic
(no timings), so nbval can compare it.
"""
import functools
import html
import importlib
import os
from types import ModuleType

from grader import exercises, implementation, meanwhile, progress
from grader.decider import run_isolated
from grader.decider.warm import WarmRunners
from grader.release import student
from grader.verdict import Verdict, format_html, format_text

IMPL_VARIABLE = "COURSE_IMPL"  # set to "solutions" to run the notebooks on the reference
QUICK_VARIABLE = "COURSE_NOTEBOOKS_QUICK"  # "1" in the test suite (notebooks/conftest.py)


def current_impl() -> str:
    return os.environ.get(IMPL_VARIABLE, "lessons")


def study_size(full: int, quick: int) -> int:
    """How much a cell's study measures (training steps, texts, repetitions): ``full``, or
    ``quick`` where the test suite runs the notebooks (``COURSE_NOTEBOOKS_QUICK=1``): there
    every line of the cell must run, but none of its numbers is read."""
    return quick if os.environ.get(QUICK_VARIABLE) == "1" else full


class NeedsReference(RuntimeError):
    """A notebook that runs the reference's own studies, opened where the reference is absent."""


def course(needs_reference: bool = False) -> "Course":
    """The package the notebook's calls use: your ``lessons``, or ``solutions`` in CI.

    ``needs_reference``: the notebook also runs the reference's own studies or benchmarks
    (``grader.bench``, ``grader.studies``, ``grader.audit``, ``grader.checks``), so in a
    release without the reference it stops here, in one paragraph, rather than at an import."""
    if needs_reference and not implementation.has_reference():
        raise NeedsReference(
            "This notebook runs the course's reference (solutions/) beside your code: its studies, "
            "benchmarks and pictures are made from it. This release leaves the reference out, so "
            "read this notebook with its stored outputs; the notebooks whose first cell runs here "
            "run your own lessons/.") from None
    return Course(importlib.import_module(current_impl()), reference("solutions"))


def lesson(module: str) -> "Course":
    """One module of that package (``lesson("fast")``: lessons/fast.py), for the names the
    package does not export."""
    return Course(implementation.load(current_impl(), module), reference(f"solutions.{module}"))


def reference(module: str) -> ModuleType | None:
    """The reference's ``module``; None, said once, in a course released without it."""
    if implementation.has_reference():
        return importlib.import_module(module)
    _say_no_reference()
    return None


@functools.cache  # one line per kernel, however many cells ask
def _say_no_reference() -> None:
    from grader.release import cells
    cells.install()  # a cell stops with one line where it needs what is not written or not here
    print("The course's reference (solutions/) is not in this release: these cells run your own "
          "lessons/, and a step you have not written yet raises NotImplementedError.")


class Course:
    """A course package or module as a notebook calls it (``impl.speculative_generate``):
    what is unfinished there, itself or through a step it calls, comes back as the
    reference's, with one printed line per cell saying so (grader/meanwhile.py); without a
    reference (None), everything is the learner's own."""

    def __init__(self, module: ModuleType, reference: ModuleType | None):
        self.module, self.reference = module, reference
        self.__name__ = module.__name__
        self._noted: set[tuple] = set()

    def __getattr__(self, name: str):
        value, package = getattr(self.module, name), self.__name__.split(".")[0]
        if self.reference is None:
            return value
        step = meanwhile.unfinished_step(value, package)
        if step is None:  # finished: the learner's own, an unfinished default replaced (a processor)
            def said(parameter: str, default: str) -> None:
                self._note(name, parameter, f"`{name}` is yours; its default `{parameter}` is not finished: "
                                            f"{meanwhile.owner(default)} still raises NotImplementedError, so "
                                            f"this cell passes the reference's `{default.split('.')[0]}` as `{parameter}`.")
            return meanwhile.reference_defaults(value, package, self.reference, said)
        self._note(name, None, f"`{name}` is not finished: {meanwhile.owner(step)} still raises "
                               f"NotImplementedError, so this cell uses the reference's `{name}`.")
        return getattr(self.reference, name)

    def _note(self, name: str, parameter: str | None, line: str) -> None:
        """Print ``line`` once per cell for each name (and parameter) it is about."""
        cell = (name, parameter, _cell_number())
        if cell not in self._noted:
            self._noted.add(cell)
            print(line)


def _cell_number() -> int | None:
    """The notebook cell running now (None outside IPython)."""
    try:
        return get_ipython().execution_count  # noqa: F821  (defined by IPython)
    except NameError:
        return None


class WithoutReference:
    """What ``check()`` gives where the course has neither its reference nor the public one
    (a release without solutions ships the public one): why, in one paragraph."""

    passed = False

    def __repr__(self) -> str:
        return student.needs_reference("`check(...)`")


class CheckResult:
    """Verdicts that print as text and show as coloured HTML in Jupyter, then one line for
    each exercise whose check needs the reference this release leaves out (``autograder_only``)."""

    def __init__(self, verdicts: list[Verdict], hints: int = 1, autograder_only: list[str] = ()):
        self.verdicts, self.hints, self.autograder_only = verdicts, hints, list(autograder_only)

    @property
    def passed(self) -> bool:
        """Every check that ran passed, and one ran at least."""
        return bool(self.verdicts) and all(v.passed for v in self.verdicts)

    def __repr__(self) -> str:
        return "\n".join([*(format_text(v, timing=False, hints=self.hints) for v in self.verdicts),
                          *(f"· {line}" for line in self.autograder_only)])

    def _repr_html_(self) -> str:
        return "".join([*(format_html(v, hints=self.hints) for v in self.verdicts),
                        *(f"<p>· {html.escape(line)}</p>" for line in self.autograder_only)])


# the kernel's warm runner (grader/decider/warm.py): started by the first check, it forks a fresh
# process for each later one, so a check answers in a fraction of a second; it never imports the
# learner's code (each fork imports it as it is on disk now) and is replaced when a course file changes
_RUNNERS = WarmRunners()


def check(*exercise_ids: str, impl: str | None = None, seed: int = 0,
          timeout: float | None = None, hint: int = 1) -> "CheckResult | WithoutReference":
    """The verdicts of ``exercise_ids`` (all by default); ``hint``: how many levels of each
    hint to show, the idea first, then closer to the code."""
    if not implementation.has_checks():
        return WithoutReference()
    impl = impl or current_impl()
    implementation.locate(impl)  # raises ImplementationNotFound, saying what was expected
    selected = [exercises.get(e) for e in exercise_ids] or [e for e in exercises.EXERCISES if e.check]
    runnable, autograder_only = student.public_split([e.id for e in selected])
    verdicts = list(run_isolated(runnable, impl, seed, timeout, runners=_RUNNERS)) if runnable else []
    progress.record(verdicts, impl, exercises.BY_ID)
    return CheckResult(verdicts, hint, autograder_only)
