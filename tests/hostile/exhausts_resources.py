"""Tries to fill the disk (its /tmp, and the grading user's compile cache, which an overlay
once let it fill without limit), to take all memory; prints how far each got and its process
limit; returns x unchanged."""
import glob
import os
import resource


def _fill(folder: str) -> str:
    """16 MB files in ``folder``, up to 1 GB: each under the file-size limit, together over /tmp's size."""
    written, files = 0, []
    try:
        while written < 2**30:
            files.append(f"{folder}/fill{len(files)}")
            with open(files[-1], "wb") as f:
                for _ in range(16):
                    f.write(b"\0" * 2**20)
                    f.flush()
                    written += 2**20
    except OSError as exc:
        return f"stopped after {written >> 20} MB: {exc.strerror}"
    finally:
        for name in files:
            if os.path.exists(name):
                os.remove(name)
    return f"wrote {written >> 20} MB"


def _take_memory() -> str:
    try:
        hoard = bytearray(16 * 2**30)
        return f"took {len(hoard) >> 30} GB"
    except MemoryError:
        return "MemoryError"


def max_fn(x):
    print("disk:", _fill("/tmp"))
    caches = glob.glob("/tmp/torchinductor_*") + [os.environ.get("TORCHINDUCTOR_CACHE_DIR", "/nonexistent")]
    print("cache:", [_fill(folder) for folder in caches if os.path.isdir(folder)])
    print("memory:", _take_memory())
    print("process limit:", resource.getrlimit(resource.RLIMIT_NPROC))
    return x
