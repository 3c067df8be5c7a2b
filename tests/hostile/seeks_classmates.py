"""Looks for what grading must not show a runner: the class folder and its listing, the
folder grading was started from, a file on the instructor's PYTHONPATH, and classmates'
names in its mount table. The test writes the paths to try into ``PLACES`` (its copy of this
file); prints what it found; its max_fn is wrong."""
import os

PLACES = {}  # {what: path}, filled in by the test


def _look(path: str) -> str:
    try:
        if os.path.isdir(path):
            return f"listed {sorted(os.listdir(path))}"
        with open(path) as f:
            return f"read {f.read()[:80]!r}"
    except OSError as exc:
        return f"refused ({exc.strerror})"


def max_fn(x):
    for what, path in PLACES.items():
        print(f"{what}: {'there' if os.path.exists(path) else 'absent'}, {_look(path)}")
    with open("/proc/self/mountinfo") as f:
        mounts = f.read()
    print("names in the mount table:", sorted(name for name in PLACES.get("classmates", "").split(",")
                                           if name and name in mounts))
    return x * 0
