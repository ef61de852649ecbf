"""Tools that misbehave on purpose, for the MCP server's call pool tests (tests/test_mcp.py):
imported by name inside the pool's worker processes (the tests put this folder on
PYTHONPATH), never by the server itself."""

from __future__ import annotations

import os
import time


def sleeps(seconds: float = 3600.0) -> dict:
    time.sleep(seconds)
    return {"ok": True, "text": "slept"}


def spins() -> dict:
    while True:
        pass


def hogs_memory(step_mb: int = 64) -> dict:
    held = []
    while True:
        held.append(bytearray(step_mb << 20))
        for i in range(0, len(held[-1]), 4096):   # touch each page: resident, not reserved
            held[-1][i] = 1
        time.sleep(0.01)


def prints_then_answers() -> dict:
    print("noise on stdout")             # must not reach the reply pipe (or stdio's channel)
    os.write(1, b"more noise on fd 1\n")
    return {"ok": True, "text": "answered"}


def exits() -> dict:
    os._exit(3)


def starts_a_child_that_sleeps() -> dict:
    import subprocess

    child = subprocess.Popen(["sleep", "3600"])
    with open(os.environ["CHILD_PID_FILE"], "w") as f:
        f.write(str(child.pid))
    time.sleep(3600)
    return {"ok": True, "text": "never"}


def counts(memory: str = "", state: list = []) -> dict:  # noqa: B006 - kept on purpose
    state.append(1)
    return {"ok": True, "count": len(state), "memory": "h1", "text": str(len(state))}


counts.session = "memory"
