"""Per-call working directories that never outlive the call, even when a planner is killed.

Every directory is named ``pddlkit-<pid>-...`` and removed in a ``finally``; if the host
process itself is killed (so no ``finally`` runs), the next pddlkit process sweeps directories
whose owner pid is gone.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import threading
from typing import Iterator

PREFIX = "pddlkit-"
_swept = False
_lock = threading.Lock()
_NAME = re.compile(r"^pddlkit-(\d+)-")


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(base: str | None = None) -> int:
    """Remove working directories left by dead pddlkit processes; returns how many."""
    base = base or tempfile.gettempdir()
    removed = 0
    try:
        names = os.listdir(base)
    except OSError:
        return 0
    for name in names:
        m = _NAME.match(name)
        if m and not pid_alive(int(m.group(1))):
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
            removed += 1
    return removed


def make_workdir() -> str:
    """A fresh per-call directory; the caller removes it with :func:`remove_workdir`."""
    global _swept
    if not _swept:
        with _lock:
            if not _swept:
                _swept = True
                sweep_stale()
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")


def remove_workdir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def workdir() -> Iterator[str]:
    path = make_workdir()
    try:
        yield path
    finally:
        remove_workdir(path)
