"""MiniGrid's Unlock, DoorKey and UnlockPickup through the real Farama ``minigrid`` package,
as IPP (seed 001) poses them to programs, and as PDDL problems for Fast Downward.

* Instances: ``reset(seed=s)``, 1,000 per task (seeds 0-999) and a held-out range
  (1000-1999) that refinement never sees.
* What a program gets (seed 001's MiniGrid prompt): ``solve(grid, start_direction)``, the grid a
  list of rows of ``"WALL"``, ``"DOOR"``, ``"KEY"``, ``"BOX"``, ``"GOAL"``, ``"AGENT"``, ``""``
  (colours and door state dropped), ``start_direction`` one of ``"UP"``, ``"DOWN"``,
  ``"LEFT"``, ``"RIGHT"``.
* Actions: ``LEFT``/``RIGHT`` (90-degree turns), ``MOVE``, ``PICKUP``, ``DROP``, ``UNLOCK``,
  mapped to MiniGrid's left, right, forward, pickup, drop and toggle. Reward and completion
  are MiniGrid's own (``1 - 0.9 * steps / max_steps`` on success).
* Scoring: by default the run stops at the first success (an action after the goal cannot
  undo it). ``authors=True`` keeps the authors' rule: the whole list runs, and the recorded
  reward is the last step's (one action after the goal scores 0).
* The symbolic side: :func:`problem_model` builds the same grid as a problem of
  ``domains/minigrid/domain.pddl``, so Fast Downward gives a planner baseline and an upper
  bound per instance, and a program's action list can be checked step by step with pddlkit's
  semantics (:func:`validate_actions`: the failing step and the false precondition).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Sequence

TASKS = {"unlock": "MiniGrid-Unlock-v0", "doorkey": "MiniGrid-DoorKey-8x8-v0",
         "unlockpickup": "MiniGrid-UnlockPickup-v0"}
TRAIN_SEEDS = range(0, 1000)
HELD_OUT_SEEDS = range(1000, 2000)
ACTIONS = {"LEFT": 0, "RIGHT": 1, "MOVE": 2, "PICKUP": 3, "DROP": 4, "UNLOCK": 5}
DIRECTIONS = ("RIGHT", "DOWN", "LEFT", "UP")  # MiniGrid's agent_dir 0..3
STEP = {"RIGHT": (1, 0), "DOWN": (0, 1), "LEFT": (-1, 0), "UP": (0, -1)}
NAMES = {"wall": "WALL", "door": "DOOR", "key": "KEY", "box": "BOX", "goal": "GOAL",
         "ball": "BALL"}
PLAN_ACTIONS = {"turn-left": "LEFT", "turn-right": "RIGHT", "forward": "MOVE",
                "pickup": "PICKUP", "drop": "DROP", "unlock": "UNLOCK"}


class MiniGridUnavailable(ImportError):
    """The ``minigrid`` package is missing; the message says how to install it."""


def _gym():
    try:
        import gymnasium
        import minigrid  # noqa: F401 - registers the MiniGrid environments
    except ImportError as exc:
        raise MiniGridUnavailable(f"MiniGrid tasks need the minigrid package: pip install "
                                  f"'pddlkit[minigrid]' (`make test` installs it): {exc}") from None
    return gymnasium


def _env_id(task: str) -> str:
    if task not in TASKS:
        raise ValueError(f"unknown MiniGrid task {task!r}; use one of {', '.join(TASKS)}")
    return TASKS[task]


@dataclass
class Observed:
    """One instance as a program sees it."""

    task: str
    seed: int
    grid: list[list[str]]
    start_direction: str
    max_steps: int

    def program_args(self) -> dict:
        return {"grid": [list(r) for r in self.grid], "start_direction": self.start_direction}


@dataclass
class Run:
    reward: float
    success: bool
    steps: int
    events: list[str] = field(default_factory=list)

    def account(self, limit: int = 8) -> str:
        head = (f"{'completed' if self.success else 'not completed'} after {self.steps} "
                f"step(s), reward {self.reward:.3f}")
        return "\n".join([head, *self.events[:limit]])


@lru_cache(maxsize=8)
def _make(task: str):
    return _gym().make(_env_id(task))


def observe(task: str, seed: int) -> Observed:
    env = _make(task)
    env.reset(seed=seed)
    u = env.unwrapped
    ax, ay = (int(v) for v in u.agent_pos)
    grid = []
    for y in range(u.height):
        row = []
        for x in range(u.width):
            obj = u.grid.get(x, y)
            row.append("AGENT" if (x, y) == (ax, ay) else NAMES.get(obj.type, "") if obj else "")
        grid.append(row)
    return Observed(task, seed, grid, DIRECTIONS[int(u.agent_dir)], int(u.max_steps))


def run(task: str, seed: int, actions: Sequence, authors: bool = False) -> Run:
    """Execute ``actions`` in the real environment; see the module docstring for scoring."""
    env = _make(task)
    env.reset(seed=seed)
    reward, success, steps, events = 0.0, False, 0, []
    for i, raw in enumerate(actions, start=1):
        name = str(raw).strip().upper()
        if name not in ACTIONS:
            events.append(f"step {i} {raw!r}: not an action (LEFT, RIGHT, MOVE, PICKUP, DROP, "
                          "UNLOCK); skipped")
            continue
        before = _state(env)
        _, r, terminated, truncated, _ = env.step(ACTIONS[name])
        steps += 1
        if authors:
            reward, success = float(r), bool(terminated)
        elif terminated and r > 0:
            return Run(float(r), True, steps, events)
        if not authors and _state(env) == before and name != "LEFT" and name != "RIGHT":
            events.append(f"step {i} {name}: nothing happened")
        if truncated:
            events.append(f"step {i}: the episode's step limit was reached")
            break
    return Run(reward, success, steps, events)


def _state(env) -> tuple:
    u = env.unwrapped
    door = next((o.is_open for o in u.grid.grid if o is not None and o.type == "door"), None)
    return (tuple(int(v) for v in u.agent_pos), int(u.agent_dir),
            getattr(u.carrying, "type", None), door)


# --------------------------------------------------------------------------- PDDL


def problem_model(observed: Observed):
    """The PDDL problem of ``observed`` over ``domains/minigrid/domain.pddl``, as a
    :class:`~pddlkit.pddl.model.Problem` (built with :mod:`pddlkit.pddl.build`)."""
    from pddlkit.pddl.build import problem, typed

    rows, cols = len(observed.grid), len(observed.grid[0])
    cells, init, things = [], ["(handempty)"], []
    name = lambda x, y: f"c{x}_{y}"  # noqa: E731
    goal = None
    door = None
    for y in range(rows):
        for x in range(cols):
            kind = observed.grid[y][x]
            if kind == "WALL":
                continue
            cells.append(name(x, y))
            if kind in ("", "AGENT"):
                init += [f"(passable {name(x, y)})", f"(empty {name(x, y)})"]
            if kind == "AGENT":
                init.append(f"(at {name(x, y)})")
            if kind == "GOAL":
                init.append(f"(passable {name(x, y)})")
                goal = name(x, y)
            if kind == "DOOR":
                door = name(x, y)
                init += [f"(door-at door1 {door})", "(locked door1)"]
            if kind in ("KEY", "BOX", "BALL"):
                thing = f"{kind.lower()}{len(things) + 1}"
                things.append((thing, "box" if kind != "KEY" else "key"))
                init.append(f"(thing-at {thing} {name(x, y)})")
    present = set(cells)
    for y in range(rows):
        for x in range(cols):
            if name(x, y) not in present:
                continue
            for d, (dx, dy) in STEP.items():
                other = name(x + dx, y + dy)
                if other in present:
                    init.append(f"(adj {name(x, y)} {other} {d.lower()})")
    for i, d in enumerate(DIRECTIONS):  # turning left goes RIGHT -> UP -> LEFT -> DOWN
        init.append(f"(left-of {d.lower()} {DIRECTIONS[(i - 1) % 4].lower()})")
    init.append(f"(facing {observed.start_direction.lower()})")
    box = next((t for t, kind in things if kind == "box"), None)
    target = {"unlock": "(open door1)", "doorkey": f"(at {goal})",
              "unlockpickup": f"(holding {box})"}[observed.task]
    objects = typed(f"{' '.join(cells)} - cell", "right down left up - dir",
                    *(f"{t} - {kind}" for t, kind in things),
                    *(["door1 - door"] if door else []))
    return problem(f"minigrid-{observed.task}-{observed.seed}", "minigrid", objects=objects,
                   init=init, goal=[target])


def problem_for(observed: Observed) -> str:
    """:func:`problem_model` as PDDL text."""
    from pddlkit.pddl.writer import write_problem

    return write_problem(problem_model(observed))


def domain_text() -> str:
    from pddlkit.domains import path

    return path("minigrid/domain.pddl").read_text()


def plan_actions(plan) -> list[str]:
    """A Fast Downward plan as program actions."""
    steps = getattr(plan, "steps", plan)
    return [PLAN_ACTIONS[s.name if hasattr(s, "name") else str(s).strip("()").split()[0]]
            for s in steps]


def planner_baseline(task: str, seed: int, alias: str = "lama-first",
                     timeout: float = 30.0) -> tuple[Optional[list[str]], Run]:
    """Fast Downward on the instance's PDDL, its plan executed in the real environment."""
    import pddlkit

    observed = observe(task, seed)
    result = pddlkit.plan(domain_text(), problem_for(observed), alias=alias, timeout=timeout)
    if not result.solved:
        return None, Run(0.0, False, 0, [f"no plan: {result.status.value}"])
    actions = plan_actions(result.plan)
    return actions, run(task, seed, actions)


def model(observed: Observed):
    """(domain, problem, World) of the PDDL model of ``observed``."""
    from pddlkit.pddl.reader import parse_domain
    from pddlkit.semantics.world import World

    domain = parse_domain(domain_text())
    problem = problem_model(observed)
    return domain, problem, World(domain, problem)


#: each program action's PDDL schemas (turns, moves and the rest are one schema each)
SCHEMAS = {program: tuple(s for s, p in PLAN_ACTIONS.items() if p == program)
           for program in set(PLAN_ACTIONS.values())}


def model_step(world, state, name: str):
    """The ground action a program action performs in the model's ``state``
    (:func:`pddlkit.semantics.simulate.first_applicable`), or None when none applies."""
    from pddlkit.semantics.simulate import first_applicable

    return first_applicable(world, state, SCHEMAS.get(str(name).strip().upper(), ()))


def validate_actions(observed: Observed, actions: Sequence[str]) -> str:
    """Check a program's actions on the PDDL model: '' if they reach the goal, else the first
    failing step and its false precondition, or the goal atoms left unmet. Turns and moves
    into walls or closed doors fail here (in MiniGrid they silently do nothing)."""
    import pddlkit

    domain, problem, world = model(observed)
    state = world.initial_state
    plan = []
    for i, name in enumerate(actions, start=1):
        found = model_step(world, state, name)
        if found is None:
            return (f"step {i} {name}: not possible here (in the model no "
                    f"{name} action is applicable: a wall, a closed door, nothing to pick up, "
                    "or the hands are full)")
        plan.append(f"({found.name} {' '.join(found.args)})")
        state = found.apply(state, world)
    check = pddlkit.validate_plan(domain, problem, plan)
    return "" if check.valid else check.explain()
