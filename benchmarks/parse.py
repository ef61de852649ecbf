"""Parse time: pddlkit vs unified-planning's PDDLReader vs tarski's reader, side by side.

Inputs: the five largest problems of ../shared/corpus/ipc (by bytes, among those all three
readers accept) and generated 4-operator blocksworld problems of 50, 100, 200 and 500 blocks.
Each reader parses domain + problem in this process after a warm-up parse, so import time is
not counted; pddlkit and FD are timed on every input before unified-planning and tarski run.
pddlkit and Fast Downward's translator parser are timed as the best of 5 runs, the others once
(they take seconds). Targets: pddlkit >= 10x faster than unified-planning on every input and
never slower than tarski; at least as fast as FD's translator parser (FD/pddlkit >= 1.0) on the
five largest corpus problems (issue 20), while keeping every position and diagnostic;
``import pddlkit`` < 0.3 s (measured in fresh interpreters, best of 5).

    python benchmarks/parse.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IPC = REPO.parent / "shared" / "corpus" / "ipc"


def blocksworld(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)

    def towers():
        blocks = [f"b{i}" for i in range(1, n + 1)]
        rng.shuffle(blocks)
        stacks, i = [], 0
        while i < len(blocks):
            k = rng.randint(1, 6)
            stacks.append(blocks[i:i + k])
            i += k
        return stacks

    def facts(stacks):
        out = []
        for s in stacks:
            out.append(f"(ontable {s[0]})")
            out += [f"(on {s[j + 1]} {s[j]})" for j in range(len(s) - 1)]
            out.append(f"(clear {s[-1]})")
        return out

    init = facts(towers()) + ["(handempty)"]
    goal = [f for f in facts(towers()) if f.startswith("(on ")]
    objects = " ".join(f"b{i}" for i in range(1, n + 1))
    return (f"(define (problem bw-{n}) (:domain blocks)\n (:objects {objects})\n"
            f" (:init {' '.join(init)})\n (:goal (and {' '.join(goal)})))\n")


def time_pddlkit(domain: str, problem: str, repeat: int = 5) -> float:
    from pddlkit import parse_domain, parse_problem

    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        parse_domain(Path(domain))
        parse_problem(Path(problem))
        best = min(best, time.perf_counter() - t)
    return best


def time_up(domain: str, problem: str) -> float:
    from unified_planning.io import PDDLReader

    t = time.perf_counter()
    PDDLReader().parse_problem(domain, problem)
    return time.perf_counter() - t


def time_fd(domain: str, problem: str, repeat: int = 5) -> float:
    """Fast Downward's own translator parser (``fast_downward.translate.pddl_parser.open``,
    shipped with up-fast-downward): pure Python, builds FD's task, keeps no positions."""
    from fast_downward.translate import pddl_parser

    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        pddl_parser.open(domain, problem)
        best = min(best, time.perf_counter() - t)
    return best


def time_tarski(domain: str, problem: str) -> float:
    from tarski.io import PDDLReader

    t = time.perf_counter()
    reader = PDDLReader(raise_on_error=True)
    reader.parse_domain(domain)
    reader.parse_instance(problem)
    return time.perf_counter() - t


def import_time() -> float:
    code = "import time; t=time.perf_counter(); import pddlkit; print(time.perf_counter()-t)"
    runs = [float(subprocess.run([sys.executable, "-X", "frozen_modules=on", "-c", code],
                                 capture_output=True, text=True, check=True).stdout)
            for _ in range(5)]
    return min(runs)


def first_parse_time(domain: str) -> float:
    """A fresh interpreter: import pddlkit and read one small domain (lark grammar built)."""
    code = ("import time; t=time.perf_counter(); import pddlkit; "
            f"pddlkit.parse_domain({domain!r}); print(time.perf_counter()-t)")
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                    text=True, check=True).stdout) for _ in range(3))


def main() -> int:
    import logging

    logging.getLogger().setLevel(logging.ERROR)  # tarski warns about domain-name case
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the slowest unified-planning inputs")
    args = ap.parse_args()
    print(f"benchmarks/parse.py: parse time, pddlkit vs unified-planning vs tarski, on the IPC corpus", flush=True)  # a first line at once

    cases: list[tuple[str, str, str]] = []
    if IPC.exists():
        manifest = json.loads((IPC / "manifest.json").read_text())
        ok = [i for i in manifest["instances"]
              if i["up_parse"] == "ok" and i["tarski_parse"] == "ok"]
        ok.sort(key=lambda i: -i["problem_bytes"])
        for inst in ok[: (2 if args.quick else 5)]:
            cases.append((inst["id"], str(IPC / inst["domain_file"]), str(IPC / inst["problem_file"])))
        bw_domain = str(IPC / "blocks" / "domain.pddl")
    else:
        print(f"(corpus not found at {IPC}: only generated blocksworld inputs)")
        bw_domain = None
    tmp = Path(tempfile.mkdtemp(prefix="pddlkit-bench-"))
    if bw_domain is None:
        bw_domain = str(tmp / "blocks.pddl")
        Path(bw_domain).write_text(
            "(define (domain blocks) (:requirements :strips) (:predicates (on ?x ?y) "
            "(ontable ?x) (clear ?x) (handempty) (holding ?x))"
            "(:action pick-up :parameters (?x) :precondition (and (clear ?x) (ontable ?x) "
            "(handempty)) :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) "
            "(holding ?x))))")
    for n in (50, 100, 200, 500):
        p = tmp / f"bw{n}.pddl"
        p.write_text(blocksworld(n))
        cases.append((f"blocksworld-{n}", bw_domain, str(p)))

    # pddlkit and FD's parser first, for every input, before unified-planning and tarski leave
    # millions of objects on this process's heap (after them both fast readers run 20-70%
    # slower; a user's process has no such heap). Warm-up: imports are not parse time.
    time_pddlkit(cases[-4][1], cases[-4][2], 1)
    time_fd(cases[-4][1], cases[-4][2], 1)
    fast = [(time_pddlkit(dom, prob), time_fd(dom, prob)) for _, dom, prob in cases]
    time_up(cases[-4][1], cases[-4][2])
    time_tarski(cases[-4][1], cases[-4][2])

    header = (f"{'input':34} {'bytes':>9} {'pddlkit s':>10} {'FD s':>8} {'UP s':>9} "
              f"{'tarski s':>9} {'FD/pddlkit':>11} {'UP/pddlkit':>11} {'tarski/pddlkit':>15}")
    print(header)
    print("-" * len(header))
    worst_up, worst_tarski, worst_fd = float("inf"), float("inf"), float("inf")
    for k, ((name, dom, prob), (ours, fd)) in enumerate(zip(cases, fast)):
        up = time_up(dom, prob)
        tarski = time_tarski(dom, prob)
        worst_up = min(worst_up, up / ours)
        worst_tarski = min(worst_tarski, tarski / ours)
        if IPC.exists() and k < (2 if args.quick else 5):  # the corpus's largest problems
            worst_fd = min(worst_fd, fd / ours)
        size = Path(prob).stat().st_size
        print(f"{name:34} {size:>9} {ours:>10.4f} {fd:>8.3f} {up:>9.3f} {tarski:>9.3f} "
              f"{fd / ours:>10.2f}x {up / ours:>10.1f}x {tarski / ours:>14.1f}x", flush=True)
    imp = import_time()
    print()
    print(f"lowest speed-up over unified-planning: {worst_up:.1f}x (target >= 10x) "
          f"{'OK' if worst_up >= 10 else 'MISSED'}")
    print(f"lowest speed-up over tarski:           {worst_tarski:.1f}x (target >= 1x) "
          f"{'OK' if worst_tarski >= 1 else 'MISSED'}")
    if worst_fd != float("inf"):
        print(f"lowest FD/pddlkit on the largest corpus problems: {worst_fd:.2f} (target >= 1.0) "
              f"{'OK' if worst_fd >= 1 else 'MISSED'}")
    print(f"import pddlkit: {imp:.3f} s (target < 0.3 s) {'OK' if imp < 0.3 else 'MISSED'}")
    print(f"import pddlkit + first parse of a domain (cold; lark is no longer loaded to parse): "
          f"{first_parse_time(bw_domain):.3f} s")
    return 0


if __name__ == "__main__":
    from interrupt import run

    run(main)
