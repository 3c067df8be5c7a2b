"""The course's toolkit: checks, statistics, exact laws, tiny models, the shipped pair, the CLI.

``from grader import check, load_pair``; both are imported on first use, so the
command line starts without loading torch.
"""
__all__ = ["check", "load_pair"]


def __getattr__(name):
    if name == "check":
        from grader.notebook import check
        return check
    if name == "load_pair":
        from grader.models import load_pair
        return load_pair
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
