"""The grader's tests of itself: mutants each check must catch (power), valid variants
it must pass (size), and checks run in one process for the test suite."""
