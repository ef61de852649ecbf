"""What ``import pddlkit`` costs a fresh interpreter (the CLI, every worker process and every
MCP call's worker pay it), beside the interpreter's own start, in one run (issue 71).

    .venv/bin/python benchmarks/import_time.py [--repeats 15]

Each figure is the median over the repeats of ``python -X importtime -c "import pddlkit"``'s
cumulative line for ``pddlkit`` (microseconds, read from the interpreter's own account, so the
interpreter's start is not in it), and, beside it, the same for ``typing`` alone (what the
package needs before any of its own code), and the wall time of a whole ``python -c "import
pddlkit"`` against ``python -c pass``. Why: ``__all__`` once scanned every installed package's
entry points at import (62-180 ms); it is now built only when asked for.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def _cumulative_us(module: str) -> int:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                          capture_output=True, text=True, check=True)
    for line in reversed(done.stderr.splitlines()):
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1])
    raise RuntimeError(f"no importtime line for {module}")


def _wall_ms(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return (time.perf_counter() - started) * 1000


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    pddlkit = statistics.median(_cumulative_us("pddlkit") for _ in range(args.repeats))
    typing = statistics.median(_cumulative_us("typing") for _ in range(args.repeats))
    with_import = statistics.median(_wall_ms("import pddlkit") for _ in range(args.repeats))
    bare = statistics.median(_wall_ms("pass") for _ in range(args.repeats))
    print(f"import pddlkit, median of {args.repeats} fresh interpreters")
    print("| what | ms |\n|---|---|")
    print(f"| `import pddlkit` (importtime, cumulative) | {pddlkit / 1000:.1f} |")
    print(f"| of which `typing` alone | {typing / 1000:.1f} |")
    print(f"| `python -c 'import pddlkit'`, wall | {with_import:.1f} |")
    print(f"| `python -c pass`, wall | {bare:.1f} |")
    print(f"| difference (what the import adds to a process start) | {with_import - bare:.1f} |")
    return 0


if __name__ == "__main__":
    from interrupt import run

    run(main, kept="nothing was kept: the table prints at the end")
