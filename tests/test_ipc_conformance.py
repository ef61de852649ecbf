"""Conformance on the IPC corpus (../shared/corpus/ipc): read, count, round-trip, validate."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from pddlkit import parse_domain, parse_plan, parse_problem, validate_plan, write_domain, write_problem
from pddlkit.checks import check
from pddlkit.pddl.model import iter_atoms

from up_counts import up_counts


def _files(ipc_dir, inst):
    return ipc_dir / inst["domain_file"], ipc_dir / inst["problem_file"]


def _our_counts(domain, problem) -> dict:
    return {
        "actions": len(domain.actions),
        "predicates": len(domain.predicates),
        "objects": len({o.name for o in domain.constants + problem.objects}),
        "init": len({a.ground({}) for a in problem.init}),
        "goal": sum(1 for a in iter_atoms(problem.goal) if a.predicate != "="),
    }


@pytest.fixture(scope="module")
def parsed(ipc_dir, ipc_instances):
    out = {}
    for inst in ipc_instances:
        d, p = _files(ipc_dir, inst)
        out[inst["id"]] = (parse_domain(d), parse_problem(p))
    return out


def test_every_corpus_file_parses_and_checks_without_errors(ipc_dir, ipc_instances, parsed):
    assert len(parsed) == len(ipc_instances) == 111
    for inst in ipc_instances:
        d, p = _files(ipc_dir, inst)
        report = check(d, p)
        assert report.ok, f"{inst['id']}:\n{report.format()}"


def test_counts_match_the_manifest(ipc_instances, parsed):
    for inst in ipc_instances:
        domain, problem = parsed[inst["id"]]
        counts = _our_counts(domain, problem)
        assert counts["objects"] == inst["n_objects"] + inst["n_constants"], inst["id"]
        # the manifest counts raw :init entries, numeric facts (= (f a) 5) and duplicates included
        assert len(problem.init) + len(problem.numeric_init) == inst["n_init_atoms"], inst["id"]


@pytest.mark.slow
def test_counts_match_unified_planning(ipc_dir, ipc_instances, parsed):
    readable = [i for i in ipc_instances if i["up_parse"] == "ok"]
    assert len(readable) == 93
    # the three problems over 400 KB (the IPC's largest here) take unified-planning's reader
    # most of a minute; their counts are checked against the manifest, and they are parsed,
    # checked and their plans validated by the tests above and below
    readable = [i for i in readable if i["problem_bytes"] <= 400_000]
    assert len(readable) == 90
    jobs = [tuple(str(f) for f in _files(ipc_dir, i)) for i in readable]
    # biggest first so the two workers finish together
    order = sorted(range(len(jobs)), key=lambda k: -readable[k]["problem_bytes"])
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        results = dict(zip(order, pool.map(up_counts, *zip(*[jobs[k] for k in order]))))
    mismatches = []
    for k, inst in enumerate(readable):
        ours = _our_counts(*parsed[inst["id"]])
        if ours != results[k]:
            mismatches.append((inst["id"], ours, results[k]))
    assert not mismatches


@pytest.mark.slow
def test_write_then_parse_gives_an_equal_model(parsed):
    for key, (domain, problem) in parsed.items():
        assert parse_domain(write_domain(domain)) == domain, key
        assert parse_problem(write_problem(problem)) == problem, key


def test_names_are_case_insensitive(ipc_dir):
    text = (ipc_dir / "blocks" / "domain.pddl").read_text()
    assert parse_domain(text.upper()) == parse_domain(text)


def _plans(ipc_dir, ipc_instances):
    return [i for i in ipc_instances if i["plan_file"]]


@pytest.mark.slow
def test_every_corpus_plan_is_valid(ipc_dir, ipc_instances, parsed):
    with_plans = _plans(ipc_dir, ipc_instances)
    assert len(with_plans) == 98
    for inst in with_plans:
        domain, problem = parsed[inst["id"]]
        plan = parse_plan(ipc_dir / inst["plan_file"])
        assert len(plan) == inst["plan_length"]
        result = validate_plan(domain, problem, plan)
        assert result.valid, f"{inst['id']}: {result.explain()}"
        if inst["plan_cost"] is not None:
            assert result.cost == pytest.approx(inst["plan_cost"]), inst["id"]
        else:
            assert result.cost == len(plan)


def test_removing_a_step_is_caught_at_the_right_step(ipc_dir, ipc_instances, parsed):
    """Drop one step; the result is invalid, and the failing step is the first one that
    cannot run in a step-by-step replay of the shortened plan (or the goal is missed)."""
    from pddlkit.semantics.grounding import ground
    from pddlkit.semantics.world import World

    for inst in _plans(ipc_dir, ipc_instances):
        domain, problem = parsed[inst["id"]]
        plan = parse_plan(ipc_dir / inst["plan_file"])
        if len(plan) == 0 or inst["domain"] in ("psr-middle", "optical-telegraphs"):
            continue  # slow derived-predicate domains: covered by the dedicated test below
        index = len(plan) // 2
        shorter = plan.without(index)
        result = validate_plan(domain, problem, shorter)
        assert not result.valid, inst["id"]
        # independent replay: find the first inapplicable step ourselves
        world = World(domain, problem)
        state = world.initial_state
        expected_fail = None
        for k, step in enumerate(shorter.steps):
            ga = ground(domain.action_map[step.name], step.args)
            if not ga.applicable(state, world):
                expected_fail = k
                break
            state = ga.apply(state, world)
        if expected_fail is None:
            assert result.failure is None and not result.goal_satisfied, inst["id"]
            assert result.unsatisfied_goal, inst["id"]
        else:
            assert result.failure is not None and result.failure.index == expected_fail, inst["id"]
            assert result.failure.index >= index, "steps before the removed one still run"
            assert result.failure.unsatisfied, inst["id"]


@pytest.mark.slow
def test_removing_a_step_in_derived_predicate_domains(ipc_dir, ipc_instances, parsed):
    for key in ("psr-middle/p02", "optical-telegraphs/p01"):
        inst = next(i for i in ipc_instances if i["id"] == key)
        domain, problem = parsed[key]
        plan = parse_plan(ipc_dir / inst["plan_file"])
        result = validate_plan(domain, problem, plan.without(0))
        assert not result.valid
        assert result.failure is not None and result.failure.index == 0
        assert result.failure.unsatisfied
