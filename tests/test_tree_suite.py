"""The tree suite (grader/checks/tree_suite.py, grader/judges/tree_suite.py): what counts as
a returned tree, and the message that shows where a tree parts from the reference's."""
from grader import exercises
from grader.checks.harness import CheckRun
from grader.checks.tree_suite import is_tree
from grader.judges.tree_suite import require_same_tree


def test_a_tree_is_a_list_of_ints_each_an_earlier_node_or_the_root():
    assert is_tree([]) and is_tree([-1, 0, 0, 1, -1])
    for planted in ([0], [-1, 1], [-2], [-1, True], [-1, 0.0], (-1, 0), None, "-1"):
        assert not is_tree(planted), planted


def test_a_tree_that_parts_from_the_references_names_the_first_node_where_it_does():
    check = CheckRun(exercises.get("suffix_tree"), None, seed=0)
    require_same_tree(check, "the tree", [(-1, 3), (0, 4)], [(-1, 3), (0, 4)], "; never shown", "hint", "a")
    require_same_tree(check, "the tree", [(-1, 3), (0, 5)], [(-1, 3), (0, 4), (1, 2)], "; why", "hint", "b")
    require_same_tree(check, "the tree", [(-1, 3)], [(-1, 3), (0, 4)], "", "hint", "c")
    assert check.properties == 3
    assert [(f.case, f.message) for f in check.findings] == [
        ("b", "(parent, token) of 2 nodes: [(-1, 3), (0, 5)]; expected 3: [(-1, 3), (0, 4), (1, 2)]; the first "
              "difference is at node 1; why"),
        ("c", "(parent, token) of 1 nodes: [(-1, 3)]; expected 2: [(-1, 3), (0, 4)]; the first difference is at "
              "node 1")]
