"""Helpers for the child processes pddlkit starts (planner workers, sandbox workers, a
sweep's worker pool)."""

from __future__ import annotations

import os
import signal
import subprocess


def kill_group(proc: subprocess.Popen, wait: float = 5.0) -> None:
    """Kill ``proc``'s whole process group (it was started with ``start_new_session``, so
    its own children go too) and reap it; a process already gone is fine."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:  # pragma: no cover - kernel trouble
        pass


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies (PR_SET_PDEATHSIG), however
    the parent dies (``kill -9`` included, which no handler in the parent can see); exit at
    once if the parent is already gone (it died before the call). For a pool's worker
    initializer: a worker left behind by a killed parent keeps a CPU busy for nothing.

    The kernel ties the signal to the parent *thread* that started the process, so the
    process must be started from a thread that lives as long as it is needed (the main
    thread of a sweep). Linux only; elsewhere it does nothing."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: nothing ties the worker to its parent
        return
    if os.getppid() != parent_pid:
        os._exit(1)
