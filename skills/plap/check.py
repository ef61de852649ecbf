"""Checking a skill plan against the skills' PDDL annotations (``domains/microrts/skills.pddl``)
before it runs: pddlkit's addition to PLAP.

The state is read from the game: the player's resources, the counts of own and enemy units by
type, the mineral fields with resources left, the free cells, plus each unit type's cost from
the engine's table. The lines are taken in order: a line whose initiation condition (the
action's precondition) is false is dropped with the false conditions put into words; a line
that holds is kept and its effects applied (a Produce Unit or Build Building line spends the
resources the next lines can no longer count on). The paper drops such lines silently at
execution time; here the reason is recorded and can be fed back to the LLM.

Two conditions are not in the model because they depend on the moment, not on the plan: a unit
being busy, and the cell a unit is produced into being free (the executor handles both).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from pddlkit.domains import ROOT

from .plan import DIRECTIONS, SkillLine

ACTIONS = {"Deploy Unit": "deploy-unit", "Harvest Mineral": "harvest-mineral",
           "Build Building": "build-building", "Produce Unit": "produce-unit",
           "Attack Enemy": "attack-enemy"}
TYPE_NAMES = {"Worker": "worker", "Light": "light", "Heavy": "heavy", "Ranged": "ranged",
              "Base": "base", "Barracks": "barracks"}


@lru_cache(maxsize=1)
def domain():
    from pddlkit.pddl.reader import parse_domain

    return parse_domain((ROOT / "microrts" / "skills.pddl").read_text())


def _loc(xy) -> str:
    return f"l{xy[0]}-{xy[1]}"


def problem_text(state: dict, player: int, costs: dict, lines: list[SkillLine]) -> str:
    w, h = state["width"], state["height"]
    occupied = {(u["x"], u["y"]) for u in state["units"]}
    minerals = {(u["x"], u["y"]) for u in state["units"]
                if u["type"] == "Resource" and u["resources"] > 0}
    places = set(minerals)
    for line in lines:
        places.update(p for p in line.params if isinstance(p, tuple))
    locations = " ".join(sorted(_loc(p) for p in places))
    objects = (f"{locations} - location " if locations else "") + \
        " ".join(DIRECTIONS) + " - direction"
    init = ["(mobile worker)", "(mobile light)", "(mobile heavy)", "(mobile ranged)",
            "(combat worker)", "(combat light)", "(combat heavy)", "(combat ranged)",
            "(building base)", "(building barracks)", "(producer base worker)",
            "(producer barracks light)", "(producer barracks heavy)",
            "(producer barracks ranged)", f"(= (resources) {state['resources'][player]})"]
    for p in places:
        inside = 0 <= p[0] < w and 0 <= p[1] < h
        if inside:
            init.append(f"(in-map {_loc(p)})")
        if inside and p not in occupied:
            init.append(f"(free {_loc(p)})")
        if p in minerals:
            init.append(f"(mineral-at {_loc(p)})")
    for engine_name, t in TYPE_NAMES.items():
        own = sum(u["player"] == player and u["type"] == engine_name for u in state["units"])
        foe = sum(u["player"] == 1 - player and u["type"] == engine_name for u in state["units"])
        init += [f"(= (own {t}) {own})", f"(= (enemy {t}) {foe})",
                 f"(= (cost {t}) {costs.get(engine_name, 1)})"]
    return (f"(define (problem battlefield) (:domain microrts-skills)\n  (:objects {objects})\n"
            f"  (:init {' '.join(init)})\n  (:goal (and)))\n")


def _args(line: SkillLine) -> list[str]:
    p = line.params
    if line.skill == "Harvest Mineral":
        return [_loc(p[0])]
    if line.skill in ("Deploy Unit", "Build Building"):
        return [p[0], _loc(p[1])]
    if line.skill == "Produce Unit":
        return [p[0], "base" if p[0] == "worker" else "barracks", p[1]]
    return [p[0], p[1]]


def _sentence(text: str, line: SkillLine, state_resources: float) -> str:
    """One false condition in words."""
    p = line.params
    rules = [
        ("(mineral-at", f"there is no mineral field with resources at {p[0]}"),
        ("(in-map", "the location is outside the map"),
        ("(free", "the location is not free"),
        ("(own worker)", "you have no worker"),
        ("(own base)", "you have no base"),
        ("(own barracks)", "you have no barracks to produce it"),
        ("(resources)", f"too few resources (you have {state_resources:g})"),
        ("(mobile", f"{p[0]} is a building and cannot move or be produced this way"),
        ("(building", f"{p[0]} is not a building"),
        ("(combat", f"{p[0]} cannot attack"),
        ("(enemy", f"the enemy has no {p[-1]}"),
        ("(own ", f"you have no {p[0]}"),
        ("(producer", f"{p[0]} is not produced by that building"),
    ]
    for key, words in rules:
        if key in text:
            return words
    return text


@dataclass(frozen=True)
class CheckedLine:
    line: SkillLine
    reason: Optional[str]      # None: the initiation condition holds


def check_lines(state: dict, player: int, costs: dict, lines: list[SkillLine]
                ) -> list[CheckedLine]:
    """Each line with why it cannot start (None when it can), effects applied in order."""
    from pddlkit.pddl.reader import parse_problem
    from pddlkit.semantics.grounding import ground
    from pddlkit.semantics.world import World

    dom = domain()
    world = World(dom, parse_problem(problem_text(state, player, costs, lines)))
    current = world.initial_state
    out = []
    for line in lines:
        action = ground(dom.action_map[ACTIONS[line.skill]], _args(line))
        missing = action.unsatisfied(current, world)
        if missing:
            resources = current.value(("resources",)) or 0
            reasons = list(dict.fromkeys(_sentence(str(m), line, resources) for m in missing))
            if "the location is outside the map" in reasons:   # then it cannot be free either
                reasons = [r for r in reasons if r != "the location is not free"]
            out.append(CheckedLine(line, "; ".join(reasons)))
            continue
        current = action.apply(current, world)
        out.append(CheckedLine(line, None))
    return out
