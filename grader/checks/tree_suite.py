"""The tree suite's runner half: what the checks of a speculation tree (dynamic_tree,
suffix_tree) require of a returned tree before its judge compares it with the reference's
(grader/judges/tree_suite.py)."""


def is_tree(parents: object) -> bool:
    """Whether ``parents`` is a list of Python ints, each -1 (a child of the root) or the
    index of an earlier node: a tree in the order it was made, a parent before its children."""
    return isinstance(parents, list) and all(type(p) is int and -1 <= p < i for i, p in enumerate(parents))
