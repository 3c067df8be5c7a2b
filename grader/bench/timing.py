"""The conditions a timing was made under: threads chosen on purpose, other work measured.

Tiny models on a CPU run fastest on one thread (threads cost more in synchronisation than
they give), and a timing means little when other processes compete for the cores: on a
2-core machine with one busy process, two-thread timings of the course's pair swung from
0.45x to 6.5x. So every timed command sets its thread count and reports, beside its
numbers, how much CPU other processes used while it timed.
"""
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

DEFAULT_THREADS = 1
COMPETING_CORES = 0.5  # other work using this much of a core on average distorts a timing


def set_threads(threads: int) -> int:
    """Use ``threads`` intra-op threads in torch; returns the count now in force."""
    import torch

    if threads < 1:
        raise ValueError(f"--threads must be at least 1, got {threads}")
    torch.set_num_threads(threads)
    return torch.get_num_threads()


def load_averages() -> str:
    """The machine's 1-, 5- and 15-minute load averages, as a reader compares them with
    its core count: "0.52/0.61/0.70 on 2 cores"."""
    return "/".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


class LoadMeter:
    """``with LoadMeter() as load:`` measures the CPU other processes use during the block.

    Other work = the machine's busy CPU time (``/proc/stat``) minus this process's own and its
    child processes' (``own_cpu_seconds``: torch.compile's compile workers are this work, not
    other), in cores on average; where ``/proc/stat`` is missing (macOS) only the 1-minute load
    averages before and after are known.
    """

    def __enter__(self) -> "LoadMeter":
        self.loadavg_before = os.getloadavg()[0]
        self.start = time.monotonic(), _machine_busy_seconds(), own_cpu_seconds()
        return self

    def __exit__(self, *exc) -> None:
        wall, busy, own = self.start
        self.seconds = time.monotonic() - wall
        after = _machine_busy_seconds()
        self.other_cores = (None if after is None or busy is None else
                            max(0.0, (after - busy - (own_cpu_seconds() - own)) / self.seconds))
        self.loadavg_after = os.getloadavg()[0]

    @property
    def competed(self) -> bool:
        """True when other work used a noticeable share of the CPU during the timing."""
        if self.other_cores is not None:
            return self.other_cores >= COMPETING_CORES
        return self.loadavg_before >= COMPETING_CORES  # before our own work raised it

    def report(self) -> dict:
        return {"seconds": self.seconds, "cores": os.cpu_count(), "other_cores": self.other_cores,
                "loadavg_before": self.loadavg_before, "loadavg_after": self.loadavg_after,
                "competed": self.competed}

    def conditions(self) -> str:
        """The load in words: "other work used 0.20 of 2 cores; 1-min load average 1.07
        before, 1.00 after"."""
        other = (f"other work used {self.other_cores:.2f} of {os.cpu_count()} cores"
                 if self.other_cores is not None else f"{os.cpu_count()} cores")
        return f"{other}; 1-min load average {self.loadavg_before:.2f} before, {self.loadavg_after:.2f} after"

    def describe(self) -> str:
        """One line for beside the numbers; a warning when other work competed."""
        line = f"machine load while timing: {self.conditions()}"
        return line + "\n" + competition_warning("while this was timed") if self.competed else line


def competition_warning(when: str) -> str:
    """The warning beside numbers that other work slowed ``when`` ("during the γ sweep")."""
    return (f"WARNING: other processes competed for the CPU {when}; the times and speedups above "
            "are not a clean measurement. Rerun on an idle machine.")


class Phases:
    """The phases of a timed command, each under its own ``LoadMeter``, and the whole under one::

        with Phases("bench") as phases:
            with phases("γ sweep"):
                ...

    A phase's wall time and load are printed to stderr (beside the progress bars) as it
    ends, so a slow phase shows itself while the command runs, and are kept for the report
    and the JSON: a phase that other work slowed is named, not averaged away in the whole.
    """

    def __init__(self, command: str):
        self.command = command
        self.meters: dict[str, LoadMeter] = {}
        self.whole = LoadMeter()

    def __enter__(self) -> "Phases":
        self.whole.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.whole.__exit__(*exc)

    @contextmanager
    def __call__(self, name: str):
        with LoadMeter() as meter:
            yield
        self.meters[name] = meter
        from tqdm import tqdm  # here, not above: `grader check` imports this module and no tqdm

        tqdm.write(f"{self.command}: {name} took {meter.seconds:.1f} s ({meter.conditions()})", file=sys.stderr)

    def report(self) -> dict:
        """Phase name -> its ``LoadMeter.report()``, in the order the phases ran."""
        return {name: meter.report() for name, meter in self.meters.items()}

    def warning(self) -> str | None:
        """The warning to print and store when other work competed, naming the phases it
        slowed; None on a quiet machine."""
        competed = [name for name, meter in self.meters.items() if meter.competed]
        if competed:
            return competition_warning("during " + ", ".join(competed))
        return competition_warning("while this was timed") if self.whole.competed else None

    def table(self) -> str:
        """Each phase's seconds and load, then the whole's, and the warning if any."""
        rows = [f"{'phase':<12} {'seconds':>8} {'other work':>11}  1-min load average"]
        for name, meter in (*self.meters.items(), ("all phases", self.whole)):
            other = "?" if meter.other_cores is None else f"{meter.other_cores:.2f}"
            rows.append(f"{name:<12} {meter.seconds:>8.1f} {other:>11}  {meter.loadavg_before:.2f} before, "
                        f"{meter.loadavg_after:.2f} after" + ("  (competed)" if meter.competed else ""))
        rows.append(f"(other work: the cores of {os.cpu_count()} that other processes used, on average)")
        warning = self.warning()
        return "\n".join(rows + ([warning] if warning else []))


def own_cpu_seconds() -> float:
    """CPU seconds of this process, of the child processes it has waited for, and of every
    process still running below it (Linux ``/proc``; elsewhere the first two alone)."""
    mine = os.times()
    return time.process_time() + mine.children_user + mine.children_system + _descendants_seconds()


def _descendants_seconds() -> float:
    """CPU seconds of the live processes below this one, theirs and their waited-for children's."""
    parents, ticks = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended while read
            continue
        fields = text[text.rindex(")") + 2:].split()  # after "pid (name) ": state, ppid, ...
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        ticks[pid] = sum(map(int, fields[11:15]))  # utime, stime, cutime, cstime
    below, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - below
        below |= frontier
    return sum(ticks[pid] for pid in below) / os.sysconf("SC_CLK_TCK")


def _machine_busy_seconds() -> float | None:
    """CPU seconds all processes have spent busy since boot (Linux), or None."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class native_stderr_silenced:
    """``with native_stderr_silenced():`` drops what C++ code writes to file descriptor 2,
    such as the profiler's ``USDT: profiler_start`` lines, which Python cannot filter."""

    def __enter__(self):
        import sys

        sys.stderr.flush()
        self.saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
