"""The public reference: what a release without solutions ships as ``solutions/``.

A check gives the learner's function inputs from the reference (models, provided helpers,
constants), and its judge computes expected values, some from exact laws, some from the
reference's own functions. The public reference is the reference with every exercise's own
functions (``Exercise.withheld``, lesson 0's processors included) reduced to stubs, as the
decider reduces the graded exercises' names for a grading runner (grader/decider/reference.py):
signatures, docstrings and everything provided stay, each answer raises ``ReferenceWithheld``
saying where to write it. So the checks whose inputs and expected values need no exercise's
answer (``PUBLIC``) give real verdicts in the release; the others stay with the instructor's
autograder, which has the whole reference. Each exercise declares which in its entry in
grader/exercises.py (``Exercise.needs_reference``: what of the reference its check needs, empty
when none), from which ``PUBLIC`` and ``AUTOGRADER_ONLY`` are read. ``MARK`` tells this package
from the reference (``implementation.has_reference``).
"""
import ast

from grader import exercises
from grader.decider.reference import reference_sources
from grader.implementation import PUBLIC_MARK as MARK
WITHHELD = "__withheld__"  # a module's tuple of its stubbed names, as a grading runner's reference has it
HEADER = ("# The public reference of a release without solutions (grader/release/public.py): the "
          "checks' inputs, every exercise's own functions a stub.\n")

# The exercises whose check runs on the public reference, in the course's order: neither the check
# nor its judge calls an exercise's answer. tests/test_release.py runs every exercise there
# (-m slow) and holds this to what passes and what meets a stub.
PUBLIC = tuple(e.id for e in exercises.EXERCISES if not e.needs_reference)
# exercise -> what of the reference its check needs, in one line, for each other exercise
AUTOGRADER_ONLY = {e.id: e.needs_reference for e in exercises.EXERCISES if e.needs_reference}

NOTE = """# This is not the course's reference

This release leaves the reference out. `solutions/` holds only what the public checks take as
their input: models, the helpers each lesson provides, constants. Every exercise's own
functions here are stubs that raise `ReferenceWithheld`; write yours in `lessons/`.

`grader check` (and `check()` in a notebook) runs the public checks on your `lessons/`:
{public}. The others need the reference for their expected values; your course's autograder
checks them when you hand `lessons/` in.
"""


def sources() -> dict[str, str]:
    """{path in the release: text} of the public reference: ``solutions/*.py`` and ``MARK``."""
    written = {MARK: NOTE.format(public=", ".join(PUBLIC))}
    for module, source in reference_sources(tuple(e.id for e in exercises.EXERCISES)).items():
        path = "solutions/__init__.py" if module == "solutions" else f"{module.replace('.', '/')}.py"
        written[path] = HEADER + released(source, module)
    return written


def released(source: str, module: str) -> str:
    """``source`` with each stub's message saying that the release leaves the answer out (the
    decider's says "withheld while graded"), and its stubbed names listed in ``WITHHELD``
    where the decider has not listed them; unchanged where it has no stub."""
    tree, stubbed = ast.parse(source), []
    for node in tree.body:
        methods = node.body if isinstance(node, ast.ClassDef) else [node]
        for function in (m for m in methods if isinstance(m, ast.FunctionDef) and _stub_call(m)):
            name = function.name if node is function else f"{node.name}.{function.name}"
            _stub_call(function).args = [ast.Constant(
                f"`{module}.{name}` is not in this release: it is an exercise's answer, which your "
                f"course's autograder alone holds. Write it in lessons/{module.split('.')[-1]}.py.")]
            stubbed.append(node.name)
    listed = any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == WITHHELD for t in node.targets)
                 for node in tree.body)
    if stubbed and not listed:  # the checks' advice never points at a stub (grader/checks/harness.py)
        tree.body += ast.parse(f"{WITHHELD} = {tuple(sorted(set(stubbed)))!r}").body
    return ast.unparse(tree) + "\n"


def _stub_call(function: ast.FunctionDef) -> ast.Call | None:
    """The ``_ReferenceWithheld(...)`` call a stub's body raises, or None."""
    last = function.body[-1]
    if (isinstance(last, ast.Raise) and isinstance(last.exc, ast.Call)
            and isinstance(last.exc.func, ast.Name) and last.exc.func.id == "_ReferenceWithheld"):
        return last.exc
    return None


def why_not_public(exercise_id: str) -> str:
    """One line: why ``exercise_id``'s check does not run in a release without the reference."""
    return (f"{exercise_id}: checked by your course's autograder only. Its check needs the reference this "
            f"release leaves out ({AUTOGRADER_ONLY[exercise_id]}); hand your lessons/ in for its verdict.")
