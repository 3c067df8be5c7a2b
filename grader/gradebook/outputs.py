"""What one ``grader grade`` run writes, and where: the grading secret (kept, mode 0600, when
it was drawn for this run), the long CSV, the wide gradebook, the class summary and
Gradescope's results.json. Each is written on its own: one that cannot be (a folder where a
file should be, a CSV another tool wrote) is named, and the others are written all the same."""
import time
from dataclasses import dataclass
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
          outputs: Outputs) -> list[str]:
    """Write every output named; returns a line for each that could not be written."""
    writers = [(outputs.csv, lambda p: sheets.write_long(rows, p, scoring, sandboxed)),
               (outputs.gradebook, lambda p: sheets.write_wide(rows, p, scoring)),
               (outputs.summary, lambda p: p.write_text(report.summary(rows, scoring, refused) + "\n",
                                                        encoding="utf-8")),
               (outputs.gradescope, lambda p: results.write(rows, p, scoring, sandboxed))]
    failures = []
    for path, writer in writers:
        if path is None:
            continue
        try:
            writer(path)
        except Exception as exc:  # noqa: BLE001 - one output never stops the others (SheetError says why)
            failures.append(f"{path} was not written: {exc if isinstance(exc, (OSError, ValueError)) else repr(exc)}")
    return failures
