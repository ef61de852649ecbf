"""Helpers for the child processes pddlkit starts (planner workers, sandbox workers)."""

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
