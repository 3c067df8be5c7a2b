"""Store in the notebooks the outputs a learner sees on opening them.

Each notebook is executed on the lessons as shipped (every exercise a stub), so its
``check()`` cells show "not started", and a cell that calls an unfinished step shows the
line saying it used the reference's. CI then executes the notebooks on the reference with
nbval, which compares the cells tagged ``nbval-check-output`` after removing those lines
(notebooks/nbval_sanitize.cfg).

    python scripts/store_notebook_outputs.py                          # every notebook
    python scripts/store_notebook_outputs.py 03_speculative_generate  # one

It refuses to run while lessons/ differs from git's HEAD: the outputs would show your work.
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def lessons_as_shipped() -> bool:
    """Whether lessons/ equals git's HEAD (no change, no untracked file)."""
    changed = subprocess.run(["git", "status", "--porcelain", "--", "lessons/"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    return not changed.strip()


def store(path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=900, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    nbformat.write(notebook, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="notebook names without .ipynb (default: all)")
    args = parser.parse_args()
    if not lessons_as_shipped():
        sys.exit("lessons/ differs from git's HEAD: stash or commit your work there first, so that "
                 "the notebooks store what a learner who starts sees")
    paths = [NOTEBOOKS / f"{name}.ipynb" for name in args.names] or sorted(NOTEBOOKS.glob("*.ipynb"))
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        sys.exit(f"no such notebook: {', '.join(missing)}; expected names like 03_speculative_generate")
    os.environ.pop("COURSE_IMPL", None)  # the notebooks use lessons/
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ["TQDM_DISABLE"] = "1"  # a progress bar's every step would be stored
    for path in paths:
        print(f"executing {path.name} on the shipped stubs", flush=True)
        store(path)


if __name__ == "__main__":
    main()
