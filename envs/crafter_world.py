"""Crafter (the real ``crafter`` package, extra ``crafter``) under DEPS-style goals, with a
scripted goal-conditioned controller.

Goals. ``collect`` (``mine`` in DEPS's words) an item: wood from a tree, stone, coal, iron,
diamond, drink from water, sapling from grass; ``place`` a table, furnace, stone or plant;
``make`` a pickaxe or sword (``craft`` in DEPS's words; "craft a table" means place one). The
recipes are the package's own ``data.yaml`` (``crafter.constants``): what collecting requires,
what placing and making use, which stations must be nearby. A goal's count is, as in the crafting
world, the count the inventory must hold (for ``place``: how many times it was placed).

Controller. It sees what the agent sees, as DEPS's controller did: the 9x7 local view around
the player, read from ``info['semantic']`` through that window only, and a memory of every tile
it has seen (objects, which move, only while in view). A target it has not seen is searched
for: it walks to the nearest tile it has not seen yet, again and again, until one shows up or
its exploring budget (``explore``, 150 steps a try) runs out (then ``not-found``). Path-finding
(Dijkstra) runs over the memory: walkable tiles are grass, sand and path (never lava), a tile
not seen yet costs 2 (it may be walkable), and with a pickaxe stone is passable at a higher
cost and is mined on the way (tunnelling, so walled-in ores are reachable). ``sight="oracle"``
gives the controller the whole 64x64 map instead (the earlier controller, named for what it
is: it walks straight to a diamond 19 tiles away that the agent never saw). It faces a target by
moving toward it (a blocked move turns the player), then ``do`` / ``place_*`` / ``make_*``.
Between goal steps it keeps the player alive: drink at water when drink is low, eat a cow when
food is low, sleep when energy is low. Each goal type has a time-out in environment steps
(``timeouts``; collect 250 per item, place 100, make 100), as the DEPS code times its craft and
smelt goals out.

Failures, from the first false precondition in ``data.yaml``'s terms: ``missing-tool``
("collect stone needs a wood_pickaxe"), ``too-few`` ("make stone_pickaxe needs 1 stone"),
``no-station`` ("make iron_pickaxe needs a furnace nearby, and none has been placed"),
``destroyed`` ("the table I placed is gone: an arrow destroyed it"), ``not-found`` (no
reachable tile of the material), ``timeout``, ``died``, ``unknown-item``.

Death is the end: when health reaches 0 the goal fails (``died``), the episode is over
(``step`` refuses, ``won`` is False whatever the inventory holds), although Crafter itself
would let a dead player's health regrow and play on. A place goal holds while a station of
that kind stands within reach (Crafter's ``nearby`` for making: 1 tile around the player) or
was placed and is still remembered standing; a table or furnace an arrow destroyed no longer
counts, and a goal to place it again is run, not taken as done.

Peaceful mode (``peaceful=True``) removes zombies and skeletons at reset and never spawns them,
to isolate planning from survival; cows stay. A seed gives one game in either mode: the
creatures Crafter balances per chunk are taken in a fixed order (the package keeps them in a
set ordered by memory address, so a hostile game changed from run to run). Rendering is off unless ``render=True`` (the
controller reads only ``info``), which about doubles the step rate.
"""

from __future__ import annotations

import heapq
from typing import Optional

from .craft import CraftFailure, GoalOutcome

MOVES = {"move_left": (-1, 0), "move_right": (1, 0), "move_up": (0, -1), "move_down": (0, 1)}
ITEM_SOURCE = {"wood": "tree", "stone": "stone", "coal": "coal", "iron": "iron",
               "diamond": "diamond", "drink": "water", "sapling": "grass"}
KIND_ALIASES = {"mine": "collect", "craft": "make", "smelt": "make"}
DEFAULT_TIMEOUTS = {"collect": 250, "place": 100, "make": 100}
VITALS = ("health", "food", "drink", "energy")
#: the local view's half sizes (Crafter's 9x9 view less two rows of inventory: 9 wide, 7 high)
VIEW_X, VIEW_Y = 4, 3
UNKNOWN = -1
SIGHTS = ("local", "oracle")


class _Died(Exception):
    """The player died: every goal step stops at once."""


def _crafter():
    try:
        import crafter
    except ImportError as exc:   # the extra is not installed
        raise ImportError("the crafter environment needs the crafter package: pip install "
                          "'pddlkit[crafter]'") from exc
    return crafter


def _env_class(peaceful: bool):
    crafter = _crafter()
    from crafter import objects

    class Env(crafter.Env):
        quiet = True

        def _obs(self):
            return None if self.quiet else super()._obs()

        def reset(self):
            obs = super().reset()
            if peaceful:
                for obj in self._world.objects:
                    if isinstance(obj, (objects.Zombie, objects.Skeleton)):
                        self._world.remove(obj)
            return obs

        def _balance_object(self, chunk, objs, cls, *args, **kwargs):
            if peaceful and cls in (objects.Zombie, objects.Skeleton):
                return
            # Crafter keeps a chunk's creatures in a set, whose order follows memory
            # addresses, and despawns the creature at a random index of it: the same seed
            # gave different games from run to run. In a fixed order (position, kind) a
            # seed gives one game.
            ordered = sorted(objs, key=lambda o: (int(o.pos[0]), int(o.pos[1]),
                                                  type(o).__name__))
            return super()._balance_object(chunk, ordered, cls, *args, **kwargs)

    return Env


class CrafterWorld:
    """``CrafterWorld(peaceful=True)``; ``reset(seed)``; ``run_goal("collect", "wood", 3)``."""

    #: what DEPS's prompts call this world (its planner and explainer prompts are Crafter's)
    game = "Crafter"
    #: the values an option takes, read by ``pddlkit bench`` before a sweep runs (see
    #: :func:`pddlkit.bench.resolve.check_env_options`)
    option_choices = {"sight": SIGHTS}
    option_help = {"peaceful": "no zombies or skeletons",
                   "render": "keep frames (slower)",
                   "target": "the item or achievement the episode is won by",
                   "sight": "what the agent is told it sees: " + ", ".join(SIGHTS),
                   "explore": "steps of exploration a skill may take"}

    def __init__(self, peaceful: bool = True, length: int = 10000, render: bool = False,
                 timeouts: Optional[dict] = None, target: str = "diamond",
                 sight: str = "local", explore: int = 150) -> None:
        if sight not in SIGHTS:
            raise ValueError(f"sight must be one of {', '.join(SIGHTS)}, got {sight!r}")
        crafter = _crafter()
        self.sight = sight
        self.explore = int(explore)
        self.constants = crafter.constants
        self.peaceful = peaceful
        self.length = int(length)
        self.render = render
        self.timeouts = {**DEFAULT_TIMEOUTS, **(timeouts or {})}
        self.target = target
        self._cls = _env_class(peaceful)
        self.env = None
        self.info: dict = {}
        self.facing = (0, 1)
        self.steps = 0
        materials = list(self.constants.materials)
        self.ids = {name: i + 1 for i, name in enumerate(materials)}
        self.walkable = {self.ids[m] for m in self.constants.walkable}
        self.passable_stone = self.ids["stone"]
        self.object_ids = {name: len(materials) + 1 + i for i, name in enumerate(
            ("Player", "Cow", "Zombie", "Skeleton", "Arrow", "Plant"))}

    # -- the environment -------------------------------------------------------------------
    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        self.env = self._cls(length=self.length, seed=0 if seed is None else int(seed))
        self.env.quiet = not self.render
        self.env.reset()
        self.steps = 0
        self.facing = (0, 1)
        self.dead = False
        self.memory = None
        self.placed: dict = {}   # station -> cells where this controller placed one
        self._act("noop")
        return self.describe(), self.info

    def admissible_commands(self) -> list[str]:
        return list(self.constants.actions)

    def step(self, command: str):
        """One of Crafter's 17 actions by name ("move_left", "do", "make_wood_pickaxe")."""
        from .api import Step, info_dict

        if self.dead:
            return Step("I died: the episode is over.", 0.0, True, False,
                        info_dict(won=False, admissible=[], error="episode-over",
                                  steps=self.steps))
        if command not in self.constants.actions:
            return Step(f"Unknown action {command!r}; use one of "
                        f"{', '.join(self.constants.actions)}.", 0.0, False, False,
                        info_dict(won=self.won, admissible=self.admissible_commands,
                                  error="unknown-command", steps=self.steps))
        before = set(self.achievements)
        try:
            self._act(command)
        except _Died:
            pass
        reward = float(len(self.achievements - before))
        return Step(self.describe(), reward, self.dead or self.won, self.steps >= self.length,
                    info_dict(won=self.won, admissible=self.admissible_commands, error=None,
                              steps=self.steps, achievements=sorted(self.achievements)))

    def _act(self, action: str) -> None:
        """One Crafter action; the view goes into memory. Raises :class:`_Died` once the
        player is dead (no action is taken then)."""
        if self.dead:
            raise _Died()
        index = self.constants.actions.index(action)
        _, _, done, self.info = self.env.step(index)
        self.steps += 1
        if action in MOVES:
            self.facing = MOVES[action]
        self._see()
        if self.info["inventory"]["health"] <= 0:
            self.dead = True
            raise _Died()

    def _see(self) -> None:
        """Copy what the agent sees (the local view, or everything for the oracle) into memory;
        a tile an object stands on is remembered as walkable path (objects move)."""
        import numpy as np

        sem = self.info["semantic"]
        if self.memory is None:
            self.memory = np.full(sem.shape, UNKNOWN, dtype=np.int64)
        if self.sight == "oracle":
            window = (slice(None), slice(None))
        else:
            x, y = (int(v) for v in self.info["player_pos"])
            window = (slice(max(0, x - VIEW_X), x + VIEW_X + 1),
                      slice(max(0, y - VIEW_Y), y + VIEW_Y + 1))
        seen = np.array(sem[window], dtype=np.int64)
        seen[seen > len(self.ids)] = self.ids["path"]   # an object: walkable underneath
        self.memory[window] = seen
        self._window = window

    # -- what the DEPS loop reads (as of the crafting world) -------------------------------
    group = "crafter"

    @property
    def task(self) -> str:
        return f"Obtain 1 {self.target}."

    @property
    def actions(self) -> int:
        return self.steps

    @property
    def max_actions(self) -> int:
        return self.length

    def how(self, item: str) -> str:
        """How one gets ``item`` ("collect wood", "place table", "make wood_pickaxe"): what is
        collected is collected first (stone can also be placed, but one gets it by mining)."""
        if item in ITEM_SOURCE:
            return f"collect {item}"
        if item in self.constants.place:
            return f"place {item}"
        if item in self.constants.make:
            return f"make {item}"
        return f"collect {item}"

    @property
    def inventory(self) -> dict[str, int]:
        inv = self.info.get("inventory", {})
        return {k: v for k, v in inv.items() if k not in VITALS and v > 0}

    def held_and_placed(self) -> dict[str, int]:
        """The inventory with the stations standing nearby counted as held (``table``,
        ``furnace``): what the recipe model (:func:`recipes`) calls having a tool."""
        return {**self.inventory, **{item: n for item in ("table", "furnace")
                                     if (n := self._standing(item)) > 0}}

    @property
    def vitals(self) -> dict[str, int]:
        inv = self.info.get("inventory", {})
        return {k: inv.get(k, 0) for k in VITALS}

    @property
    def achievements(self) -> set[str]:
        return {k for k, v in self.info.get("achievements", {}).items() if v > 0}

    @property
    def won(self) -> bool:
        """The target held (or placed and standing); never once the player is dead."""
        if self.dead:
            return False
        if self.target in self.constants.place:
            return self._standing(self.target) > 0
        return self.inventory.get(self.target, 0) >= 1

    def nearby(self) -> list[str]:
        """The materials in the agent's local view (what it sees now)."""
        sem = self.info["semantic"]
        x, y = (int(v) for v in self.info["player_pos"])
        area = sem[max(0, x - VIEW_X): x + VIEW_X + 1, max(0, y - VIEW_Y): y + VIEW_Y + 1]
        names = {v: k for k, v in self.ids.items()}
        found = {names[v] for v in set(area.flatten().tolist()) if v in names}
        return sorted(found - {"grass", "sand", "path"})

    def describe(self) -> str:
        from .craft import inventory_text

        vit = ", ".join(f"{k} {v}" for k, v in self.vitals.items())
        return (f"My inventory has {inventory_text(self.inventory)}. Nearby: "
                f"{', '.join(self.nearby()) or 'nothing special'}. {vit}.")

    # -- preconditions from data.yaml ------------------------------------------------------
    def _failure(self, kind: str, item: str) -> Optional[CraftFailure]:
        inv = self.info["inventory"]
        c = self.constants
        if kind == "collect":
            source = ITEM_SOURCE.get(item)
            if source is None:
                return _unknown(item, kind, ITEM_SOURCE)
            for tool, n in c.collect[source]["require"].items():
                if inv.get(tool, 0) < n:
                    return CraftFailure("missing-tool", f"collect {item} needs a {tool}, but my "
                                        f"inventory has no {tool}", missing=tool, need=n)
            return None
        table = c.place if kind == "place" else c.make
        if item not in table:
            return _unknown(item, kind, table)
        for material, n in table[item]["uses"].items():
            if inv.get(material, 0) < n:
                return CraftFailure("too-few", f"{kind} {item} needs {n} {material}, but my "
                                    f"inventory has {inv.get(material, 0)} {material}",
                                    missing=material, need=n, have=inv.get(material, 0))
        if kind == "make":
            for station in table[item]["nearby"]:
                if not self._cells(station):
                    if self.placed.get(station):
                        return CraftFailure(
                            "destroyed", f"make {item} needs a {station} nearby; the "
                            f"{station} I placed is gone (an arrow destroyed it)",
                            missing=station)
                    return CraftFailure("no-station", f"make {item} needs a {station} nearby, "
                                        f"and none has been placed", missing=station)
        return None

    # -- goals -----------------------------------------------------------------------------
    def run_goal(self, kind: str, item: str, count: int = 1) -> GoalOutcome:
        kind = KIND_ALIASES.get(kind, kind)
        if kind == "make" and item in self.constants.place:
            kind = "place"
        if kind not in DEFAULT_TIMEOUTS:
            return GoalOutcome(False, 0, CraftFailure(
                "wrong-kind", f"'{kind}' is not a goal here; use collect, place or make"))
        start = self.steps
        try:
            return self._run_goal(kind, item, count, start)
        except _Died:
            return GoalOutcome(False, self.steps - start, CraftFailure(
                "died", "I died", missing=item))

    def _run_goal(self, kind: str, item: str, count: int, start: int) -> GoalOutcome:
        limit = self.timeouts[kind] * max(1, count)
        while self._held(kind, item) < count:
            failure = self._failure(kind, item)
            if failure:
                return GoalOutcome(False, self.steps - start, failure)
            if self.dead:
                return GoalOutcome(False, self.steps - start, CraftFailure(
                    "died", "I died", missing=item))
            if self.steps - start >= limit:
                return GoalOutcome(False, self.steps - start, CraftFailure(
                    "timeout", f"{kind} {item} did not finish in {limit} steps", missing=item))
            self._survive()
            ok = {"collect": self._collect, "place": self._place, "make": self._make}[kind](item)
            if not ok:
                where = ITEM_SOURCE.get(item, item) if kind == 'collect' else 'place'
                return GoalOutcome(False, self.steps - start, CraftFailure(
                    "not-found", f"{kind} {item}: no reachable {where} found"
                    + (f" (explored {self.explore} steps)" if kind == "collect" else ""),
                    missing=ITEM_SOURCE.get(item, item)))
        return GoalOutcome(True, self.steps - start)

    def _held(self, kind: str, item: str) -> int:
        if kind == "place":
            return self._standing(item)
        return self.info["inventory"].get(item, 0)

    def _standing(self, item: str) -> int:
        """Stations of kind ``item`` this controller placed that still stand (for a table or
        a furnace, which arrows destroy), or times placed (stone, plant)."""
        if item not in ("table", "furnace"):
            return self.info["achievements"].get(f"place_{item}", 0)
        known = self._cells(item)
        self.placed[item] = [c for c in self.placed.get(item, [])
                             if c in known or not self._in_view(c)]
        return len(self.placed[item])

    def _in_view(self, cell) -> bool:
        if self.sight == "oracle":
            return True
        x, y = (int(v) for v in self.info["player_pos"])
        return abs(cell[0] - x) <= VIEW_X and abs(cell[1] - y) <= VIEW_Y

    # -- movement --------------------------------------------------------------------------
    def _passable(self, v: int) -> Optional[int]:
        """Cost of entering a tile (as remembered), or None."""
        if v in self.walkable:
            return 1
        if v == UNKNOWN:   # not seen yet: it may be walkable
            return 2
        if v == self.passable_stone and self.info["inventory"].get("wood_pickaxe", 0):
            return 3
        return None

    def _route(self, goals) -> Optional[list]:
        """The cheapest path (list of cells, excluding the start) over the memory to any cell
        in ``goals`` (a set, or a test of a cell)."""
        sem = self.memory
        w, h = sem.shape
        if not callable(goals):
            goals = goals.__contains__
        start = tuple(int(v) for v in self.info["player_pos"])
        if goals(start):
            return []
        dist = {start: 0}
        back: dict = {}
        heap = [(0, start)]
        while heap:
            d, cell = heapq.heappop(heap)
            if d > dist[cell]:
                continue
            if goals(cell):
                path = [cell]
                while path[-1] in back and back[path[-1]] != start:
                    path.append(back[path[-1]])
                return path[::-1]
            x, y = cell
            for dx, dy in MOVES.values():
                nx, ny = x + dx, y + dy
                if not (0 <= nx < w and 0 <= ny < h):
                    continue
                cost = self._passable(int(sem[nx, ny]))
                if cost is None:
                    continue
                nd = d + cost
                if nd < dist.get((nx, ny), 1 << 30):
                    dist[(nx, ny)] = nd
                    back[(nx, ny)] = cell
                    heapq.heappush(heap, (nd, (nx, ny)))
        return None

    def _step_toward(self, cell) -> None:
        x, y = (int(v) for v in self.info["player_pos"])
        d = (cell[0] - x, cell[1] - y)
        action = next(a for a, m in MOVES.items() if m == d)
        if int(self.info["semantic"][cell]) == self.passable_stone:
            self._face(d)
            self._act("do")       # tunnel: mine the stone first
        self._act(action)

    def _face(self, d) -> None:
        if self.facing != d:
            self._act(next(a for a, m in MOVES.items() if m == d))

    def _go_next_to(self, targets: set, budget: int = 400) -> Optional[tuple]:
        """Walk to a cell beside one of ``targets``; the target cell now faced, or None."""
        for _ in range(budget):
            x, y = (int(v) for v in self.info["player_pos"])
            for dx, dy in MOVES.values():
                if (x + dx, y + dy) in targets:
                    self._face((dx, dy))
                    return (x + dx, y + dy)
            spots = {(tx + dx, ty + dy) for tx, ty in targets for dx, dy in MOVES.values()}
            path = self._route(spots)
            if not path:
                return None
            self._step_toward(path[0])
        return None

    def _explore_step(self) -> bool:
        """One step toward the nearest tile not seen yet; False when there is none to reach."""
        memory = self.memory
        path = self._route(lambda c: memory[c] == UNKNOWN)
        if not path:
            return False
        self._step_toward(path[0])
        return True

    def _cells(self, name: str) -> set:
        """The remembered tiles of material ``name``."""
        import numpy as np

        xs, ys = np.nonzero(self.memory == self.ids[name])
        return set(zip(xs.tolist(), ys.tolist()))

    # -- goal steps ------------------------------------------------------------------------
    def _collect(self, item: str) -> bool:
        source = ITEM_SOURCE[item]
        targets = self._cells(source)
        for _ in range(self.explore):   # not seen yet: search for it
            if targets or not self._explore_step():
                break
            targets = self._cells(source)
        faced = self._go_next_to(targets) if targets else None
        if faced is None:
            return False
        before = self.info["inventory"].get(item, 0)
        for _ in range(12 if item == "sapling" else 3):
            self._act("do")
            if self.info["inventory"].get(item, 0) > before or self.dead:
                break
        return True

    def _place(self, item: str) -> bool:
        where = {self.ids[m] for m in self.constants.place[item]["where"]}
        near_table = self._cells("table") if item == "furnace" else set()
        sem = self.memory
        for _ in range(60):
            x, y = (int(v) for v in self.info["player_pos"])
            fx, fy = x + self.facing[0], y + self.facing[1]
            close = not near_table or any(max(abs(tx - x), abs(ty - y)) <= 1
                                          for tx, ty in near_table)
            if close and int(sem[fx, fy]) in where:
                self._act(f"place_{item}")
                if int(self.memory[fx, fy]) == self.ids.get(item):
                    self.placed.setdefault(item, []).append((fx, fy))
                return True
            # turn toward a tile the item may go on, without stepping onto it: move into it
            # from the opposite side is not needed; stepping there and facing onward works
            options = [d for d in MOVES.values() if int(sem[x + d[0], y + d[1]]) in where]
            if near_table and not close:
                spots = {(tx + dx, ty + dy) for tx, ty in near_table
                         for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
                path = self._route(spots)
                if not path:
                    return False
                self._step_toward(path[0])
            elif options:
                self._act(next(a for a, m in MOVES.items() if m == options[0]))
            else:
                return False
            sem = self.memory
        return False

    def _make(self, item: str) -> bool:
        stations = list(self.constants.make[item]["nearby"])
        cells = [self._cells(s) for s in stations]
        spots = None
        for cell_set in cells:
            around = {(x + dx, y + dy) for x, y in cell_set for dx in (-1, 0, 1)
                      for dy in (-1, 0, 1)}
            spots = around if spots is None else spots & around
        if not spots:
            return False
        for _ in range(200):
            pos = tuple(int(v) for v in self.info["player_pos"])
            if pos in spots:
                self._act(f"make_{item}")
                return True
            path = self._route(spots)
            if not path:
                return False
            self._step_toward(path[0])
        return False

    def _survive(self) -> None:
        """Drink, eat or sleep when a vital runs low (never in the middle of a goal step)."""
        vit = self.vitals
        if vit["drink"] <= 3 and self._cells("water"):
            if self._go_next_to(self._cells("water")) is not None:
                while self.vitals["drink"] < 9 and not self.dead:
                    self._act("do")
        if vit["food"] <= 3:
            for _ in range(60):
                cows = self._objects("Cow")
                if not cows or self.vitals["food"] > 6 or self.dead:
                    break
                if self._go_next_to(cows, budget=1) is not None:
                    self._act("do")
        if vit["energy"] <= 2:
            for _ in range(400):
                self._act("sleep")
                if self.vitals["energy"] >= 9 or self.dead:
                    break
            self._act("noop")

    def _objects(self, name: str) -> set:
        import numpy as np

        sem = self.info["semantic"]
        window = self._window   # objects move: only those in view now
        mask = np.zeros(sem.shape, dtype=bool)
        mask[window] = sem[window] == self.object_ids[name]
        xs, ys = np.nonzero(mask)
        return set(zip(xs.tolist(), ys.tolist()))


def _unknown(item: str, kind: str, known) -> CraftFailure:
    import difflib

    close = difflib.get_close_matches(item, list(known), n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return CraftFailure("unknown-item", f"there is no {kind} goal for '{item}' in Crafter{hint}",
                        missing=item)


def recipes() -> list:
    """Crafter's ``data.yaml`` as the crafting world's :class:`~.craft.Recipe` rows, for planners
    that reason over recipes (DEPS's stand-in). ``mine`` is collect, ``craft`` is place or make;
    a make's stations are its tool (iron tools: the furnace), and the furnace is placed by the
    table (where make can reach both), so the table is the furnace's tool."""
    from .craft import Recipe

    c = _crafter().constants
    rows = []
    for item, source in ITEM_SOURCE.items():
        if item in ("drink", "sapling"):
            continue
        need = c.collect[source]["require"]
        rows.append(Recipe("mine", item, 1, (), next(iter(need), None)))
    for item, info in c.place.items():
        if item in ("table", "furnace"):
            rows.append(Recipe("craft", item, 1, tuple(info["uses"].items()),
                               "table" if item == "furnace" else None))
    for item, info in c.make.items():
        rows.append(Recipe("craft", item, int(info["gives"]), tuple(info["uses"].items()),
                           info["nearby"][-1]))
    return rows


#: a correct plan for the stone pickaxe, then the iron pickaxe, as (kind, item, count) goals
#: with counts as the inventory should hold them (the table takes 2 wood, a pickaxe 1)
STONE_PICKAXE_PLAN = (
    ("collect", "wood", 3), ("place", "table", 1), ("make", "wood_pickaxe", 1),
    ("collect", "wood", 1), ("collect", "stone", 1), ("make", "stone_pickaxe", 1))
IRON_PICKAXE_PLAN = STONE_PICKAXE_PLAN + (
    ("collect", "wood", 1), ("collect", "stone", 4), ("place", "furnace", 1),
    ("collect", "coal", 1), ("collect", "iron", 1), ("make", "iron_pickaxe", 1))
