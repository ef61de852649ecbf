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

Pending, as the authors' code keeps them: a unit or building in production (paid, not yet on
the map) counts as owned, so a plan may give it a line before it appears (the executor starts
the line when it does); an Attack Enemy line whose enemy type is absent now is kept pending
(``CheckedLine.pending`` says why), not dropped: the enemy may produce one.
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


def battlefield(state: dict, player: int, costs: dict, lines: list[SkillLine],
                finished_only: bool = False):
    """The skills model's problem for this moment of the game (a
    :class:`~pddlkit.pddl.model.Problem`, built with :mod:`pddlkit.pddl.build`): the locations
    the lines name and the mineral fields, which are in the map, free or hold minerals, the
    unit types' static roles, and the counts, resources and costs as fluents. A unit being
    produced counts as owned (a plan's line for it waits for it), unless ``finished_only``:
    what can start now, as the progress digest says (issue 76: it offered the units of a
    barracks still being built)."""
    from pddlkit.pddl.build import problem, typed

    w, h = state["width"], state["height"]
    occupied = {(u["x"], u["y"]) for u in state["units"]} | \
        {tuple(w) for w in state.get("walls", ())}   # a wall is never free
    minerals = {(u["x"], u["y"]) for u in state["units"]
                if u["type"] == "Resource" and u["resources"] > 0}
    places = set(minerals)
    for line in lines:
        places.update(p for p in line.params if isinstance(p, tuple))
    locations = " ".join(sorted(_loc(p) for p in places))
    objects = typed(*([f"{locations} - location"] if locations else []),
                    " ".join(DIRECTIONS) + " - direction")
    init = [*(f"(mobile {t})" for t in ("worker", "light", "heavy", "ranged")),
            *(f"(combat {t})" for t in ("worker", "light", "heavy", "ranged")),
            "(building base)", "(building barracks)", "(producer base worker)",
            *(f"(producer barracks {t})" for t in ("light", "heavy", "ranged"))]
    numeric = [("(resources)", state["resources"][player])]
    for p in sorted(places):
        inside = 0 <= p[0] < w and 0 <= p[1] < h
        if inside:
            init.append(f"(in-map {_loc(p)})")
        if inside and p not in occupied:
            init.append(f"(free {_loc(p)})")
        if p in minerals:
            init.append(f"(mineral-at {_loc(p)})")
    for engine_name, t in TYPE_NAMES.items():
        own = sum(u["player"] == player and (u["type"] == engine_name or (
                      not finished_only and u.get("producing") == engine_name))
                  for u in state["units"])
        foe = sum(u["player"] == 1 - player and u["type"] == engine_name for u in state["units"])
        numeric += [(f"(own {t})", own), (f"(enemy {t})", foe),
                    (f"(cost {t})", costs.get(engine_name, 1))]
    return problem("battlefield", "microrts-skills", objects=objects, init=init,
                   numeric=numeric)


def _args(line: SkillLine) -> list[str]:
    p = line.params
    if line.skill == "Harvest Mineral":
        return [_loc(p[0])]
    if line.skill in ("Deploy Unit", "Build Building"):
        return [p[0], _loc(p[1])]
    if line.skill == "Produce Unit":
        return [p[0], "base" if p[0] == "worker" else "barracks", p[1]]
    return [p[0], p[1]]


@dataclass(frozen=True)
class _Said:
    """What a sentence may name: the line (its parameters as the LLM wrote them) and the
    resources at that point of the plan."""

    line: SkillLine
    resources: float


def _messages():
    from pddlkit.semantics.simulate import MessageBook

    def first(text: str):
        return lambda args, said: text.format(p=said.line.params)

    return MessageBook({
        ("mineral-at", True): first("there is no mineral field with resources at {p[0]}"),
        ("in-map", True): "the location is outside the map",
        ("free", True): "the location is not free",
        ("own", True): lambda args, said: ("you have no barracks to produce it"
                                           if args[0] == "barracks" else f"you have no {args[0]}"),
        ("resources", True): lambda args, said: f"too few resources (you have "
                                                f"{said.resources:g})",
        ("mobile", True): first("{p[0]} is a building and cannot move or be produced this way"),
        ("building", True): first("{p[0]} is not a building"),
        ("combat", True): first("{p[0]} cannot attack"),
        ("enemy", True): lambda args, said: f"the enemy has no {args[0]}",
        ("producer", True): first("{p[0]} is not produced by that building"),
    })


#: the skills model's false initiation conditions in words (the context: a :class:`_Said`)
MESSAGES = _messages()


@dataclass(frozen=True)
class CheckedLine:
    line: SkillLine
    reason: Optional[str]      # None: the line is kept (it can start, or it waits)
    pending: Optional[str] = None   # why a kept line cannot start yet (an absent enemy type)


def try_line(world, current, line: SkillLine):
    """``line`` tried on ``current`` in the skills model's ``world``: (the successor, []) when
    the model accepts it, else (None, the false conditions in words, or the problem sentence
    for a type name the model does not know)."""
    from pddlkit.semantics.simulate import simulate

    tried = simulate(world, current, (ACTIONS[line.skill], *_args(line)))
    if tried.problem is not None:
        return None, [tried.problem]
    if tried.applicable:
        return tried.successor, []
    said = _Said(line, current.value(("resources",)) or 0)
    reasons = list(dict.fromkeys(MESSAGES.sentence(m, context=said) or str(m)
                                 for m in tried.unsatisfied))
    if "the location is outside the map" in reasons:   # then it cannot be free either
        reasons = [r for r in reasons if r != "the location is not free"]
    return None, reasons


def waits(line: SkillLine, reasons: list[str]) -> Optional[str]:
    """Why a refused attack is kept waiting (its enemy type is absent now, and nothing else is
    missing), or None: the enemy may produce one, as the authors' code keeps such lines."""
    if line.skill == "Attack Enemy" and reasons and \
            all(r.startswith("the enemy has no ") for r in reasons):
        return "; ".join(reasons)
    return None


def check_lines(state: dict, player: int, costs: dict, lines: list[SkillLine],
                finished_only: bool = False) -> list[CheckedLine]:
    """Each line with why it cannot start (None when it can), effects applied in order
    (``finished_only``: see :func:`battlefield`)."""
    from pddlkit.semantics.world import World

    world = World(domain(), battlefield(state, player, costs, lines, finished_only))
    current = world.initial_state
    out = []
    for line in lines:
        after, reasons = try_line(world, current, line)
        if after is not None:
            current = after
            out.append(CheckedLine(line, None))
        elif why := waits(line, reasons):
            out.append(CheckedLine(line, None, why))
        else:
            out.append(CheckedLine(line, "; ".join(reasons)))
    return out
