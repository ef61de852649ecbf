"""ALFWorld text games built without the ALFRED dataset, from what the ``alfworld`` wheel ships.

ALFWorld's own games (``game.tw-pddl``) are made from ALFRED trajectories, which are a separate
multi-gigabyte download. The wheel carries enough to build equivalent games:

- ``alfworld/data/alfred.pddl`` (the domain) and ``alfred.twl2`` (TextWorld's grammar: the
  text of every observation and the command of every action);
- ``alfworld/gen/layouts/FloorPlan<N>-openable.json``: each receptacle of the AI2-THOR scene
  with the agent pose it is reached from (x, z, rotation, horizon), and
  ``FloorPlan<N>-objects.json``: the classes of object found in the scene;
- ``alfworld.gen.constants``: which receptacle class holds which object class
  (``VAL_RECEPTACLE_OBJECTS``) and which classes heat, cool, clean, toggle and open;
- ``alfworld.gen.goal_library``: the PDDL goal and the sentence templates of each task type.

From these, :func:`make_game` writes the problem the way ALFRED's ``PlannedGameState`` does
(object ids such as ``Apple|+00.68|+00.95|-02.48`` mangled to ``Apple_bar__plus_00_dot_68...``,
locations ``loc|x|z|rotation|horizon`` in grid steps, ``canContain`` per class pair). What the
dataset would have fixed is drawn from a seed: how many objects of each class, and which
receptacle each lies in (only where the class may lie), the agent's start, and the task's
target classes.

Choices where the wheel is silent (written down here because the dataset decides them):
- Lamps: no receptacle class lists DeskLamp or FloorLamp, yet the light task's goal needs the
  lamp ``inReceptacle``; a lamp stands on a desk, side table, dresser, shelf, or table.
- A task's target objects never start in a receptacle of the goal's class (the goal would hold
  at once), nor in the appliance the task needs (a microwave, fridge or sinkbasin); an object
  that starts in a fridge is cool, as in ALFRED's ``was_in_receptacle`` rule.
- Slice and movable-receptacle tasks are left out, as ALFWorld's text games leave them out.

This module runs in the ALFWorld interpreter (see :mod:`pddlkit.envs.alfworld_worker`): it
imports ``alfworld`` and nothing of pddlkit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Optional

TASK_TYPES = {
    "pick_and_place_simple": "pick",
    "look_at_obj_in_light": "look",
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
    "pick_two_obj_and_place": "pick_two",
}
ALIASES = {short: full for full, short in TASK_TYPES.items()}
APPLIANCE = {"clean": ("SinkBasin", "Cleanable"), "heat": ("Microwave", "Heatable"),
             "cool": ("Fridge", "Coolable")}
LAMPS = ("DeskLamp", "FloorLamp")
LAMP_STANDS = ("Desk", "SideTable", "Dresser", "Shelf", "CoffeeTable", "DiningTable", "TVStand")
STEP = 0.25  # AI2-THOR's grid step (constants.AGENT_STEP_SIZE)
#: part of each cached game's file name: bump it when what a seed draws changes.
VERSION = 1


def task_type(name: str) -> str:
    """ALFWorld's task-type name for a full name or a short one (pick, look, clean, ...)."""
    if name in TASK_TYPES:
        return name
    if name in ALIASES:
        return ALIASES[name]
    raise ValueError(f"unknown ALFWorld task type {name!r}; use one of "
                     f"{', '.join(ALIASES)} or {', '.join(TASK_TYPES)}")


def _alfworld():
    import alfworld
    import alfworld.gen.constants as constants
    import alfworld.gen.goal_library as goals

    return Path(alfworld.__file__).parent, constants, goals


def layouts_dir() -> Path:
    return _alfworld()[0] / "gen" / "layouts"


def floorplans() -> list[int]:
    """The scene numbers whose layout the wheel ships (1-30 kitchens, 201-230 living rooms,
    301-330 bedrooms, 401-430 bathrooms)."""
    return sorted(int(p.name[len("FloorPlan"):-len("-openable.json")])
                  for p in layouts_dir().glob("FloorPlan*-openable.json"))


def receptacle_class(receptacle_id: str) -> str:
    """``Sink|-01.90|+00.97|-01.50|SinkBasin`` is a SinkBasin; ``Cabinet|...`` a Cabinet."""
    parts = receptacle_id.split("|")
    return parts[-1] if len(parts) > 4 else parts[0]


class Scene:
    """One FloorPlan's receptacles (id -> class, pose) and the object classes it has."""

    def __init__(self, floorplan: int) -> None:
        _, constants, _ = _alfworld()
        base = layouts_dir() / f"FloorPlan{floorplan}"
        openable = Path(f"{base}-openable.json")
        if not openable.is_file():
            raise ValueError(f"no layout FloorPlan{floorplan} in the alfworld wheel; "
                             f"known: {floorplans()}")
        self.floorplan = floorplan
        self.constants = constants
        self.receptacles: dict[str, tuple[str, tuple[int, int, int, int]]] = {}
        for rid, pose in json.loads(openable.read_text()).items():
            cls = receptacle_class(rid)
            if cls in constants.VAL_RECEPTACLE_OBJECTS and cls not in constants.MOVABLE_RECEPTACLES_SET:
                x, z, rotation, horizon = pose
                self.receptacles[rid] = (cls, (round(x / STEP), round(z / STEP),
                                               round(rotation / 90) % 4, int(horizon)))
        present = set(json.loads(Path(f"{base}-objects.json").read_text()))
        self.receptacle_classes = sorted({cls for cls, _ in self.receptacles.values()})
        holders: dict[str, list[str]] = {}
        for rid, (cls, _) in self.receptacles.items():
            for obj in constants.VAL_RECEPTACLE_OBJECTS[cls]:
                holders.setdefault(obj, []).append(rid)
        # Pickupable classes the scene has and some receptacle of it may hold.
        self.object_classes = sorted(c for c in present
                                     if c in constants.OBJECTS and c in holders
                                     and c not in self.receptacle_classes)
        self.holders = {c: sorted(holders[c]) for c in self.object_classes}
        self.lamp_stands = sorted(rid for rid, (cls, _) in self.receptacles.items()
                                  if cls in LAMP_STANDS)
        self.lamps = [c for c in LAMPS if c in present] if self.lamp_stands else []

    def can_contain(self, rcls: str, ocls: str) -> bool:
        return ocls in self.constants.VAL_RECEPTACLE_OBJECTS.get(rcls, ())

    def task_targets(self, task: str) -> list[tuple[str, str, Optional[str]]]:
        """Every (object class, receptacle class, lamp class) the task type can use here."""
        short = TASK_TYPES[task_type(task)]
        out = []
        if short == "look":
            for obj in self.object_classes:
                out += [(obj, "", lamp) for lamp in self.lamps]
            return out
        need = APPLIANCE.get(short)
        if need and need[0] not in self.receptacle_classes:
            return []
        for obj in self.object_classes:
            if need and obj not in self.constants.VAL_ACTION_OBJECTS[need[1]]:
                continue
            for rcls in self.receptacle_classes:
                if not self.can_contain(rcls, obj) or (need and rcls == need[0]):
                    continue
                sources = [r for r in self.holders[obj]
                           if self.receptacles[r][0] not in (rcls, need[0] if need else None)]
                if sources:
                    out.append((obj, rcls, None))
        return out


def supports(floorplan: int, task: str) -> bool:
    return bool(Scene(floorplan).task_targets(task))


def _mangle(text: str) -> str:
    """ALFRED's ``fix_pddl_str_chars``: ids made PDDL names."""
    for old, new in (("-", "_minus_"), ("|", "_bar_"), ("+", "_plus_"), (".", "_dot_"),
                     (",", "_comma_")):
        text = text.replace(old, new)
    return text


def _loc(pose: tuple[int, int, int, int]) -> str:
    return _mangle("loc|%d|%d|%d|%d" % pose)


def _coord(value: float) -> str:
    return f"{value:+06.2f}" if value else "00.00"


def make_game(floorplan: Optional[int], task: str, seed: int) -> dict:
    """The ``game.tw-pddl`` data of one game, plus what the host needs to know of it.

    ``floorplan=None`` picks a scene that supports the task, from the seed.
    """
    root, constants, goals = _alfworld()
    full_task = task_type(task)
    short = TASK_TYPES[full_task]
    rng = random.Random(f"alfworld|{floorplan}|{full_task}|{seed}")
    if floorplan is None:
        candidates = [f for f in floorplans() if supports(f, full_task)]
        floorplan = rng.choice(candidates)
    scene = Scene(floorplan)
    targets = scene.task_targets(full_task)
    if not targets:
        raise ValueError(f"FloorPlan{floorplan} cannot host a {short} task (no receptacle or "
                         "object of the classes it needs)")
    target_obj, target_recep, lamp = rng.choice(targets)
    appliance = APPLIANCE.get(short, (None,))[0]

    used: set[str] = set()

    def new_id(cls: str, holder: str) -> str:
        # AI2-THOR ids are class|x|y|z; put the object near its holder's coordinates.
        parts = holder.split("|")[1:4]
        while True:
            coords = [float(p) + rng.uniform(-0.4, 0.4) for p in parts]
            oid = "|".join([cls] + [_coord(round(c, 2)) for c in coords])
            if oid not in used:
                used.add(oid)
                return oid

    placed: list[tuple[str, str, str]] = []  # (object id, class, receptacle id)
    for cls in scene.object_classes:
        if cls == target_obj:
            count = 2 if short == "pick_two" else rng.randint(1, 2)
            sources = [r for r in scene.holders[cls]
                       if scene.receptacles[r][0] not in (target_recep, appliance)]
        else:
            count = rng.randint(0, 2)
            sources = scene.holders[cls]
        for _ in range(count):
            holder = rng.choice(sources)
            placed.append((new_id(cls, holder), cls, holder))
    if lamp:
        for _ in range(rng.randint(1, 2) if lamp == "DeskLamp" else 1):
            stand = rng.choice(scene.lamp_stands)
            placed.append((new_id(lamp, stand), lamp, stand))

    template = rng.choice(goals.gdict[full_task]["templates"])
    task_text = template.format(obj=target_obj.lower(), recep=target_recep.lower(),
                                toggle=(lamp or "").lower(), mrecep="")
    goal = goals.gdict[full_task]["pddl"].format(obj=target_obj, recep=target_recep,
                                                 toggle=lamp or "", mrecep="")
    goal = goal.replace("#", "-")
    goal = goal[:goal.rstrip().rfind(")")]  # the template closes the problem's define too

    problem = _problem_text(scene, placed, rng, f"{floorplan}_{short}_{seed}", goal)
    grammar = (root / "data" / "alfred.twl2").read_text().replace("UNKNOWN GOAL", task_text)
    return {
        "pddl_domain": (root / "data" / "alfred.pddl").read_text(),
        "grammar": grammar,
        "pddl_problem": problem,
        "solvable": True,
        "walkthrough": None,
        "pddlkit": {"floorplan": floorplan, "task_type": full_task, "seed": seed,
                    "task": task_text, "object": target_obj, "receptacle": target_recep,
                    "lamp": lamp, "receptacles": len(scene.receptacles),
                    "objects": len(placed)},
    }


def _problem_text(scene: Scene, placed: list[tuple[str, str, str]], rng: random.Random,
                  name: str, goal: str) -> str:
    constants = scene.constants
    receptacle_types = sorted(set(constants.RECEPTACLES) - constants.MOVABLE_RECEPTACLES_SET)
    object_types = sorted(constants.OBJECTS_SET - set(receptacle_types))
    receptacles = sorted(scene.receptacles)
    poses = sorted({pose for _, pose in scene.receptacles.values()})
    # The agent starts off every receptacle's spot, looking level, as ALFRED's start poses do.
    xs = [p[0] for p in poses]
    zs = [p[1] for p in poses]
    start = (rng.randint(min(xs), max(xs)), rng.randint(min(zs), max(zs)), rng.randint(0, 3), 30)
    while start in poses:
        start = (start[0] + 1, start[1], start[2], start[3])
    m = _mangle
    objects = ["agent1 - agent"]
    objects += [f"{t}Type - otype" for t in object_types]
    objects += [f"{t}Type - rtype" for t in receptacle_types]
    objects += [f"{m(oid)} - object" for oid, _, _ in sorted(placed)]
    objects += [f"{m(rid)} - receptacle" for rid in receptacles]
    objects += [f"{_loc(p)} - location" for p in poses + [start]]

    init = [f"(atLocation agent1 {_loc(start)})"]
    for rid in receptacles:
        cls, pose = scene.receptacles[rid]
        init.append(f"(receptacleType {m(rid)} {cls}Type)")
        init.append(f"(receptacleAtLocation {m(rid)} {_loc(pose)})")
        if cls in constants.OPENABLE_CLASS_SET:
            init.append(f"(openable {m(rid)})")
    placed_classes = sorted({cls for _, cls, _ in placed})
    for rcls in scene.receptacle_classes:
        for ocls in placed_classes:
            if scene.can_contain(rcls, ocls):
                init.append(f"(canContain {rcls}Type {ocls}Type)")
    actions = constants.VAL_ACTION_OBJECTS
    for oid, cls, holder in sorted(placed):
        o = m(oid)
        init.append(f"(objectType {o} {cls}Type)")
        init.append(f"(inReceptacle {o} {m(holder)})")
        init.append(f"(objectAtLocation {o} {_loc(scene.receptacles[holder][1])})")
        if cls in LAMPS:
            init.append(f"(toggleable {o})")
            continue
        init.append(f"(pickupable {o})")
        if cls in constants.MOVABLE_RECEPTACLES_SET:
            init.append(f"(isReceptacleObject {o})")
        for flag, group in (("cleanable", "Cleanable"), ("heatable", "Heatable"),
                            ("coolable", "Coolable"), ("sliceable", "Sliceable")):
            if cls in actions[group]:
                init.append(f"({flag} {o})")
        if cls in actions["Coolable"] and scene.receptacles[holder][0] == "Fridge":
            init.append(f"(isCool {o})")

    lines = [f"(define (problem {name})", "(:domain alfred)", "(:objects"]
    lines += [f"    {o}" for o in objects]
    lines += [")", "(:init"]
    lines += [f"    {a}" for a in init]
    lines += [")", goal.strip(), ")", ""]
    return "\n".join(lines)
