"""The real Fast Downward through pddlkit.plan on the shared corpus.

* every IPC instance the manifest shows Fast Downward solving within 10 s: solved, and the
  plan valid under pddlkit's semantics;
* LLM-written pairs (PDDLego+ runs) that Fast Downward found unsolvable: unsolvable here too,
  with an explanation naming an unreachable goal atom.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

import pddlkit
from pddlkit.planners import PlanStatus


@pytest.mark.slow
def test_ipc_instances_fast_downward_solves_within_10s(ipc_dir, ipc_instances):
    chosen = [i for i in ipc_instances
              if i["fd_status"] == "solved" and i["fd_wall_seconds"] <= 10]
    assert len(chosen) >= 80

    def solve(inst) -> str:
        domain, problem = ipc_dir / inst["domain_file"], ipc_dir / inst["problem_file"]
        result = pddlkit.plan(domain, problem, timeout=120, cache=False)
        if not result.solved:
            return f"{inst['id']}: {result.format()[:400]}"
        if result.plan is None or (inst["plan_length"] and len(result.plan) == 0):
            return f"{inst['id']}: empty plan"
        return ""

    # Fast Downward runs as a subprocess per call: two at a time use both cores
    with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        failures = [f for f in pool.map(solve, chosen) if f]
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_ipc_plans_are_valid_under_pddlkit_semantics(ipc_dir, ipc_instances):
    # plan() validates before returning; check it independently on a spread of domains
    picked = {}
    for inst in ipc_instances:
        if inst["fd_status"] == "solved" and inst["fd_wall_seconds"] <= 2:
            picked.setdefault(inst["domain"], inst)
    assert len(picked) >= 20
    for inst in picked.values():
        d = pddlkit.parse_domain(ipc_dir / inst["domain_file"])
        p = pddlkit.parse_problem(ipc_dir / inst["problem_file"])
        result = pddlkit.plan(d, p, timeout=120)
        assert result.solved, inst["id"]
        check = pddlkit.validate_plan(d, p, result.plan)
        assert check.valid, f"{inst['id']}: {check.explain()}"


def _fd_unsolvable(llm_pairs):
    rows = [r for r in llm_pairs if r["fd"]["status"] == "unsolvable"]
    if not rows:
        pytest.fail("the corpus has no pairs Fast Downward found unsolvable")
    return rows


@pytest.mark.slow
def test_llm_pairs_fast_downward_found_unsolvable(llm_pairs):
    rows = _fd_unsolvable(llm_pairs)
    sample = rows[:: max(1, len(rows) // 60)][:60]
    named = stopped = 0
    for row in sample:
        result = pddlkit.plan(row["domain"], row["problem"], timeout=60, cache=False)
        if result.status is PlanStatus.ERROR and "planner was not run" in result.note:
            stopped += 1  # pddlkit's static checks reject a few pairs FD tolerated
            continue
        assert result.status is PlanStatus.UNSOLVABLE, f"{row['id']}: {result.format()[:500]}"
        e = result.explanation
        assert e is not None and e.sentences, row["id"]
        if e.unreachable_goals:
            named += 1
            assert any(goal in e.text() for goal in e.unreachable_goals)
    assert stopped <= 0.1 * len(sample), f"{stopped}/{len(sample)} rejected by static checks"
    assert named >= 0.85 * (len(sample) - stopped), \
        f"only {named}/{len(sample) - stopped} name an unreachable goal"
