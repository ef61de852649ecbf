"""Native simulators agree with their PDDL models (the world-model service,
pddlkit.semantics.simulate): random action sequences are run in both, and at every step both
must accept the same action and, when they do, reach the same state.

MiniGrid: the real ``minigrid`` package against ``domains/minigrid/domain.pddl`` built from
the same grid. Two native behaviours are outside the model by design (the domain file says
the model's actions are MiniGrid's for the tasks' purposes): toggling an *open* door closes it,
and toggling a box in UnlockPickup replaces it with its contents; a walk stops at either,
since the two worlds differ from then on.
"""

from __future__ import annotations

import random

import pytest

from conftest import need_module
from pddlkit.semantics.simulate import MessageBook, simulate
from pddlkit.semantics.world import World

PROGRAM_ACTIONS = ("LEFT", "RIGHT", "MOVE", "MOVE", "MOVE", "PICKUP", "DROP", "UNLOCK")


def _model_view(state) -> tuple:
    """(agent cell, heading, held thing's kind, door open) of a model state, in the native
    state's terms."""
    from pddlkit.envs.minigrid_tasks import DIRECTIONS

    atoms = {a for a in state.atoms}
    at = next(a[1] for a in atoms if a[0] == "at")
    x, y = (int(v) for v in at[1:].split("_"))
    facing = next(a[1] for a in atoms if a[0] == "facing")
    held = next((a[1] for a in atoms if a[0] == "holding"), None)
    kind = None if held is None else ("key" if held.startswith("key") else
                                      "ball" if held.startswith("ball") else "box")
    door = ("open", "door1") in atoms if any(a[0] == "door-at" for a in atoms) else None
    return (x, y), DIRECTIONS.index(facing.upper()), kind, door


def _front(env):
    u = env.unwrapped
    return u.grid.get(*u.front_pos)


@pytest.mark.parametrize("task", ["unlock", "doorkey", "unlockpickup"])
def test_minigrid_and_its_pddl_model_accept_the_same_actions(task):
    need_module("minigrid", "pip install 'pddlkit[minigrid]'")
    from pddlkit.envs import minigrid_tasks as M

    steps = 0
    for seed in range(6):
        observed = M.observe(task, seed)
        _, _, world = M.model(observed)
        state = world.initial_state
        env = M._make(task)
        env.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(80):
            name = rng.choice(PROGRAM_ACTIONS)
            front = _front(env)
            if name == "UNLOCK" and front is not None and (
                    front.type == "box" or (front.type == "door" and front.is_open)):
                break  # outside the model by design (see the module docstring)
            before = M._state(env)
            _, _, terminated, truncated, _ = env.step(M.ACTIONS[name])
            native = M._state(env) != before or name in ("LEFT", "RIGHT")
            step = M.model_step(world, state, name)
            assert (step is not None) == native, (task, seed, steps, name, before, front)
            if step is not None:
                state = step.apply(state, world)
                view = _model_view(state)
                (x, y), heading, held, door = M._state(env)
                assert view == ((x, y), heading, held, door if view[3] is not None else None), \
                    (task, seed, name, view, M._state(env))
            steps += 1
            if terminated or truncated:
                break
    assert steps > 200  # the walks were long enough to say something


def test_simulate_names_the_first_false_precondition_and_a_message_book_says_it():
    from pddlkit.domains import path
    from pddlkit.pddl.reader import parse_domain, parse_problem

    domain = parse_domain(path("coin-collector/domain.pddl").read_text())
    problem = parse_problem(path("coin-collector/p3.pddl").read_text())
    world = World(domain, problem)
    state = world.initial_state
    here = next(a[1] for a in state.atoms if a[0] == "at")
    moves = [a for a in domain.actions if a.name == "move"]
    assert moves, "the coin-collector domain has a move action"
    tried = simulate(world, state, f"(teleport {here})")
    assert not tried.applicable and tried.problem == "the domain has no action 'teleport'"
    results = [simulate(world, state, (a.name, *args)) for a in domain.actions
               for args in _some_args(world, a)]
    applied = [r for r in results if r.applicable]
    failed = [r for r in results if not r.applicable and r.problem is None]
    assert applied and failed
    assert all(r.successor != state for r in applied)
    book = MessageBook({(r.first.atom[0], not r.first.negated): "needs {0}" for r in failed
                        if r.first and r.first.atom})
    sentence = book.first_sentence(failed[0])
    assert sentence and sentence.startswith("needs ")
    assert MessageBook({}).first_sentence(failed[0]) is None


def _some_args(world, action, limit: int = 40):
    out = []
    for binding in world.bindings(list(action.parameters)):
        out.append(tuple(binding[p.name] for p in action.parameters))
        if len(out) >= limit:
            break
    return out
