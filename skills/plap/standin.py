"""Offline stand-ins for PLAP's LLM planner.

:class:`TipsPlanner` is an honest scripted strategy written from the expert tips of PLAP's
prompt (shared/specs/plap.md §2): at most two harvesters on the mineral nearest the base, keep
producing workers, no barracks while resources are below 8 and then one beside the base with a
ranged unit first, attack the enemy's barracks first, then its workers, then its base, with
every other unit. It answers in the skill-plan format, as an LLM would.

Both are LLMs to the rest of PLAP, as the other front ends' stand-ins are: :meth:`llm` wraps one
in a :class:`pddlkit.llm.ScriptedLLM`, and the game asks it through the same
:class:`~.planner.LLMPlanner`, prompt and parser as a real model, so its calls and tokens are
counted and transcribed alike. What it knows is what the prompt says: :func:`read_battlefield`
reads the map size, the mineral fields, each side's resources and units and which side it plays
from the battlefield text in the prompt; it never sees the engine's state.

:class:`NoisyPlanner` wraps it and, at ``rate`` per line (seeded), adds the mistakes the
paper's parser and executor must survive: malformed lines (a unit called ``worker1``, a missing
bracket), impossible ones (a mineral where there is none, a light unit without barracks, an
enemy type that does not exist) and wasteful ones (a worker deployed to a far corner).
"""

from __future__ import annotations

import random
import re
from typing import Optional

from .plan import plan_text

_MAP = re.compile(r"The game map is a (\d+)x(\d+) grid")
_MINERAL = re.compile(r"^- Mineral Field \((\d+), (\d+)\) resource: (\d+)", re.M)
_WALLS = re.compile(r"^Walls \(impassable\): (.*)$", re.M)
_CELL = re.compile(r"\((\d+), (\d+)\)")
_SIDE = re.compile(r"You are (?:now )?the \*\*(\w+)\*\* side", re.I)
_UNIT = re.compile(r"^- \((\d+), (\d+)\), HP (\d+)(?:, carrying (\d+))?(?:, stock (\d+))?, "
                   r"action: (\w+)")


def read_battlefield(text: str) -> tuple[dict, int]:
    """(state, player) from the battlefield text of a PLAP prompt (the last one in ``text``):
    the map size, mineral fields, each side's resources and units, in the engine's state
    shape, and the side the planner plays (blue 0, red 1). ValueError when there is none."""
    start = text.rfind("The game map is a")
    size = _MAP.search(text, start) if start >= 0 else None
    if size is None:
        raise ValueError("the prompt has no battlefield description")
    body = text[start:]
    side = _SIDE.findall(body) or _SIDE.findall(text)
    player = 1 if side and side[-1].lower() == "red" else 0
    units = [{"player": -1, "type": "Resource", "x": int(x), "y": int(y), "resources": int(r),
              "hp": 1, "action": "noop"} for x, y, r in _MINERAL.findall(body)]
    resources = [0, 0]
    owner, kind = None, None
    for line in body.splitlines():
        head = re.match(r"^(Blue|Red)'s (Resource|Units)(?:: (\d+))?", line)
        if head:
            owner = 0 if head.group(1) == "Blue" else 1
            if head.group(2) == "Resource":
                resources[owner] = int(head.group(3) or 0)
            continue
        group = re.match(r"^(base|barracks|worker|light|heavy|ranged): \d+$", line)
        if group:
            kind = group.group(1).capitalize()
            continue
        unit = _UNIT.match(line)
        if unit and owner is not None and kind is not None:
            x, y, hp, carrying, stock, action = unit.groups()
            units.append({"player": owner, "type": kind, "x": int(x), "y": int(y),
                          "hp": int(hp), "resources": int(carrying or stock or 0),
                          "action": action})
    walls = _WALLS.search(body)
    state = {"width": int(size.group(1)), "height": int(size.group(2)), "units": units,
             "resources": resources,
             "walls": [[int(x), int(y)] for x, y in _CELL.findall(walls.group(1))]
             if walls else []}
    return state, player


DIRECTIONS = ("north", "east", "south", "west")


def _seen(state: dict, u: dict, player: int) -> tuple:
    """A position as ``player`` sees the map (red: turned half round), for ties."""
    if player == 0:
        return u["y"], u["x"]
    return state["height"] - 1 - u["y"], state["width"] - 1 - u["x"]


def _toward(a: dict, b: dict) -> str:
    dx, dy = b["x"] - a["x"], b["y"] - a["y"]
    if abs(dx) >= abs(dy):
        return "east" if dx > 0 else "west"
    return "south" if dy > 0 else "north"


class TipsPlanner:
    name = "standin-tips"

    def answer(self, messages: list[dict]) -> str:
        """The skill plan for the battlefield the prompt describes."""
        return self.plan_for(*read_battlefield(messages[-1]["content"]))

    def llm(self, ledger=None):
        """This stand-in as an LLM (:class:`pddlkit.llm.ScriptedLLM`)."""
        from pddlkit.llm import ScriptedLLM

        return ScriptedLLM(self.answer, model=self.name, ledger=ledger)

    def plan(self, observation: str, state: dict, player: int) -> str:
        """The planner shape of the game loop, from the observation text alone."""
        return self.plan_for(*read_battlefield(observation))

    def plan_for(self, state: dict, player: int) -> str:
        units = state["units"]
        own = [u for u in units if u["player"] == player]
        foes = [u for u in units if u["player"] == 1 - player]
        bases = [u for u in own if u["type"] == "Base"]
        barracks = [u for u in own if u["type"] == "Barracks"]
        minerals = [u for u in units if u["type"] == "Resource" and u["resources"] > 0]
        resources = state["resources"][player]
        lines: list[tuple[str, tuple]] = []
        enemy_base = next((u for u in foes if u["type"] == "Base"), None)
        if bases and minerals:
            base = bases[0]
            m = min(minerals, key=lambda u: (abs(u["x"] - base["x"]) + abs(u["y"] - base["y"]),
                                             _seen(state, u, player)))
            lines += [("Harvest Mineral", ((m["x"], m["y"]),))] * 2
        if bases:
            facing = _toward(bases[0], enemy_base or foes[0]) if foes else "east"
            lines += [("Produce Unit", ("worker", facing))] * 4
        if bases and not barracks and resources >= 8:
            site = self._site(state, bases[0], player)
            if site:
                lines.append(("Build Building", ("barracks", site)))
        if barracks:
            lines += [("Produce Unit", ("ranged", _toward(barracks[0], enemy_base or foes[0])
                                        if foes else "east"))] * 2
        kinds = {u["type"] for u in foes}
        for mine, count in (("worker", 4), ("ranged", 2), ("light", 2), ("heavy", 2)):
            if not any(u["type"] == mine.capitalize() for u in own):
                continue
            if "Barracks" in kinds:
                lines += [("Attack Enemy", (mine, "barracks"))] * 2
            for kind in ("Worker", "Light", "Heavy", "Ranged"):
                if kind in kinds:
                    lines += [("Attack Enemy", (mine, kind.lower()))] * count
            if "Base" in kinds:
                lines += [("Attack Enemy", (mine, "base"))] * 2
        return plan_text(lines)

    @staticmethod
    def _site(state: dict, base: dict, player: int = 0) -> Optional[tuple]:
        occupied = {(u["x"], u["y"]) for u in state["units"]} | \
            {tuple(w) for w in state.get("walls", ())}
        turn = 1 if player == 0 else -1   # red sees the map turned half round
        for dx, dy in ((0, 2), (2, 0), (0, -2), (-2, 0), (2, 2), (-2, -2), (2, -2), (-2, 2)):
            c = (base["x"] + turn * dx, base["y"] + turn * dy)
            if 0 <= c[0] < state["width"] and 0 <= c[1] < state["height"] and c not in occupied:
                return c
        return None


class NoisyPlanner(TipsPlanner):
    name = "standin-noisy"

    def __init__(self, rate: float = 0.3, seed: int = 0) -> None:
        self.rate = rate
        self.rng = random.Random(seed)

    def plan_for(self, state: dict, player: int) -> str:
        good = super().plan_for(state, player).splitlines()
        body = good[1:-1]
        w, h = state["width"], state["height"]
        bad = ["[Produce Unit](worker1, 0)",                       # malformed type
               "[Harvest Mineral](3 3)",                            # malformed parameters
               "[Build Barracks](barracks, (2, 2))",                # unknown skill
               f"[Harvest Mineral]({w // 2}, {h // 2})",            # no mineral there
               "[Produce Unit](light, east)",                       # no barracks (early)
               "[Attack Enemy](worker, heavy)",                     # no such enemy (early)
               f"[Build Building](base, ({w + 3}, 0))",             # outside the map
               f"[Deploy Unit](worker, ({w - 1}, 0))"]              # wasteful
        out = []
        for line in body:
            if self.rng.random() < self.rate:
                out.append(self.rng.choice(bad))
            out.append(line)
        return "\n".join([good[0], *out, good[-1]])
