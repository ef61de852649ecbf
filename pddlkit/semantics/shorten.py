"""Greedy action elimination: a plan with the steps it does not need taken out.

Why: Fast Downward's default search (``lama-first``, greedy best-first with landmarks) is fast
and not optimal; it sometimes reaches a landmark early and comes back for what it left, so a
plan walks away and returns (measured with Qwen2.5-Coder 1.5B over the household's learned
domain frozen, dev seeds 2-3: 9 of 26 plans began "go to countertop 1, go to drawer 2" with
the player already at the drawer, two of a 30-action budget spent each time). An agent runs
every step in a world where steps cost actions; a step whose removal leaves a valid plan to the
same goal is a wasted action.

How (Nakhost and Mueller, 2010, "Action elimination and plan neighborhood graph search"):
for each step in turn, drop it, then every later step that is no longer applicable; when what
is left is still a valid plan (each step's precondition holds where it runs) that reaches the
goal, keep it and begin again; else put the step back. Each try is one simulation, so a plan
of n steps costs O(n^2) simulations at most, nothing beside a planner call on the small tasks
an agent plans. The result is valid under the same files and never longer; it need not be
the shortest plan.
"""

from __future__ import annotations

from typing import Optional

from pddlkit.pddl.plan import Plan


def without_needless_steps(domain_text: str, problem_text: str, plan: Plan) -> Plan:
    """``plan`` less the steps greedy action elimination finds needless under these files
    (see the module); ``plan`` itself when the files cannot be read or nothing can go."""
    from pddlkit.pddl.reader import read_domain, read_problem
    from pddlkit.semantics.world import World

    domain, _ = read_domain(domain_text)
    problem, _ = read_problem(problem_text)
    if domain is None or problem is None or len(plan.steps) < 2:
        return plan
    try:
        world = World(domain, problem)
    except Exception:   # noqa: BLE001 - files the planner took but semantics cannot: as given
        return plan
    steps = list(plan.steps)
    shortened = True
    while shortened:
        shortened = False
        for i in range(len(steps)):
            kept = _kept_without(world, domain, problem, steps, i)
            if kept is not None:
                steps, shortened = kept, True
                break
    if len(steps) == len(plan.steps):
        return plan
    return Plan(tuple(steps), None, plan.file)


def _kept_without(world, domain, problem, steps: list, index: int) -> Optional[list]:
    """The steps left when ``steps[index]`` and every later step that no longer applies are
    dropped, if they reach the goal; None otherwise."""
    from pddlkit.semantics.formulas import unsatisfied
    from pddlkit.semantics.grounding import ground

    state = world.initial_state
    kept = []
    for j, step in enumerate(steps):
        if j == index:
            continue
        action = domain.action_map.get(step.name)
        if action is None or len(step.args) != len(action.parameters):
            return None
        ground_action = ground(action, step.args)
        if ground_action.unsatisfied(state, world):
            if j < index:   # the plan as given fails here under these semantics: keep it
                return None
            continue
        state = ground_action.apply(state, world)
        kept.append(step)
    return kept if not unsatisfied(problem.goal, state, {}, world) else None
