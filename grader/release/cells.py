"""Notebook cells in a release without the reference: what a cell cannot run there stops it
with one line, never a traceback, and the notebook runs on to its end.

Without the reference a notebook's cells run the learner's own ``lessons/`` (grader/notebook.py).
A cell then stops, saying so in one line, where it meets:

- a step the learner has not written yet (``NotImplementedError``): the line names it and its
  file, and the cell gives real output once it is written;
- an exercise's answer the release leaves out (the public reference's ``ReferenceWithheld``),
  or a file that only the full course ships (``course_file``: the mutants in ``tests/``): the
  line says what the cell needs, and that the notebook stores its output;
- a name that a cell stopped so would have defined (a plot of a measurement not made): the line
  says which earlier cell's note to read. A list, dict or set such a cell bound before it
  stopped (results half filled) is unbound again, so that no later cell draws from it as if it
  were complete; what it bound otherwise (a processor, a number) is whole, and stays.

Any other error is the learner's to see, with its traceback, as usual. IPython's own hooks do it
(``install``): a custom exception handler prints the line, and ``post_run_cell`` marks such a
cell as run, so that "Run All", nbclient and nbval go on to the next cell.
"""
import ast
from pathlib import Path

WITHHELD = "ReferenceWithheld"  # the public reference's stubs raise it (grader/runner/reference.py)


class NotInRelease(RuntimeError):
    """A file of the full course that this release leaves out."""


def install() -> bool:
    """Give this IPython kernel's cells the one-line stops; False outside IPython."""
    try:
        shell = get_ipython()  # noqa: F821  (defined by IPython)
    except NameError:
        return False
    stops = Stops(shell.user_ns)
    shell.set_custom_exc((NotImplementedError, RuntimeError, NameError), stops.handle)
    shell.events.register("pre_run_cell", stops.starting)
    shell.events.register("post_run_cell", stops.ran)
    return True


def course_file(path: Path) -> Path:
    """``path``, a file the full course ships (tests/mutants/...): NotInRelease where this
    release leaves it out."""
    if not path.exists():
        raise NotInRelease(f"This cell needs {path.parent.name}/{path.name} of the full course's "
                             "tests, which this release leaves out: its stored output shows what it gives.")
    return path


class Stops:
    """The cells stopped with a line in this kernel, and the names they would have defined."""

    def __init__(self, namespace: dict):
        self.namespace = namespace  # the kernel's user namespace
        self.unfinished: set[str] = set()  # top-level names of the cells stopped with a line
        self.stopped: BaseException | None = None  # the exception of the cell running now, if noted
        self.before: dict[str, int] = {}  # id of each name the running cell binds, as it began

    def starting(self, info) -> None:
        """Before each cell: what the names it binds hold, to tell what it rebinds."""
        self.before = {n: id(self.namespace[n]) for n in defined(info.raw_cell) if n in self.namespace}

    def handle(self, shell, kind, value, tb, tb_offset=None):
        """IPython's custom exception handler: the line, or the usual traceback."""
        said = self.line(value, tb)
        if said is None:
            shell.showtraceback((kind, value, tb), tb_offset=tb_offset)
            return
        self.stopped = value
        print(said)

    def ran(self, result) -> None:
        """After each cell: one stopped with a line counts as run, and its names as unfinished."""
        names = defined(result.info.raw_cell if result is not None and result.info else "")
        if result is not None and self.stopped is not None and result.error_in_exec is self.stopped:
            result.error_in_exec = None
            self.unfinished |= names
            for name in names:  # a collection bound or rebound before the stop: half filled
                value = self.namespace.get(name)
                if isinstance(value, (list, dict, set)) and id(value) != self.before.get(name):
                    del self.namespace[name]
        elif result is not None and result.success:
            self.unfinished -= names  # made now
        self.stopped = None

    def line(self, value: BaseException, tb) -> str | None:
        """What stops the cell, in one line; None for an error the learner must see whole."""
        if isinstance(value, NotImplementedError):
            code = _last_frame(tb).f_code  # its qualified name: MultinomialProcessor.__call__
            where = Path(code.co_filename)
            return (f"Stopped here: `{code.co_qualname}` ({where.parent.name}/{where.name}) still raises "
                    "NotImplementedError. This cell runs your own code: write that step, then run it again.")
        if type(value).__name__ == WITHHELD:
            return ("Stopped here: this cell needs the course's reference, which this release leaves out "
                    f"({str(value).split(':')[0]}); its stored output shows what it gives.")
        if isinstance(value, NotInRelease):
            return f"Stopped here: {value}"
        if isinstance(value, NameError) and getattr(value, "name", None) in self.unfinished:
            return (f"Stopped here: this cell needs `{value.name}`, which an earlier cell stopped before "
                    "making (its line says why).")
        return None


def defined(source: str) -> set[str]:
    """The names a cell's top level binds (assignments, loops, imports, definitions)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in statement.names}
        else:
            names |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _last_frame(tb):
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame
