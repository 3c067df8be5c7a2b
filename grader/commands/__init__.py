"""The front ends of the `grader` commands whose work lives in the grader's core: `check`,
`list` and `grade`. Each module owns its command's ``add_arguments(parser)`` and
``run(options) -> exit status``; grader/cli.py dispatches to them (the tools' commands live
with their tools: grader/bench, grader/audit, grader/release)."""
