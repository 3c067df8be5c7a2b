"""What one ``grader grade`` run writes, and where: the grading secret (kept, mode 0600, when
it was drawn for this run), the long CSV, the wide gradebook, the class summary and
Gradescope's results.json. Each is written on its own: one that cannot be (a folder where a
file should be, a CSV another tool wrote) is named, and the others are written all the same."""
import time
from dataclasses import dataclass, replace
from pathlib import Path

from grader.grade import Row
from grader.gradebook import report, results, sheets
from grader.gradebook.scoring import Scoring
from grader.release import secret as secrets

SECRET_NAME = "grader-secret-{stamp}"  # a new one each run: an older secret is never replaced


@dataclass(frozen=True)
class Outputs:
    csv: Path | None = None  # the long CSV
    gradebook: Path | None = None  # the wide one
    summary: Path | None = None
    gradescope: Path | None = None  # one results.json, or a folder of <submission>/results.json

    def secret_path(self) -> Path:
        """Where a secret drawn for this run is kept: beside the first output named (in the
        folder that holds it), else in the working folder; its name holds the time."""
        first = next((p for p in (self.gradebook, self.csv, self.summary, self.gradescope) if p), None)
        folder = first.absolute().parent if first else Path.cwd()
        return folder / SECRET_NAME.format(stamp=time.strftime("%Y%m%d-%H%M%S", time.gmtime()))


def grading_secret(given: Path | None) -> tuple[bytes, bool]:
    """(secret, drawn): the one kept in ``given`` where that file exists, else a new one, which
    the caller keeps (``keep``) once grading is done. Raises SecretError for a file that holds none."""
    if given is not None and given.exists():
        return secrets.read(given), False
    return secrets.draw(), True


def keep(secret: bytes, given: Path | None, outputs: Outputs) -> str:
    """Keep a secret drawn for this run (at ``given``, else beside the outputs) and say where.
    Written after grading, so that no runner of this run could have seen the file."""
    path = secrets.write(given or outputs.secret_path(), secret)
    return (f"The grading secret of this run is kept in {path} (mode 0600): every seed shown is derived "
            f"from it. Keep it private; `--secret-file {path}` redraws the same values.")


def write(rows: list[Row], refused: list[str], scoring: Scoring, sandboxed: bool,
          outputs: Outputs) -> tuple[str, list[str]]:
    """Write every output named; returns the class summary (of the long CSV as merged, so that
    after a regrade it covers the whole class: ``report.class_summary``) and a line for each
    output that could not be written."""
    failures = []
    try:
        long = sheets.merged_long(rows, outputs.csv, scoring, sandboxed)
    except Exception as exc:  # noqa: BLE001 - that file is left as it is; the summary covers this run
        failures.append(_not_written(outputs.csv, exc))
        long, outputs = sheets.long_rows(rows, scoring, sandboxed), replace(outputs, csv=None)
    said = report.class_summary(long, scoring, refused, len(rows), outputs.csv)
    writers = [(outputs.csv, lambda p: sheets.write_long_table(p, long)),
               (outputs.gradebook, lambda p: sheets.write_wide(rows, p, scoring)),
               (outputs.summary, lambda p: p.write_text(said + "\n", encoding="utf-8")),
               (outputs.gradescope, lambda p: results.write(rows, p, scoring, sandboxed))]
    for path, writer in writers:
        if path is None:
            continue
        try:
            writer(path)
        except Exception as exc:  # noqa: BLE001 - one output never stops the others (SheetError says why)
            failures.append(_not_written(path, exc))
    return said, failures


def _not_written(path: Path, exc: Exception) -> str:
    return f"{path} was not written: {exc if isinstance(exc, (OSError, ValueError)) else repr(exc)}"
