"""The reference implementation of every exercise (same names as ``lessons``).

``MODULES`` lists the package's modules in the course's order, and each module's ``__all__``
names what it exports; ``EXPORTS`` gathers them, by module. Both are literals: the grader
reads them as text (``grader.exercises.EXPORTS``), never importing the reference, and
lessons/__init__.py is written from them. Every module of ``solutions`` is also the source of
its lesson: ``python -m grader.release.lessons`` writes ``lessons/``.
"""
import importlib

MODULES = ("sampling", "autoregressive", "residual", "verification", "speculative", "ngram", "trees", "fast",
           "batched", "distill", "eagle", "suffix")  # in the course's order (a literal)

_modules = {module: importlib.import_module(f"solutions.{module}") for module in MODULES}
EXPORTS = {module: tuple(found.__all__) for module, found in _modules.items()}
__all__ = [name for names in EXPORTS.values() for name in names]
globals().update({name: getattr(_modules[module], name) for module, names in EXPORTS.items() for name in names})
