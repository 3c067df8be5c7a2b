"""The instructor's grading secret: 32 random bytes (``secrets``) from which every seed of a
class's grading is derived with HMAC-SHA256 (``grader.grade.submission_seed``), so that no
seed shown in a verdict, a CSV or a results.json gives it back. It is kept in a file of its
own, readable by its owner alone (mode 0600), as hex digits on one line; passing that file
again (``--secret-file``) redraws the same values."""
import hmac
import os
import secrets
from pathlib import Path

BYTES = 32  # drawn
MIN_BYTES = 16  # accepted from a file: 128 bits, beyond any search
MAX_FILE = 1024  # bytes read from a secret file at most


class SecretError(ValueError):
    """A secret file that cannot be used: the message says why and what is expected."""


def draw() -> bytes:
    return secrets.token_bytes(BYTES)


def read(path: Path) -> bytes:
    """The secret kept in ``path``. Raises SecretError where it cannot be read, or holds fewer
    than MIN_BYTES bytes as hex digits."""
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_FILE).decode("ascii").strip()
        secret = bytes.fromhex(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SecretError(f"{path} holds no grading secret ({type(exc).__name__}); expected at least "
                          f"{2 * MIN_BYTES} hex digits on one line, as `grader grade` writes it") from None
    if len(secret) < MIN_BYTES:
        raise SecretError(f"{path} holds {len(secret)} bytes of secret; expected at least {MIN_BYTES} "
                          f"({2 * MIN_BYTES} hex digits): a short secret could be found by trying them all")
    return secret


def write(path: Path, secret: bytes) -> Path:
    """Keep ``secret`` in a new file at ``path`` (mode 0600; an existing file is never replaced:
    it may hold the secret of grades already given). Raises SecretError if it cannot."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise SecretError(f"cannot keep the grading secret in {path}: {exc.strerror or exc}"
                          + ("; pass it with --secret-file to use it, or name another" if path.exists() else ""))
    with os.fdopen(descriptor, "w") as f:
        f.write(secret.hex() + "\n")
    return path


def derive(secret: bytes, label: str) -> bytes:
    """A secret of its own for ``label`` (Gradescope's id of one submission), as strong as
    ``secret`` and telling nothing of it."""
    return hmac.new(secret, b"derived\0" + label.encode("utf-8", "surrogatepass"), "sha256").digest()
