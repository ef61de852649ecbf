"""Native simulators agree with their PDDL models (the world-model service,
pddlkit.semantics.simulate): random action sequences are run in both, and at every step both
must accept the same action and, when they do, reach the same state.

MiniGrid: the real ``minigrid`` package against ``domains/minigrid/domain.pddl`` built from
the same grid. Two native behaviours are outside the model by design (the domain file says
the model's actions are MiniGrid's for the tasks' purposes): toggling an *open* door closes it,
and toggling a box in UnlockPickup replaces it with its contents; a walk stops at either,
since the two worlds differ from then on.

SC2 unit building: the simulator's skip reasons against its tech model (same refusals for the
tree's reasons, in the same words; costs, supply and idle producers are the simulator's alone),
and against its economy model (the numeric one: costs and supply refused alike too).
The crafting world: the simulator against its counts-as-levels model (same recipes accepted,
the same sentence for the first false part, the same counts after; a count above the model's
level bound is outside it by design), and against its numeric model (counts as numbers, no
bound: nothing outside it). PLAP: the skills model holds necessary conditions only,
so a line the executor starts (with the engine's costs) must pass it, not the converse.
Each has a test that a model with one condition wrong is caught.
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


@pytest.mark.slow
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


# -- SC2 unit building: the simulator against its tech model ------------------------------------


def _sc2_disagreements(model, seeds=range(3), steps=70, economy=False) -> tuple[int, int]:
    """(states compared x actions, disagreements) over random build orders: at every step each
    BUILD/TRAIN action is tried in the simulator and in ``model`` (the state: every kind the
    simulator has finished; with ``economy``, its minerals, gas and supply too); both must
    refuse the same actions for the model's reasons, in the same words (the simulator's price
    and supply sentences add the amounts after a ";"), and the model must accept what the
    simulator refuses only for what the model leaves out (costs and supply without
    ``economy``; idle producers, free SCVs, geysers always)."""
    from pddlkit.envs.sc2_build import (
        BUILDINGS, DIFFICULTIES, KINDS, TECH_MESSAGES, UNITS, SC2Build, cost_sentence,
        reference_planner, supply_sentence, tech_goal, tech_sentence, tech_state)

    numbers = {"minerals": 0, "gas": 0, "supply-used": 0, "supply-cap": 0} if economy else None
    world = World(model, tech_goal(["SCV"], economy=numbers))
    actions = [f"BUILD {b}" for b in BUILDINGS] + [f"TRAIN {u}" for u in UNITS]
    compared = wrong = 0
    for difficulty in DIFFICULTIES:
        for seed in seeds:
            env = SC2Build(difficulty, seed=seed, max_seconds=10_000)
            rng = random.Random(seed)
            for _ in range(steps):
                state = tech_state((k for k in KINDS if env._finished(k) > 0),
                                   env.economy() if economy else None)
                for action in actions:
                    name = action.split()[1]
                    native = env.why_not(action)
                    tried = simulate(world, state, f"make-{name.lower()}")
                    modelled = {tech_sentence(name, k) for k in KINDS}
                    if economy:
                        modelled |= {cost_sentence(name), supply_sentence(name)}
                    if tried.applicable:
                        ok = native is None or native.split(";")[0] not in modelled
                    else:
                        ok = native is not None and native.split(";")[0] == \
                            TECH_MESSAGES.first_sentence(tried, context=name)
                    compared += 1
                    wrong += not ok
                plan = reference_planner(public(env), env.action_space(), env.task) \
                    if rng.random() < 0.6 else rng.sample(actions, 3)
                env.step(plan)
                if env.won:
                    break
    return compared, wrong


def public(env):
    from pddlkit.envs.sc2_build import public_obs

    return public_obs(env.observe())


def test_sc2_build_and_its_tech_model_refuse_the_same_actions_for_the_same_reason():
    from pddlkit.envs.sc2_build import tech_model

    compared, wrong = _sc2_disagreements(tech_model())
    assert compared > 10_000 and wrong == 0


def test_a_tech_model_missing_one_requirement_is_caught():
    from dataclasses import replace

    from pddlkit.envs.sc2_build import tech_model
    from pddlkit.pddl.model import And

    model = tech_model()
    thor = model.action("make-thor")
    loose = replace(thor, precondition=And(tuple(p for p in thor.precondition.parts
                                                 if p.predicate != "have-armory")))
    mutated = replace(model, actions=tuple(loose if a is thor else a for a in model.actions))
    assert _sc2_disagreements(mutated, seeds=range(2))[1] > 0


def test_sc2_build_and_its_economy_model_refuse_the_same_actions_for_the_same_reason():
    """The numeric model (issue 49): costs and supply included, over random build orders."""
    from pddlkit.envs.sc2_build import tech_model

    compared, wrong = _sc2_disagreements(tech_model(economy=True), seeds=range(4), economy=True)
    assert compared > 10_000 and wrong == 0


def test_an_economy_model_with_one_wrong_price_is_caught():
    from pddlkit.envs.sc2_build import KINDS, tech_domain
    from pddlkit.pddl.reader import parse_domain

    text = tech_domain(economy=True)
    cheap = text.replace(f"(>= (minerals) {KINDS['BARRACKS'].minerals})", "(>= (minerals) 100)", 1)
    assert cheap != text
    assert _sc2_disagreements(parse_domain(cheap), seeds=range(2), economy=True)[1] > 0


# -- the crafting world: the simulator against its counts-as-levels model ----------------------


def _random_inventories(item: str):
    """The inventories a random walk over ``item``'s recipes meets, from an empty one: four
    seeds of 60 steps, each step a possible recipe 80% of the time, any recipe otherwise."""
    from pddlkit.envs.craft import CraftWorld, closure, recipe_failure

    rules = closure([item])
    for seed in range(4):
        rng = random.Random(seed)
        env = CraftWorld(item)
        env.inventory.clear()
        for _ in range(60):
            inv = dict(env.inventory)
            yield inv
            possible = [r for r in rules if not recipe_failure(r, inv)]
            r = rng.choice(possible if possible and rng.random() < 0.8 else rules)
            env.apply(r.kind, r.item)


def _after(recipe, inv: dict) -> dict:
    """The inventory once ``recipe`` is applied to ``inv``."""
    after = dict(inv)
    for m, n in recipe.materials:
        after[m] -= n
    after[recipe.item] = after.get(recipe.item, 0) + recipe.count
    return after


def _craft_disagreements(mutate=lambda domain: domain, items=("iron_pickaxe", "diamond",
                                                                "cooked_porkchop", "furnace_minecart")):
    """(comparisons, disagreements, outside): random recipe sequences from an empty inventory,
    each recipe the target can need tried in the simulator (:func:`recipe_failure`) and in the
    model (:func:`craft_model`, ground by :func:`model_args`); both must accept the same ones,
    the model's first false part must be said in the simulator's words, and an accepted recipe
    must reach the same counts. ``outside`` counts the refusals by design: a count above the
    level bound the model keeps (see craft_model)."""
    from pddlkit.envs.craft import (CRAFT_MESSAGES, _name, closure, craft_model, model_args,
                                    recipe_failure)
    from pddlkit.semantics.state import State

    compared = wrong = outside = 0
    for item in items:
        domain, problem = craft_model({item: 1})
        world = World(mutate(domain), problem)
        static = {a.ground({}) for a in problem.init if a.predicate != "count"}
        known = sorted({a.args[0] for a in problem.init if a.predicate == "count"})
        rules = closure([item])
        for inv in _random_inventories(item):
            state = State(static | {("count", i, f"n{inv.get(i.replace('-', '_'), 0)}")
                                    for i in known})
            for r in rules:
                native = recipe_failure(r, inv)
                tried = simulate(world, state, (_name(r.action), *model_args(r, inv)))
                if tried.problem is not None or (tried.first and tried.first.atom[0] == "level"):
                    outside += 1
                    continue
                compared += 1
                if native is None:
                    after = _after(r, inv)
                    wrong += not (tried.applicable and all(
                        ("count", _name(i), f"n{after.get(i, 0)}") in tried.successor.atoms
                        for i in after))
                else:
                    wrong += tried.applicable or CRAFT_MESSAGES.first_sentence(
                        tried, context=r) != native.message
    return compared, wrong, outside


def test_the_crafting_world_and_its_model_accept_the_same_recipes_and_say_why_not_alike():
    compared, wrong, outside = _craft_disagreements()
    assert compared > 2_000 and wrong == 0
    assert outside < compared  # the level bound is the exception, not the rule


def _numeric_craft_disagreements(mutate=lambda text: text,
                                 items=("iron_pickaxe", "diamond", "cooked_porkchop",
                                        "furnace_minecart")) -> tuple[int, int]:
    """(comparisons, disagreements) between the simulator and the numeric model
    (:func:`craft_numeric_domain`, issue 49) over the same random recipe sequences: the same
    recipes accepted, the first false comparison said in the simulator's words, the same
    counts after; with no level bound there is nothing outside the model."""
    from pddlkit.envs.craft import (NUMERIC_CRAFT_MESSAGES, _name, closure,
                                    craft_numeric_domain, craft_numeric_problem, recipe_failure)
    from pddlkit.pddl.reader import parse_domain, parse_problem
    from pddlkit.semantics.state import State

    compared = wrong = 0
    for item in items:
        world = World(parse_domain(mutate(craft_numeric_domain([item]))),
                      parse_problem(craft_numeric_problem({item: 1})))
        names = sorted({c.name for c in world.domain.constants})
        rules = closure([item])
        for inv in _random_inventories(item):
            state = State((), {("count", n): float(inv.get(n.replace("-", "_"), 0))
                               for n in names})
            for r in rules:
                native = recipe_failure(r, inv)
                tried = simulate(world, state, _name(r.action))
                compared += 1
                if native is None:
                    after = _after(r, inv)
                    wrong += not (tried.applicable and all(
                        tried.successor.value(("count", _name(i))) == after.get(i, 0)
                        for i in after))
                else:
                    wrong += tried.applicable or NUMERIC_CRAFT_MESSAGES.first_sentence(
                        tried, context=(r, inv)) != native.message
    return compared, wrong


def test_the_crafting_world_and_its_numeric_model_agree_on_every_inventory():
    compared, wrong = _numeric_craft_disagreements()
    assert compared > 2_000 and wrong == 0


def test_a_numeric_craft_model_that_forgets_a_tool_is_caught():
    forgot = lambda text: text.replace("(>= (count wooden-pickaxe) 1)", "", 1)  # noqa: E731
    assert _numeric_craft_disagreements(forgot)[1] > 0


def test_a_craft_model_that_forgets_a_tool_is_caught():
    from dataclasses import replace

    from pddlkit.pddl.model import And

    def no_tools(domain):
        loose = [replace(a, precondition=And(tuple(p for p in a.precondition.parts
                                                   if p.predicate != "atleast")))
                 if a.name != "finish" else a for a in domain.actions]
        return replace(domain, actions=tuple(loose))

    assert _craft_disagreements(no_tools, items=("iron_pickaxe",))[1] > 0


# -- PLAP: the skills model against the skill executor and the engine's rules ------------------

#: the MicroRTS engine's unit costs (its default UnitTypeTable)
ENGINE_COSTS = {"Worker": 1, "Light": 2, "Heavy": 2, "Ranged": 2, "Base": 10, "Barracks": 5}


def _battlefield(rng: random.Random) -> dict:
    cells = rng.sample([(x, y) for x in range(8) for y in range(8)], 24)
    units: list = []

    def put(player, kind, resources=0):
        x, y = cells[len(units)]
        units.append({"id": len(units), "player": player, "type": kind, "x": x, "y": y,
                      "resources": resources, "hp": 1,
                      "action": "noop" if rng.random() < 0.85 else "move"})

    for player in (0, 1):
        for kind, chance in (("Base", 0.7), ("Barracks", 0.4)):
            if rng.random() < chance:
                put(player, kind)
        for kind, most in (("Worker", 3), ("Light", 1), ("Heavy", 1), ("Ranged", 1)):
            for _ in range(rng.randint(0, most)):
                put(player, kind)
    for _ in range(rng.randint(0, 3)):
        put(-1, "Resource", rng.choice([0, 5, 5]))
    return {"width": 8, "height": 8, "units": units, "resources": [rng.randint(0, 12), 5]}


def _skill_line(rng: random.Random, state: dict):
    from pddlkit.skills.plap.plan import (BUILDINGS, DIRECTIONS, ENEMY_TYPES, SKILLS, UNIT_TYPES,
                                          SkillLine)

    minerals = [(u["x"], u["y"]) for u in state["units"] if u["type"] == "Resource"]
    cell = rng.choice(minerals) if minerals and rng.random() < 0.5 else \
        (rng.randint(-1, 8), rng.randint(-1, 8))
    skill = rng.choice(SKILLS)
    params = {"Deploy Unit": (rng.choice(UNIT_TYPES), cell), "Harvest Mineral": (cell,),
              "Build Building": (rng.choice(BUILDINGS), cell),
              "Produce Unit": (rng.choice(UNIT_TYPES), rng.choice(DIRECTIONS)),
              "Attack Enemy": (rng.choice(UNIT_TYPES), rng.choice(ENEMY_TYPES))}[skill]
    return SkillLine(skill, params, f"[{skill}]{params}", 1)


def _plap_disagreements(n: int = 1500) -> tuple[int, int, int]:
    """(lines the executor ran, lines the model refused, lines the executor ran that the model
    refused). The model holds PLAP's initiation conditions, which are necessary, not sufficient:
    a line the executor starts (and the engine accepts: a produced unit or a building is paid
    for) must pass the model; the model may pass a line the executor cannot start now (every
    fitting unit busy, no path, the produced unit's cell taken), as skills/plap/check.py says.
    A Build Building line starts when its worker builds, not while it walks to the site (the
    executor walks even when the player cannot pay yet; the engine takes the cost at the
    building, and the check drops the line at plan time)."""
    from pddlkit.skills.plap.check import check_lines
    from pddlkit.skills.plap.executor import ENGINE_TYPES, Executor

    rng = random.Random(7)
    ran = refused = wrong = 0
    for _ in range(n):
        state = _battlefield(rng)
        line = _skill_line(rng, state)
        executor = Executor(player=0)
        executor.set_plan([line], state)
        actions = executor.actions(state)
        issued = executor.tasks[0].unit if executor.tasks else None
        action = next((a for a in actions if a["unit"] == issued), None)
        if action is not None and line.skill == "Build Building" and action["type"] == "move":
            action = None   # the walk to the site: the building starts (and is paid) there
        if action is not None and action["type"] == "produce":
            paid = state["resources"][0] >= ENGINE_COSTS[ENGINE_TYPES[line.params[0]]]
            action = action if paid else None
        reason = check_lines(state, 0, ENGINE_COSTS, [line])[0].reason
        ran += action is not None
        refused += reason is not None
        wrong += action is not None and reason is not None
    return ran, refused, wrong


def test_a_skill_line_the_executor_starts_always_passes_the_skills_model():
    ran, refused, wrong = _plap_disagreements()
    assert ran > 200 and refused > 300 and wrong == 0


def test_a_skills_model_with_a_wrong_condition_is_caught(monkeypatch):
    from dataclasses import replace

    from pddlkit.pddl.model import And, Atom
    from pddlkit.skills.plap import check

    model = check.domain()
    harvest = model.action("harvest-mineral")
    strict = replace(harvest, precondition=And((*harvest.precondition.parts,
                                                Atom("free", ("?l",)))))
    mutated = replace(model, actions=tuple(strict if a is harvest else a for a in model.actions))
    monkeypatch.setattr(check, "domain", lambda: mutated)
    assert _plap_disagreements(400)[2] > 0
