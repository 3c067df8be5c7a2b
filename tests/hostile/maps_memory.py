"""Takes memory where a limit on writable memory alone (RLIMIT_DATA) does not count it: a
12 GiB shared mapping; writes 100 MB into each in-memory folder of its sandbox it can find
(/dev, /dev/shm, /tmp, the folders that cover the grader's judges and studies); prints how far
each got; its max_fn is wrong."""
import mmap
import os

import grader

COVERS = [os.path.join(os.path.dirname(grader.__file__), name) for name in ("judges", "studies")]


def _map_shared() -> str:
    try:
        mapped = mmap.mmap(-1, 12 * 2**30, flags=mmap.MAP_SHARED)
        mapped.close()
        return "mapped"
    except (OSError, MemoryError) as exc:
        return f"refused ({type(exc).__name__})"


def _fill(folder: str) -> str:
    written, path = 0, os.path.join(folder, "fill")
    try:
        with open(path, "wb") as f:
            while written < 100 * 2**20:
                f.write(b"\0" * 2**20)
                f.flush()
                written += 2**20
        return f"wrote {written >> 20} MB"
    except OSError as exc:
        return f"stopped after {written >> 20} MB: {exc.strerror}"
    finally:
        try:
            os.remove(path)
        except OSError:
            pass


def max_fn(x):
    print("shared 12 GiB:", _map_shared())
    for folder in ["/dev", "/dev/shm", "/tmp", *COVERS]:
        print(f"{folder}:", _fill(folder))
    return x * 0
