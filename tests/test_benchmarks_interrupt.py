"""Ctrl-C in a benchmark script (issue 71): one line saying what was kept, exit status 130,
no ``KeyboardInterrupt`` traceback (``benchmarks/interrupt.py``, which every script's
``__main__`` goes through). Two scripts, each stopped a moment after its first line: one
by a SIGINT to its whole process group, as a terminal's Ctrl-C sends it (its sandbox
workers get it too), one by a SIGINT to the script alone, as ``timeout -s INT`` sends it."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from conftest import ctrl_c, interruptible

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("script, to, kept", [
    ("ipp.py", "group", "the tables above are complete"),
    ("formalize.py", "script", "the tables above are complete"),
])
def test_a_benchmark_stopped_by_ctrl_c_says_one_line_and_exits_130(script, to, kept):
    run = interruptible([sys.executable, str(BENCHMARKS / script)])
    first = run.stdout.readline()
    assert first.strip() and run.poll() is None, first   # it has begun, and is at work
    time.sleep(1.5)
    ctrl_c(run, to)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == f"benchmarks/{script}: interrupted (Ctrl-C); {kept}"
