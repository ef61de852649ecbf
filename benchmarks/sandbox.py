"""The sandbox's cost: one program scored on all 16,000 GRASP instances through the pool,
beside the same program called in this process, and the per-call overhead of a persistent
worker.

    .venv/bin/python benchmarks/sandbox.py [--workers 2] [--instances 16000]

Target (issue 15): the 16,000 instances in under 30 s of wall time on 2 cores. The program is
our greedy baseline (``pddlkit.envs.grasp.GREEDY_PROGRAM``); the in-process run is the
reference (the same function, called directly, one core). Scores are checked to be equal.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from pddlkit.envs import grasp
from pddlkit.sandbox import Policy, SandboxPool, SandboxWorker


def per_call_overhead(calls: int = 2000) -> tuple[float, float, float]:
    """(µs per call one by one, µs per call in batches, ms to start a worker and load)."""
    t0 = time.perf_counter()
    worker = SandboxWorker("def solve(x):\n    return x\n")
    worker.load()
    start = time.perf_counter() - t0
    worker.call(0)
    t0 = time.perf_counter()
    for i in range(calls):
        worker.call(i)
    single = (time.perf_counter() - t0) / calls
    t0 = time.perf_counter()
    for k in range(0, calls, 64):
        worker.call_many([([i], {}) for i in range(k, min(calls, k + 64))])
    batched = (time.perf_counter() - t0) / calls
    worker.close()
    return single * 1e6, batched * 1e6, start * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--instances", type=int, default=16000)
    args = parser.parse_args()
    grids = grasp.load_corpus(grasp.corpus_folder())
    todo = grasp.instances(grids)[:args.instances]
    inputs = [inst.program_args() for inst in todo]

    t0 = time.perf_counter()
    local = grasp.run_in_process(grasp.GREEDY_PROGRAM, todo)
    in_process = time.perf_counter() - t0

    t0 = time.perf_counter()
    with SandboxPool(grasp.GREEDY_PROGRAM, Policy(call_timeout=10), workers=args.workers) as pool:
        results = pool.map(inputs)
    sandboxed = time.perf_counter() - t0
    failed = [r.error for r in results if not r.ok]
    same = all(r.ok and r.value == a for r, a in zip(results, local))
    scores = [grasp.simulate(inst, r.value).score for inst, r in zip(todo, results) if r.ok]

    single, batched, start = per_call_overhead()
    print(f"GRASP greedy program on {len(todo)} instances ({os.cpu_count()} cores here)")
    print(f"{'':<34}{'wall s':>10}{'per instance':>16}")
    print(f"{'in process (reference, 1 core)':<34}{in_process:>10.2f}"
          f"{in_process / len(todo) * 1e3:>13.3f} ms")
    print(f"{f'sandbox pool ({args.workers} workers)':<34}{sandboxed:>10.2f}"
          f"{sandboxed / len(todo) * 1e3:>13.3f} ms")
    print(f"sandbox / in-process: {sandboxed / in_process:.2f}x wall "
          f"({sandboxed * args.workers / in_process:.2f}x in CPU-seconds of the cores used); "
          f"target < 30 s: {'MET' if sandboxed < 30 else 'MISSED'}")
    print(f"same actions as in process: {same}; failed calls: {len(failed)}; "
          f"mean net energy {statistics.mean(scores):.3f}")
    print(f"persistent worker: {single:.0f} µs per call one by one, {batched:.0f} µs per call "
          f"in batches of 64; start + load {start:.0f} ms")


if __name__ == "__main__":
    main()
