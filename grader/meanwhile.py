"""The reference stands in for what a learner has not written yet, in the notebooks; and
which unfinished steps a learner's function reaches, named all at once.

A notebook calls the course through ``course()`` (grader/notebook.py). A function or
class of ``lessons`` that is unfinished, itself or through a step it calls, comes back as
the reference's, with one printed line saying so, so the notebook runs top to bottom at
any stage; the ``check()`` cells still show the learner's true state. Unfinished is read
from the source before anything runs, so a half-run attempt never mixes its forwards or
random draws with the reference's: a function whose body only raises
NotImplementedError, a class with such a method, or anything that calls one of those.
A default argument (a loop's ``logits_processor=GreedyProcessor()``) is no step the loop
calls: a finished loop stays the learner's, and where the default's class is unfinished
the reference's instance is passed in its place (``reference_defaults``), said in one line.
"""
import ast
import dis
import functools
import inspect
import sys
import textwrap
import types
from dataclasses import dataclass

from grader import exercises


@dataclass(frozen=True)
class Step:
    """A function or method of a learner's package that still only raises NotImplementedError."""

    name: str  # "speculative_sampling", "GreedyProcessor.__call__"
    module: str  # the module defining it, in its package: "verification"

    @property
    def head(self) -> str:
        """The name a module holds: "GreedyProcessor" for "GreedyProcessor.__call__"."""
        return self.name.split(".")[0]


def unfinished_steps(value, packages: str | tuple[str, ...] = "lessons", defaults: bool = False) -> list[Step]:
    """Every step of ``packages`` that ``value`` is or reaches and that still only raises
    NotImplementedError, in the order first reached. Reached, statically: the global names
    a function's code (nested functions included) loads, the members of a package's module
    it loads by attribute, a class's methods (as its instances resolve them), transitively
    within ``packages``; with ``defaults``, a default argument's class too (what a caller
    that passes none runs: `grader demo`)."""
    packages = (packages,) if isinstance(packages, str) else tuple(packages)
    found: dict[Step, None] = {}
    _walk(value, packages, defaults, set(), found)
    return list(found)


def unfinished_step(value, package: str = "lessons") -> str | None:
    """The name of the first step of ``package`` that ``value`` is or calls and that still
    only raises NotImplementedError (``GreedyProcessor.sample``); None when there is none."""
    steps = unfinished_steps(value, package)
    return steps[0].name if steps else None


def _walk(value, packages: tuple[str, ...], defaults: bool, seen: set[int], found: dict) -> None:
    value = inspect.unwrap(value) if callable(value) else value  # under @torch.inference_mode()
    if id(value) in seen or not _in_package(value, packages):
        return
    seen.add(id(value))
    if inspect.isclass(value):
        for name, method in _methods(value, packages):
            if _only_raises(method.__code__):
                found.setdefault(Step(f"{value.__name__}.{name}", _module(value)))
            else:
                _walk(method, packages, defaults, seen, found)
        return
    if not inspect.isfunction(value):
        return
    if _only_raises(value.__code__):
        found.setdefault(Step(value.__name__, _module(value)))
        return
    loaded, attributes = _names(value.__code__)
    for name in loaded:
        step = value.__globals__.get(name)
        if inspect.ismodule(step):  # `from lessons import verification` … `verification.max_fn(…)`
            for member in attributes:
                _walk(getattr(step, member, None), packages, defaults, seen, found)
        else:
            _walk(step, packages, defaults, seen, found)
    if defaults:
        for default in [*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values()]:
            _walk(type(default), packages, defaults, seen, found)


def _methods(klass: type, packages: tuple[str, ...]) -> list[tuple[str, types.FunctionType]]:
    """(name, function) of each method an instance of ``klass`` resolves to a class of
    ``packages`` (an overridden method is not one), the base classes' names first."""
    names = dict.fromkeys(n for base in reversed(klass.__mro__) if _in_package(base, packages) for n in vars(base))
    methods = []
    for name in names:
        resolved = next(base for base in klass.__mro__ if name in vars(base))
        if _in_package(resolved, packages) and inspect.isfunction(vars(resolved)[name]):
            methods.append((name, vars(resolved)[name]))
    return methods


def owner(step: str, module: str | None = None) -> str:
    """``max_fn`` -> "`max_fn` (lesson 1, `grader check max_fn`)"; a step that is no
    exercise's (nor a step the learner writes for one, ``Exercise.withheld``) is named alone.
    ``module``: the step's module, where two lessons' steps share a name (``draft``)."""
    exercise = _exercise(step, module)
    return f"`{step}`" + (f" (lesson {exercise.lesson}, `grader check {exercise.id}`)" if exercise else "")


def _exercise(step: str, module: str | None = None):
    """The first exercise whose functions, then whose withheld steps, hold ``step``'s head."""
    head = step.split(".")[0]
    candidates = [e for e in exercises.EXERCISES if e.module == module] or exercises.EXERCISES  # a file: any
    return (next((e for e in candidates if head in e.functions), None)
            or next((e for e in candidates if head in e.withheld), None))


def reached_text(steps: list[Step], reference_has) -> str:
    """What to do about ``steps`` (every unfinished step a function reaches), in one or two
    sentences: each named with its exercise, grouped by lesson, then the imports that take
    the reference's meanwhile, where ``reference_has(step)`` (a public reference withholds
    every exercise's steps). A step of an exercise is imported from that exercise's module."""
    located = [(Step(s.name, e.module if e else s.module), e)
               for s in steps for e in [_exercise(s.name, s.module)]]
    located.sort(key=lambda pair: pair[1].lesson if pair[1] else 99)  # stable: as first reached within a lesson
    imports: dict[str, list[str]] = {}
    for step, _ in located:
        if reference_has(step) and step.head not in imports.get(step.module, []):
            imports.setdefault(step.module, []).append(step.head)
    taken = "; ".join(f"`from solutions.{module} import {', '.join(sorted(heads))}`"
                      for module, heads in imports.items())
    if len(located) == 1:
        (step, exercise), = located
        how = f"`grader check {exercise.id}`" if exercise else "its docstring has the contract"
        offer = f", or meanwhile import the reference one: {taken}" if taken else ""
        return f"Finish `{step.name}` first ({how}){offer}."
    groups: list[tuple[list[str], object]] = []  # consecutive steps of one exercise, named once
    for step, exercise in located:
        if groups and exercise is not None and groups[-1][1] is exercise:
            groups[-1][0].append(f"`{step.name}`")
        else:
            groups.append(([f"`{step.name}`"], exercise))
    named = "; ".join(", ".join(names) + (f" (lesson {e.lesson}, `grader check {e.id}`)" if e else "")
                      for names, e in groups)
    return (f"In all it reaches {len(located)} unfinished steps: {named}. Finish them first"
            + (f", or meanwhile import the reference's: {taken}" if taken else "") + ".")


def unfinished_loops(loops: list, what: str) -> str:
    """Why ``what`` (a command that calls ``loops`` with their default arguments) cannot run
    them (functions of one implementation), in one line naming the first step they are, call
    or take as a default that still raises NotImplementedError; "" when they are finished."""
    step = next((steps[0] for loop in loops
                 if (steps := unfinished_steps(loop, loop.__module__.split(".")[0], defaults=True))), None)
    if step is None:
        return ""
    names = " and ".join(f"`{loop.__name__}`" for loop in loops)
    return (f"{what} runs your own {names}, and {owner(step.name, step.module)} still raises "
            f"NotImplementedError: finish it, then run {what} again.")


def reference_defaults(function, package: str, reference, said=None):
    """``function`` (finished) as a notebook cell calls it: where a default argument is an
    instance of a class of ``package`` that is unfinished (a loop's ``GreedyProcessor()``
    with lesson 0 not done), a function that passes an instance of the reference's class
    of that name (found in the module ``reference`` or its package's mirror of the class's
    module), with the default's attributes, whenever the caller passes none, and then calls
    ``said(parameter, step)`` (the step: the first unfinished one of the default's class).
    ``function`` itself where no default is replaced. The learner's function is never modified."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin or a class: no defaults to replace
        return function
    replaced = {}  # parameter -> (the reference's instance, the unfinished step of the default's class)
    for name, parameter in signature.parameters.items():
        default = parameter.default
        if default is inspect.Parameter.empty or not _in_package(type(default), (package,)):
            continue
        steps = unfinished_steps(type(default), package)
        stand_in = _reference_instance(default, package, reference) if steps else None
        if stand_in is not None:
            replaced[name] = (stand_in, steps[0].name)
    if not replaced:
        return function

    @functools.wraps(function)
    def with_reference_defaults(*args, **kwargs):
        given = signature.bind_partial(*args, **kwargs).arguments
        missing = {name: pair for name, pair in replaced.items() if name not in given}
        for name, (_, step) in missing.items():
            if said is not None:
                said(name, step)
        return function(*args, **kwargs, **{name: instance for name, (instance, _) in missing.items()})
    return with_reference_defaults


def _reference_instance(default, package: str, reference):
    """An instance of the reference's class named as ``default``'s, holding ``default``'s
    attributes (its constructor's settings); None where the reference has no such class."""
    klass = type(default)
    mirror = reference.__name__.split(".")[0] + klass.__module__[len(package):]
    # the reference's modules are imported by then: looked up in sys.modules, never imported here
    candidates = (getattr(reference, klass.__name__, None), getattr(sys.modules.get(mirror), klass.__name__, None))
    found = next((c for c in candidates if inspect.isclass(c) and not _in_package(c, (package,))), None)
    if found is None:
        return None
    instance = found.__new__(found)
    vars(instance).update(vars(default))
    return instance


def _in_package(value, packages: tuple[str, ...]) -> bool:
    return (getattr(value, "__module__", None) or "").split(".")[0] in packages


def _module(value) -> str:
    """The module's name within its package: "verification" for lessons.verification; a
    module outside any package (a learner's file) by its own name."""
    return value.__module__.rpartition(".")[2]


@functools.cache  # by code object: an edited and re-imported lesson has new ones
def _only_raises(code: types.CodeType) -> bool:
    """Whether the function of ``code`` (read from its source) is a stub (`is_stub`); False
    where its source cannot be read or is no plain ``def``."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(code)))
    except (OSError, TypeError, SyntaxError):
        return False
    return bool(tree.body) and isinstance(tree.body[0], ast.FunctionDef) and is_stub(tree.body[0])


def is_stub(function: ast.FunctionDef) -> bool:
    """Whether a function's body, its docstring aside, is one ``raise NotImplementedError``:
    the exception's name, or a call of it with any arguments. Read from the syntax tree, not
    the text, so that a message merely naming it (``raise ValueError("NotImplementedError")``)
    makes no stub."""
    statements = [s for s in function.body
                  if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(statements) != 1 or not isinstance(statements[0], ast.Raise):
        return False
    raised = statements[0].exc
    raised = raised.func if isinstance(raised, ast.Call) else raised
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def _names(code: types.CodeType) -> tuple[list[str], list[str]]:
    """The global names a code object and the functions nested in it load, and the
    attribute names they load, each in the order first loaded."""
    loaded, attributes = {}, {}
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            loaded.setdefault(instruction.argval)
        elif instruction.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            attributes.setdefault(instruction.argval)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            inner, inner_attributes = _names(constant)
            loaded.update(dict.fromkeys(inner))
            attributes.update(dict.fromkeys(inner_attributes))
    return list(loaded), list(attributes)
