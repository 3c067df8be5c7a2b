"""What ``grader grade`` gives an instructor from a class's rows, decided already (nothing of a
submission runs here):

- ``scoring``: points per exercise and partial credit, from an optional TOML config;
- ``report``: the table and the class summary, printed (and the summary written);
- ``sheets``: the long CSV (one row per verdict) and the wide gradebook (one per student),
  each merged into the file already there;
- ``results``: Gradescope's results.json per submission;
- ``roster``: the id, name and email of Gradescope's metadata, where a submission has it.

Every text from a runner or a file name is made printable (``grader.verdict.printable``)
and capped before it is printed or written.
"""
from grader.gradebook.results import SANDBOXED, UNSANDBOXED  # noqa: F401 - what the results say
from grader.gradebook.sheets import inert  # noqa: F401 - the CSVs' formula guard
