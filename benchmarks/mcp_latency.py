"""A ``check`` and a ``plan`` of the CoinCollector problem through ``pddlkit mcp`` (stdio, the
MCP SDK's client) beside the same calls in process (issue 50), in one run.

    .venv/bin/python benchmarks/mcp_latency.py [--repeats 20]

Each figure is the median over the repeats, after one warm-up call of each kind (the server's
start, Fast Downward's first run). The plan cache is off for both sides, so each plan runs Fast
Downward. What it prints: median milliseconds per call in process, through MCP, and the
difference (the protocol's cost: JSON-RPC over a pipe, the SDK's validation of the answer
against its schema, a worker thread).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DOMAIN = (REPO / "domains" / "coin-collector" / "domain.pddl").read_text()
PROBLEM = (REPO / "domains" / "coin-collector" / "p3.pddl").read_text()


def in_process(repeats: int) -> dict[str, float]:
    import pddlkit

    def check() -> None:
        assert pddlkit.check(DOMAIN, PROBLEM).ok

    def plan() -> None:
        assert pddlkit.plan(DOMAIN, PROBLEM, cache=False).solved

    return {name: _median(call, repeats) for name, call in (("check", check), ("plan", plan))}


def _median(call, repeats: int) -> float:
    call()   # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def through_mcp(repeats: int) -> dict[str, float]:
    import os

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "pddlkit.cli", "mcp"],
                                   env=dict(os.environ), cwd=str(REPO))
    out: dict[str, float] = {}

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            for name, arguments in (("check", {"domain": DOMAIN, "problem": PROBLEM}),
                                    ("plan", {"domain": DOMAIN, "problem": PROBLEM,
                                              "cache": False})):
                times = []
                for k in range(repeats + 1):
                    start = time.perf_counter()
                    answer = (await client.call_tool(name, arguments)).structured_content
                    assert answer["ok"], answer
                    if k:   # the first is the warm-up
                        times.append((time.perf_counter() - start) * 1000)
                out[name] = statistics.median(times)
    anyio.run(main)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    local, remote = in_process(args.repeats), through_mcp(args.repeats)
    print(f"CoinCollector p3, median of {args.repeats} calls (ms), plan cache off")
    print(f"{'call':<6} {'in process':>11} {'pddlkit mcp':>12} {'difference':>11}")
    for name in ("check", "plan"):
        print(f"{name:<6} {local[name]:>11.1f} {remote[name]:>12.1f} "
              f"{remote[name] - local[name]:>11.1f}")
    return 0


if __name__ == "__main__":
    from interrupt import run

    run(main, kept="nothing was kept: the table prints at the end")
