"""The reference implementation of every exercise (same names as ``lessons``).

The names are those of ``grader.exercises.EXPORTS``, each imported here from its module;
lessons/__init__.py is written from the same list. Every other module of ``solutions`` is
also the source of its lesson: ``python -m grader.release.lessons`` writes ``lessons/``.
"""
import importlib

from grader.exercises import EXPORTS

__all__ = [name for names in EXPORTS.values() for name in names]
for _module, _names in EXPORTS.items():
    globals().update({name: getattr(importlib.import_module(f"solutions.{_module}"), name) for name in _names})
