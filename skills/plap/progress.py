"""What the last skill plan did, and a digest of the battlefield from the skills model (issue 48,
PLAP's ``progress`` option; off by default: the paper's planner is stateless).

Why: measured with Qwen2.5-Coder 1.5B, PLAP's lines read under the grammar, but the plan neither
harvests nor builds: the model writes lines no unit can take (a Light with no barracks, an
attack with nothing to attack with) and, since each prompt is the battlefield alone, writes them
again. The skills model (``domains/microrts/skills.pddl``, :mod:`.check`) knows why a line
cannot start; the executor knows which lines finished and which still run.

* **Progress.** For each line of the last plan, in its order: ``finished``, ``running`` (a
  unit took it), or ``not started`` with the skills model's reason now (``you have no barracks
  to produce it``; ``too few resources (you have 2)``), or, when the model accepts the line,
  ``no idle unit could take it`` (every fitting unit was busy). Lines dropped before they ran
  are already said by the planner's feedback (:mod:`.planner`).
* **Digest.** Resources; own units by type, idle workers apart; the enemy's units by type;
  and the lines the skills model accepts now: producing each unit type, building a barracks on
  a free cell beside the own base (the nearest such cell, as a location the model can check),
  harvesting the nearest mineral field, and attacking a known enemy with each own type that
  has an idle unit. Only what the model accepts is listed, so the planner sees what it can do,
  not only what failed. Issue 76: the candidates are checked together, in that order, each
  against what the ones before it spent (a worker and a barracks costing 6 were both offered
  with 5 resources, and the model copies the digest); a unit is offered only from a finished
  building (not from a barracks still being built); attack lines are offered (none were, and
  the only plan measured to win is a rush); each is written as the grammar writes lines.
"""

from __future__ import annotations

from typing import Optional

from .check import check_lines
from .plan import ENEMY_TYPES, SkillLine

COMBAT_TYPES = ("worker", "light", "heavy", "ranged")


def progress(executor, state: dict, costs: dict) -> list[tuple[str, str]]:
    """(line, status) for each line of the executor's last plan (see the module)."""
    out = []
    for task in executor.plan_tasks:
        if task.done:
            out.append((task.line.text, "finished"))
        elif task.started:
            out.append((task.line.text, "running"))
        else:
            checked = check_lines(state, executor.player, costs, [task.line])[0]
            why = checked.reason or checked.pending or "no idle unit could take it"
            out.append((task.line.text, f"not started: {why}"))
    return out


def _beside_base(state: dict, player: int, avoid=frozenset()) -> Optional[tuple[int, int]]:
    """A free in-map cell beside the player's first base (nearest the base's corner first),
    none of ``avoid``."""
    occupied = {(u["x"], u["y"]) for u in state["units"]} | \
        {tuple(w) for w in state.get("walls", ())} | set(avoid)
    bases = sorted((u["x"], u["y"]) for u in state["units"]
                   if u["player"] == player and u["type"] == "Base")
    for bx, by in bases:
        for dx, dy in ((0, 2), (2, 0), (0, -2), (-2, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)):
            cell = (bx + dx, by + dy)
            if 0 <= cell[0] < state["width"] and 0 <= cell[1] < state["height"] \
                    and cell not in occupied:
                return cell
    return None


def _candidates(state: dict, player: int) -> list[SkillLine]:
    lines = [SkillLine("Produce Unit", (kind, "north"), f"[Produce Unit]({kind}, north)", 0)
             for kind in COMBAT_TYPES]
    cell = _beside_base(state, player)
    if cell is not None:
        lines.append(SkillLine("Build Building", ("barracks", cell),
                               f"[Build Building](barracks, ({cell[0]}, {cell[1]}))", 0))
    minerals = sorted(((u["x"], u["y"]) for u in state["units"]
                       if u["type"] == "Resource" and u["resources"] > 0),
                      key=lambda xy: min((abs(xy[0] - b["x"]) + abs(xy[1] - b["y"])
                                          for b in state["units"] if b["player"] == player
                                          and b["type"] == "Base"), default=0))
    if minerals:
        x, y = minerals[0]
        lines.append(SkillLine("Harvest Mineral", ((x, y),), f"[Harvest Mineral]({x}, {y})", 0))
    lines += _attacks(state, player)
    return lines


def _attacks(state: dict, player: int) -> list[SkillLine]:
    """An attack line for each own type with an idle unit, on the enemy's first type present
    (units before buildings, as ENEMY_TYPES orders them) and on its base when it has one."""
    idle = [kind for kind in COMBAT_TYPES
            if any(u["player"] == player and u["type"].lower() == kind and u["action"] == "noop"
                   for u in state["units"])]
    present = [kind for kind in ENEMY_TYPES
               if any(u["player"] == 1 - player and u["type"].lower() == kind
                      for u in state["units"])]
    targets = list(dict.fromkeys([*present[:1], *(["base"] if "base" in present else [])]))
    return [SkillLine("Attack Enemy", (kind, target), f"[Attack Enemy]({kind}, {target})", 0)
            for kind in idle for target in targets]


def digest(state: dict, player: int, costs: dict) -> str:
    """The battlefield in a few lines, and the lines the skills model accepts now, together."""
    own, foe, idle_workers = {}, {}, 0
    for u in state["units"]:
        if u["player"] == player:
            own[u["type"]] = own.get(u["type"], 0) + 1
            idle_workers += u["type"] == "Worker" and u["action"] == "noop"
        elif u["player"] == 1 - player:
            foe[u["type"]] = foe.get(u["type"], 0) + 1

    def counted(units: dict) -> str:
        return ", ".join(f"{n} {kind}" for kind, n in sorted(units.items())) or "none"

    return (f"Resources: {state['resources'][player]}. Your units: {counted(own)} "
            f"({idle_workers} idle worker{'s' if idle_workers != 1 else ''}). The enemy's "
            f"units: {counted(foe)}.\nLines that can start now: "
            + ("; ".join(line.text for line in startable(state, player, costs))
               or "none (harvest first, or wait)") + ".")


def startable(state: dict, player: int, costs: dict) -> list[SkillLine]:
    """The candidates the skills model accepts together, in order, each after the ones before
    it spent what they cost (:func:`.check.check_lines` applies an accepted line's effects and
    passes over a refused one's), counting finished units and buildings only."""
    checked = check_lines(state, player, costs, _candidates(state, player), finished_only=True)
    return [c.line for c in checked if c.reason is None and c.pending is None]
