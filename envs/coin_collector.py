"""CoinCollector as in PDDLego+: find the coin in a house of rooms joined by open doorways or
doors (closed at the start). 3, 5, 7, 9 and 11 rooms as in the paper; up to 100 for scale.

Commands: "move <dir>", "open door to <dir>", "close door to <dir>", "take coin",
"look around", "inventory". Observations follow the paper's style: "You are in the kitchen.
To the South you see a closed patio door. To the West you see the corridor."
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Optional

from pddlkit.domains import path as domain_path
from pddlkit.pddl.model import Problem
from pddlkit.pddl.reader import parse_domain, parse_problem
from pddlkit.semantics.grounding import GroundAction
from pddlkit.semantics.state import State

from .api import ActionTemplate
from .pddl_world import PDDLWorldEnv

DIRECTIONS = ("north", "south", "east", "west")
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
STEP = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
ROOM_NAMES = ("kitchen", "pantry", "corridor", "living room", "bedroom", "bathroom", "laundry room",
              "backyard", "patio", "driveway", "garden", "street", "supermarket", "office",
              "study", "hallway", "garage", "attic", "basement", "dining room", "nursery",
              "workshop", "library", "sunroom", "foyer", "cellar", "closet", "porch", "shed",
              "greenhouse")
DOOR_KINDS = ("plain door", "patio door", "wooden door", "sliding door", "screen door",
              "glass door", "front door", "barn door")
PAPER_SIZES = (3, 5, 7, 9, 11)

TEMPLATES = (
    ActionTemplate("move", ("?from", "?to", "?dir"), "move {dir}"),
    ActionTemplate("open-door", ("?loc1", "?loc2", "?dir"), "open door to {dir}"),
    ActionTemplate("close-door", ("?loc1", "?loc2", "?dir"), "close door to {dir}"),
    ActionTemplate("take", ("?i", "?r"), "take {i}"),
)


@lru_cache(maxsize=1)
def ground_truth_domain():
    return parse_domain(domain_path("coin-collector/domain.pddl").read_text())


def generate_layout(rooms: int, rng: random.Random) -> tuple[list[str], list[tuple], str]:
    """(room names, connections (a, b, dir-from-a, door kind or None), the coin's room).

    Rooms are placed on a grid by growing a random tree from the start, with an extra
    doorway now and then between grid neighbours (loops), as in TextWorld's coin collector
    with distractor rooms. The coin goes to a room farthest from the start.
    """
    names = [ROOM_NAMES[i % len(ROOM_NAMES)] + (f" {i // len(ROOM_NAMES) + 1}"
                                                if i >= len(ROOM_NAMES) else "")
             for i in range(rooms)]
    rng.shuffle(names)
    cells = {(0, 0): 0}
    where = [(0, 0)]
    edges: dict[frozenset, tuple] = {}
    while len(where) < rooms:
        base = rng.randrange(len(where))
        d = rng.choice(DIRECTIONS)
        x, y = where[base]
        cell = (x + STEP[d][0], y + STEP[d][1])
        if cell in cells:
            continue
        cells[cell] = len(where)
        where.append(cell)
        edges[frozenset((base, len(where) - 1))] = (base, len(where) - 1, d)
    for (x, y), i in sorted(cells.items()):  # a few loops
        for d in ("north", "east"):
            j = cells.get((x + STEP[d][0], y + STEP[d][1]))
            if j is not None and frozenset((i, j)) not in edges and rng.random() < 0.15:
                edges[frozenset((i, j))] = (i, j, d)
    connections = []
    for a, b, d in edges.values():
        door = rng.choice(DOOR_KINDS) if rng.random() < 0.5 else None
        connections.append((names[a], names[b], d, door))
    # breadth-first distances from the start; the coin goes to one of the farthest rooms
    dist = {0: 0}
    frontier = [0]
    adjacency: dict[int, list[int]] = {}
    for a, b, _ in edges.values():
        adjacency.setdefault(a, []).append(b)
        adjacency.setdefault(b, []).append(a)
    while frontier:
        nxt = []
        for i in frontier:
            for j in adjacency.get(i, ()):
                if j not in dist:
                    dist[j] = dist[i] + 1
                    nxt.append(j)
        frontier = nxt
    far = max(dist.values())
    coin = rng.choice(sorted(i for i, v in dist.items() if v == far)) if rooms > 1 else 0
    return names, connections, names[coin]


def pddl_name(shown: str) -> str:
    return "_".join(shown.split())


class CoinCollector(PDDLWorldEnv):
    """``CoinCollector(rooms=7, seed=0)``; every reset(seed) builds that seed's house."""

    id = "coin-collector"
    META_COMMANDS = ("look around", "inventory")
    MESSAGES = {
        ("connected", True): "You can't move {2}: there is no exit in that direction.",
        ("has-door", True): lambda args, env: (
            f"There is no door to the {args[2]}: it is an open doorway."
            if env.state.atoms_with("connected", 1, args[0]) and any(
                f[3] == args[2] for f in env.state.atoms_with("connected", 1, args[0]))
            else f"There is no door to the {args[2]}."),
        ("door-open", True): "The door to the {2} is closed.",
        ("door-open", False): "The door to the {2} is already open.",
        ("in", True): "There is no {0} here.",
        ("at", True): "You are not in the {0}.",
    }

    option_bounds = {"rooms": (1, 100)}
    option_help = {"rooms": "number of rooms, 1 to 100",
                   "terse": "answer refused commands as TextWorld does (no reason given)"}

    def __init__(self, rooms: int = 7, seed: Optional[int] = 0, *, terse: bool = False,
                 max_steps: Optional[int] = None) -> None:
        if not 1 <= rooms <= 100:
            raise ValueError(f"rooms must be between 1 and 100, got {rooms}")
        self.rooms = rooms
        super().__init__(ground_truth_domain(), None, TEMPLATES, terse=terse,
                         max_steps=max_steps or max(50, 10 * rooms), seed=seed)
        self.doors: dict[tuple[str, str], str] = {}

    def generate(self, rng: random.Random) -> Problem:
        names, connections, coin_room = generate_layout(self.rooms, rng)
        self.doors = {}
        init = [f"(at {pddl_name(names[0])})", f"(visited {pddl_name(names[0])})",
                f"(in coin {pddl_name(coin_room)})"]
        for a, b, d, door in connections:
            pa, pb, back = pddl_name(a), pddl_name(b), OPPOSITE[d]
            init += [f"(connected {pa} {pb} {d})", f"(connected {pb} {pa} {back})"]
            if door:
                init += [f"(has-door {pa} {pb} {d})", f"(has-door {pb} {pa} {back})"]
                self.doors[(pa, d)] = self.doors[(pb, back)] = door
        rooms = " ".join(pddl_name(n) for n in names)
        text = (f"(define (problem coin-{self.rooms}-{self.seed}) (:domain coin-collector)\n"
                f"  (:objects {rooms} - room north south east west - direction coin - item)\n"
                f"  (:init {' '.join(init)})\n  (:goal (holding coin)))\n")
        self.problem_text = text
        return parse_problem(text)

    @property
    def task(self) -> str:
        return "find the coin and take it."

    def here(self, state: Optional[State] = None) -> str:
        state = state or self.state
        return next(iter(state.by_predicate["at"]))[1]

    def describe(self) -> str:
        room = self.here()
        parts = [f"You are in the {self.display(room)}."]
        if ("in", "coin", room) in self.state.atoms:
            parts.append("You see a coin.")
        exits = {f[3]: f[2] for f in self.state.atoms_with("connected", 1, room)}
        for d in DIRECTIONS:
            if d not in exits:
                continue
            to = self.display(exits[d])
            door = self.doors.get((room, d))
            if door is None:
                parts.append(f"To the {d.capitalize()} you see the {to}.")
            elif ("door-open", room, exits[d], d) in self.state.atoms:
                parts.append(f"To the {d.capitalize()} you see an open {door}, leading to the "
                             f"{to}.")
            else:
                parts.append(f"To the {d.capitalize()} you see a closed {door}.")
        return " ".join(parts)

    def intro(self) -> str:
        return self.describe() + "\n\nYour task is to: " + self.task

    def feedback(self, action: GroundAction, before: State) -> str:
        if action.name == "move":
            return self.describe()
        if action.name in ("open-door", "close-door"):
            door = self.doors.get((action.args[0], action.args[2]), "door")
            if action.name == "close-door":
                return f"You close the {door}."
            return f"You open the {door}, revealing the {self.display(action.args[1])}."
        if action.name == "take":
            return f"You take the {self.display(action.args[0])}."
        return super().feedback(action, before)  # pragma: no cover

    def meta(self, command: str) -> Optional[str]:
        if command in ("look around", "look"):
            return self.describe()
        if command in ("inventory", "i"):
            held = sorted(f[1] for f in self.state.by_predicate.get("holding", ()))
            return ("Your inventory: " + ", ".join(f"the {h}" for h in held) + "."
                    if held else "Your inventory is empty.")
        return None

    def visible(self) -> set:
        """What :meth:`describe` shows: the room the agent is in, each room through an open
        doorway or an open door, the coin when it is here. A room behind a closed door is
        seen once the door opens ("revealing the kitchen"). With nothing hidden (before),
        ``info["failed"]`` named the room behind a closed door (``(door-open pantry kitchen
        west)`` for "The door to the west is closed."), and the refuted-facts help told a
        model so one step before the game did."""
        room = self.here()
        seen = {room}
        if ("in", "coin", room) in self.state.atoms:
            seen.add("coin")
        for fact in self.state.atoms_with("connected", 1, room):
            to, d = fact[2], fact[3]
            if self.doors.get((room, d)) is None or ("door-open", room, to, d) in self.state.atoms:
                seen.add(to)
        return seen

    def perceived(self, name: str) -> bool:
        # the four directions and the task's coin are always known: only rooms are hidden
        return name in DIRECTIONS or name == "coin" or super().perceived(name)

    def unknown_object(self, shown: str, parameter: str) -> str:
        if parameter in ("?dir",):
            return (f"\"{shown}\" is not a direction; you can go north, south, east or west.")
        return f"There is no {shown.strip()} here."
