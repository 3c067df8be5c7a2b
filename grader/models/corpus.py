"""The course's text: the Python standard library's own source, on every machine offline."""
import sysconfig
from pathlib import Path

import torch

HELD_OUT_EVERY = 50  # one file in fifty, by sorted path, is never trained on
SKIPPED = {"site-packages", "test", "tests", "idlelib"}


def corpus_files() -> tuple[list[Path], list[Path]]:
    """The standard library's ``.py`` files (tests and IDLE left out) as (train, held_out)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(f for f in root.rglob("*.py") if not SKIPPED & set(f.relative_to(root).parts))
    held_out = files[::HELD_OUT_EVERY]
    train = [f for i, f in enumerate(files) if i % HELD_OUT_EVERY]
    return train, held_out


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def encode(files: list[Path], tokenizer) -> torch.Tensor:
    """One long LongTensor ``[n_tokens]``: every file's ids followed by the end token."""
    ids = tokenizer([read(f) for f in files])["input_ids"]
    return torch.tensor([t for doc in ids for t in doc + [tokenizer.eos_token_id]])


def held_out_prompts(tokenizer, count: int, length: int = 48) -> list[list[int]]:
    """``count`` prompts of ``length`` token ids, cut from held-out files at a line start."""
    prompts = []
    for path in corpus_files()[1]:
        ids = tokenizer(read(path))["input_ids"]
        if len(ids) >= 4 * length:
            start = len(ids) // 3  # past the licence header and imports
            prompts.append(ids[start : start + length])
        if len(prompts) == count:
            break
    return prompts


def random_windows(tokens: torch.Tensor, batch: int, seq: int, gen: torch.Generator):
    """Endless random windows of ``tokens``: (inputs ``[batch, seq]``, labels ``[batch, seq]``,
    the inputs shifted by one)."""
    while True:
        starts = torch.randint(0, len(tokens) - seq - 1, (batch,), generator=gen)
        window = torch.stack([tokens[s : s + seq + 1] for s in starts])
        yield window[:, :-1], window[:, 1:]
