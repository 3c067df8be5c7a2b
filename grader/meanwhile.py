"""The reference stands in for what a learner has not written yet, in the notebooks.

A notebook calls the course through ``course()`` (grader/notebook.py). A function or
class of ``lessons`` that is unfinished, itself or through a step it calls, comes back as
the reference's, with one printed line saying so, so the notebook runs top to bottom at
any stage; the ``check()`` cells still show the learner's true state. Unfinished is read
from the source before anything runs, so a half-run attempt never mixes its forwards or
random draws with the reference's: a function whose body only raises
NotImplementedError, a class with such a method, or anything that calls one of those.
"""
import ast
import dis
import functools
import inspect
import textwrap
import types

from grader import exercises


def unfinished_step(value, package: str = "lessons", seen: set | None = None) -> str | None:
    """The name of a step of ``package`` that ``value`` is or calls and that still only
    raises NotImplementedError (``GreedyProcessor.sample``); None when there is none."""
    seen = set() if seen is None else seen
    value = inspect.unwrap(value) if callable(value) else value  # under @torch.inference_mode()
    if id(value) in seen or not _in_package(value, package):
        return None
    seen.add(id(value))
    if inspect.isclass(value):
        methods = [(name, member) for klass in value.__mro__ if _in_package(klass, package)
                   for name, member in vars(klass).items() if inspect.isfunction(member)]
        for name, method in methods:
            if _only_raises(method):
                return f"{value.__name__}.{name}"
        return next(filter(None, (unfinished_step(m, package, seen) for _, m in methods)), None)
    if not inspect.isfunction(value):
        return None
    if _only_raises(value):
        return value.__name__
    defaults = [*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values()]
    called = [value.__globals__.get(name) for name in _names(value.__code__)]
    for step in [*called, *map(type, defaults)]:  # a default's class: a loop's GreedyProcessor()
        found = unfinished_step(step, package, seen)
        if found:
            return found
    return None


def owner(step: str) -> str:
    """``max_fn`` -> "`max_fn` (lesson 1, `grader check max_fn`)"; a step that is no
    exercise of its own is named alone."""
    head = step.split(".")[0]
    exercise = next((e for e in exercises.EXERCISES if head in e.functions), None)
    return f"`{step}`" + (f" (lesson {exercise.lesson}, `grader check {exercise.id}`)" if exercise else "")


def unfinished_loops(loops: list, what: str) -> str:
    """Why ``what`` (a command) cannot run ``loops`` (functions of one implementation), in one
    line naming the first step they are or call that still raises NotImplementedError; ""
    when they are finished."""
    step = next(filter(None, (unfinished_step(loop, loop.__module__.split(".")[0]) for loop in loops)), None)
    if step is None:
        return ""
    names = " and ".join(f"`{loop.__name__}`" for loop in loops)
    return (f"{what} runs your own {names}, and {owner(step)} still raises NotImplementedError: "
            f"finish it, then run {what} again.")


def _in_package(value, package: str) -> bool:
    return (getattr(value, "__module__", None) or "").split(".")[0] == package


def _only_raises(function) -> bool:
    """Whether the function's body, its docstring aside, is one ``raise NotImplementedError``."""
    return _code_only_raises(function.__code__)


@functools.cache  # by code object: an edited and re-imported lesson has new ones
def _code_only_raises(code: types.CodeType) -> bool:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(code)))
    except (OSError, TypeError, SyntaxError):
        return False
    return bool(tree.body) and isinstance(tree.body[0], ast.FunctionDef) and is_stub(tree.body[0])


def is_stub(function: ast.FunctionDef) -> bool:
    """Whether a function's body, its docstring aside, is one ``raise NotImplementedError``."""
    statements = [s for s in function.body
                  if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return (len(statements) == 1 and isinstance(statements[0], ast.Raise)
            and "NotImplementedError" in ast.unparse(statements[0]))


def _names(code: types.CodeType) -> set[str]:
    """The global names a code object and the functions nested in it load."""
    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names(constant)
    return names
