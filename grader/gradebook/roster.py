"""Who handed a submission in: the id, name and email Gradescope's ``submission_metadata.json``
gives, for the wide gradebook. Gradescope writes that file beside the learner's files
(``/autograder/submission_metadata.json`` beside ``submission/``), so a class folder of such
per-submission folders carries it; a learner can write one too in a folder they make, so the
gradebook's key column (the file name) stays beside it."""
import json
import os
import stat
from pathlib import Path

from grader.grade import METADATA
from grader.verdict import printable
MAX_BYTES = 256 * 1024  # Gradescope's file is a few KB
MAX_USERS = 20  # a group submission lists each member
FIELD_LIMIT = 200  # characters of one member's id, name or email


def student(path: Path) -> dict[str, str]:
    """{"id", "name", "email"} of the submission at ``path`` (a folder) from its
    ``submission_metadata.json``, each member of a group joined with "; "; {} where there is
    none, or it is a link, too large or not Gradescope's shape. A member's id is the school's
    (``sid``) where given, else Gradescope's user id."""
    users = _users(path / METADATA) if path.is_dir() else None
    if not users:
        return {}
    def joined(*keys: str) -> str:
        values = (next((u[k] for k in keys if u.get(k) not in (None, "")), "") for u in users)
        return "; ".join(printable(str(v), FIELD_LIMIT, one_line=True) for v in values)
    return {"id": joined("sid", "id"), "name": joined("name"), "email": joined("email")}


def _users(file: Path) -> list[dict] | None:
    try:
        # a link could name any file; a pipe would wait for a writer for ever (O_NONBLOCK), and a
        # device could be read without end: a plain file alone is read
        descriptor = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as opened:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return None
            data = opened.read(MAX_BYTES + 1)
        users = json.loads(data)["users"] if len(data) <= MAX_BYTES else None
    except (OSError, ValueError, TypeError, KeyError, RecursionError):  # RecursionError: nested too deep
        return None
    if not isinstance(users, list):
        return None
    return [u for u in users if isinstance(u, dict)][:MAX_USERS]
