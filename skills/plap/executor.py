"""PLAP's skill executor: the plan's skills turned into unit actions, recomputed every game
cycle from the fresh state with only the first action of each skill's policy issued (the
receding horizon of seed 002, eq. 6-7).

Each skill has an initiation test (which idle unit can run it now), a termination test, and a
low-level policy. Choices, from PLAP's code where the paper is silent (shared/specs/plap.md §1):

- **Assignment**: a line is bound to one unit, and keeps it while that unit lives: a busy
  unit counts against its own line (the line waits for it), and no other line takes a unit
  that is bound, so one ``[Harvest Mineral]`` line keeps one worker harvesting and one
  ``[Attack Enemy]`` line sends one unit, as the prompt says ("each line assigns one unit:
  repeat a line to assign several"). An unbound line takes, in plan order, among the idle
  unbound units that fit, the one with the shortest path (a worker already carrying
  resources first, for harvesting). A line with no unit now stays pending; a line whose unit
  died is bound to another.
- **Deploy Unit** (type, (x, y)): move toward the cell; never ends by itself (it holds the unit
  there until the next plan).
- **Harvest Mineral** ((x, y)): go beside the mineral, harvest, go beside the own base, return;
  ends when the mineral is gone or the player has no base.
- **Build Building** (type, (x, y)): go beside the site and build toward it; ends when the
  player's count of that building rose (one line per building made, in plan order).
- **Produce Unit** (type, direction): an idle base (workers) or barracks (the others) produces
  toward the direction, or the first free side; ends when the count of that type rose.
- **Attack Enemy** (type, enemy type): the nearest enemy of that type; move until it is in
  range, then attack it; ends when the enemy's count of that type fell.
- **Auto-attack**: an idle combat unit with no line attacks an enemy in range.

Side symmetry: the two sides of a point-symmetric map play mirror images of each other. The
search tries the four directions in the side's own order (red's is blue's turned half round)
and every tie (between units, targets, bases, directions) is broken by the position as the
side sees it (mirrored for red), never by unit ids, which the engine hands out blue first; a
stand-in against itself used to lose every game as blue.

Paths: breadth-first search over the grid, 4-connected, every occupied cell and every wall an
obstacle; a unit
that dies mid-skill simply no longer exists in the next cycle's state, so its line is given to
another unit (or waits), which is what recovering means here.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from .plan import DIRECTIONS, SkillLine

OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0))      # north, east, south, west (engine order)
ENGINE_TYPES = {"worker": "Worker", "light": "Light", "heavy": "Heavy", "ranged": "Ranged",
                "base": "Base", "barracks": "Barracks"}
COMBAT = ("Worker", "Light", "Heavy", "Ranged")


def _direction(a, b) -> int:
    return OFFSETS.index((b[0] - a[0], b[1] - a[1]))


@dataclass
class Task:
    line: SkillLine
    done: bool = False
    unit: Optional[int] = None        # the unit bound to it, while that unit lives
    started: bool = False             # a unit was given an action for it


@dataclass
class Executor:
    """Runs a skill plan: :meth:`set_plan` at each planning step, :meth:`actions` each cycle."""

    player: int = 0
    ranges: dict = field(default_factory=lambda: {"Worker": 1, "Light": 1, "Heavy": 1,
                                                  "Ranged": 3})
    tasks: list[Task] = field(default_factory=list)
    counts: dict = field(default_factory=dict)        # own/enemy counts at the last cycle
    #: every line of the last plan, finished ones too (:func:`.progress.progress` reads it)
    plan_tasks: list[Task] = field(default_factory=list)

    @property
    def _order(self) -> tuple:
        """The four directions in this side's order (red: blue's turned half round)."""
        return OFFSETS if self.player == 0 else OFFSETS[2:] + OFFSETS[:2]

    def _seen(self, state: dict, u: dict) -> tuple:
        """A unit's position as this side sees the map (red: turned half round), for ties."""
        if self.player == 0:
            return u["y"], u["x"]
        return state["height"] - 1 - u["y"], state["width"] - 1 - u["x"]

    def set_plan(self, lines: list[SkillLine], state: dict) -> None:
        self.tasks = [Task(line) for line in lines]
        self.plan_tasks = list(self.tasks)
        self.counts = self._counts(state)

    # -- state helpers ---------------------------------------------------------------------
    def _counts(self, state: dict) -> dict:
        out: dict = {}
        for u in state["units"]:
            if u["player"] >= 0:
                key = ("own" if u["player"] == self.player else "enemy", u["type"])
                out[key] = out.get(key, 0) + 1
        return out

    @staticmethod
    def _occupied(state: dict) -> set:
        """Cells a unit cannot enter: every unit's, and the map's walls."""
        return {(u["x"], u["y"]) for u in state["units"]} | \
            {tuple(w) for w in state.get("walls", ())}

    @staticmethod
    def _inside(state: dict, cell) -> bool:
        return 0 <= cell[0] < state["width"] and 0 <= cell[1] < state["height"]

    def _bfs(self, state: dict, start, goals: set, occupied: set) -> Optional[list]:
        """The shortest path from ``start`` to a cell of ``goals`` (cells after the start)."""
        if start in goals:
            return []
        back = {start: None}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for dx, dy in self._order:
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt in back or not self._inside(state, nxt) or nxt in occupied:
                    continue
                back[nxt] = cell
                if nxt in goals:
                    path = [nxt]
                    while back[path[-1]] != start:
                        path.append(back[path[-1]])
                    return path[::-1]
                queue.append(nxt)
        return None

    def _beside(self, state: dict, target, occupied: set, unit_cell=None) -> set:
        cells = {(target[0] + dx, target[1] + dy) for dx, dy in OFFSETS}
        return {c for c in cells if self._inside(state, c) and (c not in occupied
                                                                or c == unit_cell)}

    # -- termination -----------------------------------------------------------------------
    def _terminate(self, state: dict) -> None:
        now = self._counts(state)
        minerals = {(u["x"], u["y"]) for u in state["units"]
                    if u["type"] == "Resource" and u["resources"] > 0}
        has_base = now.get(("own", "Base"), 0) > 0
        rose = {k: now.get(k, 0) - self.counts.get(k, 0) for k in set(now) | set(self.counts)}
        for task in self.tasks:
            if task.done:
                continue
            skill, p = task.line.skill, task.line.params
            if skill == "Harvest Mineral" and (p[0] not in minerals or not has_base):
                task.done = True
            elif skill in ("Build Building", "Produce Unit"):
                key = ("own", ENGINE_TYPES[p[0]])
                if rose.get(key, 0) > 0:
                    task.done = True
                    rose[key] -= 1
            elif skill == "Attack Enemy":
                key = ("enemy", ENGINE_TYPES[p[1]])
                if rose.get(key, 0) < 0:
                    task.done = True
                    rose[key] += 1
        self.counts = now

    # -- one cycle -------------------------------------------------------------------------
    def actions(self, state: dict) -> list[dict]:
        """The unit actions for this cycle (only idle units get one)."""
        self._terminate(state)
        self.tasks = [t for t in self.tasks if not t.done]
        occupied = self._occupied(state)
        idle = {u["id"]: u for u in state["units"]
                if u["player"] == self.player and u["action"] == "noop"}
        mine = [u for u in state["units"] if u["player"] == self.player]
        alive = {u["id"] for u in mine}
        for task in self.tasks:
            if task.unit not in alive:   # never bound, or its unit died: free to rebind
                task.unit = None
        bound = {t.unit for t in self.tasks if t.unit is not None}
        used: set = set(bound)
        out: list[dict] = []
        for task in self.tasks:
            if task.unit is not None:
                if task.unit not in idle:   # busy on this line's last action: the line waits
                    continue
                pool = {task.unit: idle[task.unit]}
                used.discard(task.unit)
            else:
                pool = {uid: u for uid, u in idle.items() if uid not in bound}
            action = self._run(task, state, pool, used, occupied, mine)
            if action is None and task.unit is not None:
                used.add(task.unit)
            if action is not None:
                out.append(action)
                used.add(action["unit"])
                task.unit = action["unit"]
                task.started = True
                bound.add(action["unit"])
                if action["type"] == "move":
                    d = OFFSETS[action["direction"]]
                    unit = idle[action["unit"]]
                    occupied.add((unit["x"] + d[0], unit["y"] + d[1]))
        for u in idle.values():   # auto-attack
            if u["id"] in used or u["type"] not in COMBAT:
                continue
            target = self._in_range(state, u)
            if target is not None:
                out.append({"unit": u["id"], "type": "attack", "x": target["x"],
                            "y": target["y"]})
        return out

    def _in_range(self, state: dict, u: dict) -> Optional[dict]:
        r = self.ranges.get(u["type"], 1)
        foes = [e for e in state["units"] if e["player"] == 1 - self.player
                and (e["x"] - u["x"]) ** 2 + (e["y"] - u["y"]) ** 2 <= r * r]
        return min(foes, key=lambda e: (e["hp"], self._seen(state, e))) if foes else None

    def _nearest(self, state, units, goals_of, occupied, prefer=None):
        """(unit, path) of the unit with the shortest path to its goals."""
        best = None
        for u in units:
            start = (u["x"], u["y"])
            goals = goals_of(u)
            if not goals:
                continue
            path = self._bfs(state, start, goals, occupied - {start})
            if path is None:
                continue
            key = (0 if prefer and prefer(u) else 1, len(path), self._seen(state, u))
            if best is None or key < best[0]:
                best = (key, u, path)
        return (best[1], best[2]) if best else (None, None)

    def _move(self, u: dict, path: list) -> dict:
        return {"unit": u["id"], "type": "move", "direction": _direction((u["x"], u["y"]),
                                                                          path[0])}

    def _run(self, task: Task, state, idle, used, occupied, mine) -> Optional[dict]:
        skill, p = task.line.skill, task.line.params
        free = [u for uid, u in idle.items() if uid not in used]
        if skill == "Produce Unit":
            maker = "Base" if p[0] == "worker" else "Barracks"
            for u in free:
                if u["type"] != maker:
                    continue
                want = DIRECTIONS.index(p[1])
                order = [OFFSETS.index(o) for o in self._order]
                for d in [want] + [k for k in order if k != want]:
                    cell = (u["x"] + OFFSETS[d][0], u["y"] + OFFSETS[d][1])
                    if self._inside(state, cell) and cell not in occupied:
                        return {"unit": u["id"], "type": "produce", "direction": d,
                                "unit_type": ENGINE_TYPES[p[0]]}
            return None
        if skill == "Harvest Mineral":
            workers = [u for u in free if u["type"] == "Worker"]
            bases = [b for b in mine if b["type"] == "Base"]
            if not workers or not bases:
                return None
            base = min(bases, key=lambda b: (abs(b["x"] - p[0][0]) + abs(b["y"] - p[0][1]),
                                             self._seen(state, b)))

            def goals(u):
                target = (base["x"], base["y"]) if u["resources"] else p[0]
                return self._beside(state, target, occupied, (u["x"], u["y"]))

            u, path = self._nearest(state, workers, goals, occupied,
                                    prefer=lambda w: w["resources"] > 0)
            if u is None:
                return None
            if path:
                return self._move(u, path)
            if u["resources"]:
                return {"unit": u["id"], "type": "return",
                        "direction": _direction((u["x"], u["y"]), (base["x"], base["y"]))}
            return {"unit": u["id"], "type": "harvest",
                    "direction": _direction((u["x"], u["y"]), p[0])}
        if skill == "Build Building":
            workers = [u for u in free if u["type"] == "Worker"]
            site = p[1]
            if site in occupied or not self._inside(state, site):
                return None
            u, path = self._nearest(state, workers, lambda w: self._beside(
                state, site, occupied, (w["x"], w["y"])), occupied)
            if u is None:
                return None
            if path:
                return self._move(u, path)
            return {"unit": u["id"], "type": "produce",
                    "direction": _direction((u["x"], u["y"]), site),
                    "unit_type": ENGINE_TYPES[p[0]]}
        if skill == "Deploy Unit":
            units = [u for u in free if u["type"] == ENGINE_TYPES[p[0]]]
            u, path = self._nearest(state, units, lambda _: {p[1]}, occupied)
            if u is None or not path:
                return None if u is None else {"unit": u["id"], "type": "noop"}
            return self._move(u, path)
        # Attack Enemy
        units = [u for u in free if u["type"] == ENGINE_TYPES[p[0]]]
        foes = [e for e in state["units"] if e["player"] == 1 - self.player
                and e["type"] == ENGINE_TYPES[p[1]]]
        if not units or not foes:
            return None
        r = self.ranges.get(ENGINE_TYPES[p[0]], 1)

        def reach(u):
            cells = set()
            for e in foes:
                for dx in range(-r, r + 1):
                    for dy in range(-r, r + 1):
                        c = (e["x"] + dx, e["y"] + dy)
                        if dx * dx + dy * dy <= r * r and self._inside(state, c) and (
                                c not in occupied or c == (u["x"], u["y"])):
                            cells.add(c)
            return cells

        u, path = self._nearest(state, units, reach, occupied)
        if u is None:
            return None
        if path:
            return self._move(u, path)
        target = min(foes, key=lambda e: ((e["x"] - u["x"]) ** 2 + (e["y"] - u["y"]) ** 2,
                                          e["hp"], self._seen(state, e)))
        return {"unit": u["id"], "type": "attack", "x": target["x"], "y": target["y"]}
