"""GRASP (IPP's grid benchmark): collect energy on an 11x11 grid and bring it back to the start.

The rules are those of seed 001's GRASP prompt, scored as the authors' evaluators score
(``../shared/corpus/grasp/README.md``):

* the grid is 11x11, ``[row][col]`` with ``[0][0]`` top left; ``A`` the agent's start, ``E``
  one unit of energy, ``O`` an obstacle, ``' '`` empty;
* moves ``UP DOWN LEFT RIGHT``, and ``UPLEFT UPRIGHT DOWNLEFT DOWNRIGHT`` when diagonals are
  allowed; a move off the grid, into an obstacle, or diagonal where only 4 directions are
  allowed does nothing but still uses an action;
* ``TAKE`` takes one unit from the current cell if there is one and the carry limit (2, or
  unlimited, coded 100) allows; ``DROP`` drops everything carried on the current cell;
* every action costs ``cost_per_step`` (0 or 0.3), TAKE and DROP included; the list is cut
  to ``max_actions`` (20);
* net energy = the units lying in the start cell at the end minus the cost of the actions
  kept; energy still carried does not count.

:func:`simulate` also says, step by step, what happened (a blocked move, a TAKE on an empty
cell, the carry limit, a DROP away from the start, the budget running out), so feedback to an
LLM can name the symptom. The 2,000 published grids times 8 constraint settings are the
paper's 16,000 instances (:func:`load_corpus`, :func:`instances`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Iterable, Optional, Sequence

SIZE = 11
MAX_ACTIONS = 20
UNLIMITED = 100
DELTAS = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1),
          "UPLEFT": (-1, -1), "UPRIGHT": (-1, 1), "DOWNLEFT": (1, -1), "DOWNRIGHT": (1, 1)}
STRAIGHT = ("UP", "DOWN", "LEFT", "RIGHT")
DISTRIBUTIONS = ("random", "upDown", "leftRight", "cluster", "spiral")
#: the 8 constraint settings: (diagonals allowed, carry limit, cost per step)
SETTINGS = tuple(product((False, True), (UNLIMITED, 2), (0.0, 0.3)))


@dataclass(frozen=True)
class Grid:
    """One published (or generated) grid: cells as 1-character strings, and where it came from."""

    cells: tuple[tuple[str, ...], ...]
    start: tuple[int, int]
    distribution: str = "random"
    obstacles: str = "free"          # "block" or "free"
    start_position: str = "inner"    # "inner" or "outer"
    index: int = 0
    density: float = 0.0             # the file's energy_probability

    @property
    def energy(self) -> int:
        return sum(row.count("E") for row in self.cells)

    @property
    def obstacle_count(self) -> int:
        return sum(row.count("O") for row in self.cells)


@dataclass(frozen=True)
class Instance:
    """A grid under one constraint setting: what a program is asked to solve."""

    grid: Grid
    diagonals: bool
    carry_limit: int
    cost: float
    max_actions: int = MAX_ACTIONS

    def program_args(self) -> dict:
        """The keyword arguments of seed 001's interface: ``solve(grid, start_pos,
        carry_limit, cost_per_step, is_diagonals_allowed, max_actions)``."""
        return {"grid": [list(r) for r in self.grid.cells], "start_pos": list(self.grid.start),
                "carry_limit": self.carry_limit, "cost_per_step": self.cost,
                "is_diagonals_allowed": self.diagonals, "max_actions": self.max_actions}

    def describe(self) -> str:
        g = self.grid
        return (f"{g.start_position}/{g.distribution}/{g.obstacles} grid {g.index}, "
                f"{8 if self.diagonals else 4} directions, carry limit "
                f"{'unlimited' if self.carry_limit >= UNLIMITED else self.carry_limit}, cost "
                f"{self.cost:g} per action")


@dataclass(frozen=True)
class StepEvent:
    step: int                 # 1-based
    action: str
    what: str                 # moved, blocked-edge, blocked-obstacle, diagonal-not-allowed,
    #                           took, take-empty, take-carry-limit, dropped, dropped-away,
    #                           drop-nothing, unknown-action
    position: tuple[int, int]
    carried: int


@dataclass
class Outcome:
    score: float
    delivered: int
    actions_used: int
    cut: int                               # actions beyond max_actions, ignored
    events: list[StepEvent] = field(default_factory=list)

    def account(self, limit: int = 12) -> str:
        """What went wrong, in words an LLM can act on (the problems, not every step)."""
        notes = [f"step {e.step} {e.action}: {_WORDS[e.what]}" for e in self.events
                 if e.what not in ("moved", "took", "dropped")]
        lines = [f"net energy {self.score:g}: {self.delivered} unit(s) in the start cell after "
                 f"{self.actions_used} action(s)"]
        if self.cut:
            lines.append(f"{self.cut} action(s) beyond the limit of {MAX_ACTIONS} were ignored")
        lines += notes[:limit]
        if len(notes) > limit:
            lines.append(f"... and {len(notes) - limit} more wasted action(s)")
        return "\n".join(lines)


_WORDS = {
    "blocked-edge": "moves off the grid; nothing happened (the action was still used)",
    "blocked-obstacle": "moves into an obstacle; nothing happened (the action was still used)",
    "diagonal-not-allowed": "is diagonal, but only 4 directions are allowed here; nothing "
                            "happened",
    "take-empty": "TAKE on a cell with no energy; nothing happened",
    "take-carry-limit": "TAKE with the carry limit reached; nothing happened",
    "dropped-away": "DROP away from the start cell: that energy does not count",
    "drop-nothing": "DROP while carrying nothing",
    "unknown-action": "is not an action (UP, DOWN, LEFT, RIGHT, the diagonals, TAKE, DROP)",
}


def simulate(instance: Instance, actions: Sequence) -> Outcome:
    """Run ``actions`` on ``instance`` with the rules above."""
    cells = [list(r) for r in instance.grid.cells]
    stock = [[1 if c == "E" else 0 for c in row] for row in cells]
    r, c = instance.grid.start
    start = (r, c)
    carried = 0
    events: list[StepEvent] = []
    kept = list(actions)[:instance.max_actions]
    for i, raw in enumerate(kept, start=1):
        action = str(raw).strip().upper()
        what = "moved"
        if action in DELTAS:
            if action not in STRAIGHT and not instance.diagonals:
                what = "diagonal-not-allowed"
            else:
                dr, dc = DELTAS[action]
                nr, nc = r + dr, c + dc
                if not (0 <= nr < SIZE and 0 <= nc < SIZE):
                    what = "blocked-edge"
                elif cells[nr][nc] == "O":
                    what = "blocked-obstacle"
                else:
                    r, c = nr, nc
        elif action == "TAKE":
            if stock[r][c] <= 0:
                what = "take-empty"
            elif carried >= instance.carry_limit:
                what = "take-carry-limit"
            else:
                stock[r][c] -= 1
                carried += 1
                what = "took"
        elif action == "DROP":
            what = "drop-nothing" if carried == 0 else ("dropped" if (r, c) == start
                                                       else "dropped-away")
            stock[r][c] += carried
            carried = 0
        else:
            what = "unknown-action"
        events.append(StepEvent(i, action, what, (r, c), carried))
    delivered = stock[start[0]][start[1]]
    score = round(delivered - instance.cost * len(kept), 10)
    return Outcome(score, delivered, len(kept), max(0, len(actions) - len(kept)), events)


# --------------------------------------------------------------------------- the corpus


def parse_ascii(drawing: str) -> tuple[tuple[str, ...], ...]:
    """The published ASCII drawing (``+---+`` rows, a column header) as 11 rows of cells."""
    rows = []
    for line in drawing.splitlines():
        if "|" not in line:
            continue
        parts = line.split("|")[1:-1]
        rows.append(tuple(p.strip() or " " for p in parts))
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise ValueError(f"a GRASP grid has {SIZE}x{SIZE} cells; this drawing has "
                         f"{len(rows)} rows")
    return tuple(rows)


def load_corpus(folder: Path) -> list[Grid]:
    """The 2,000 published grids (20 files of 100) from ``folder`` (``.../grasp/grids``)."""
    folder = Path(folder)
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no GRASP grid files (*.jsonl) in {folder}")
    grids = []
    for path in files:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            cells = parse_ascii(row["grid"])
            grids.append(Grid(cells, tuple(row["start"]), row["energy"], row["obstacle"],
                              row["start_position"], int(row["index"]),
                              float(row["energy_probability"])))
    return grids


# --------------------------------------------------------------------------- our generator

#: obstacle probability per cell of a "block" grid (the published mean is 12.3 of 121 cells)
OBSTACLE_P = 0.102
START_POSITIONS = ("inner", "outer")
OBSTACLES = ("block", "free")


def _spiral_cells() -> list[tuple[int, int]]:
    """A square spiral drawn from the centre outwards, every other ring (our own template:
    the published generator is not available; the count and spread match its spiral files)."""
    cells, r, c = [], 5, 5
    length, d = 1, 0
    steps = ((0, 1), (1, 0), (0, -1), (-1, 0))
    while len(cells) < 60:
        for _ in range(2):
            for _ in range(length):
                if 0 <= r < SIZE and 0 <= c < SIZE and (r, c) not in cells:
                    cells.append((r, c))
                r, c = r + steps[d][0], c + steps[d][1]
            d = (d + 1) % 4
        length += 2
    return cells


_SPIRAL = _spiral_cells()


def generate(distribution: str, obstacles: str, start_position: str,
             rng: random.Random, index: int = 0) -> Grid:
    """One grid drawn the way the published ones were (reverse-engineered densities:
    ``../shared/specs/ipp.md`` section 1.2): energy first, obstacles over it, the start last."""
    if distribution not in DISTRIBUTIONS or obstacles not in OBSTACLES or \
            start_position not in START_POSITIONS:
        raise ValueError(f"unknown factor: {distribution}/{obstacles}/{start_position}; use "
                         f"{DISTRIBUTIONS}, {OBSTACLES}, {START_POSITIONS}")
    cells = [[" "] * SIZE for _ in range(SIZE)]
    density = -1.0
    if distribution in ("random", "upDown", "leftRight"):
        density = rng.uniform(0.3, 0.7)
        for r in range(SIZE):
            for c in range(SIZE):
                p = density
                if distribution == "upDown" and c >= 6:   # the files' names are swapped:
                    p = 1 - density                        # upDown splits left and right
                if distribution == "leftRight" and r >= 6:
                    p = 1 - density
                if rng.random() < p:
                    cells[r][c] = "E"
    elif distribution == "cluster":
        density = float(rng.choice((3, 4, 5)))
        for _ in range(int(density)):
            top, left = rng.randrange(SIZE - 2), rng.randrange(SIZE - 2)
            for r in range(top, top + 3):
                for c in range(left, left + 3):
                    cells[r][c] = "E"
    else:  # spiral: 36-43 cells of the template, and up to two beside it
        for r, c in rng.sample(_SPIRAL, rng.randint(36, 43)):
            cells[r][c] = "E"
        for _ in range(rng.randrange(0, 3)):
            cells[rng.randrange(SIZE)][rng.randrange(SIZE)] = "E"
    if obstacles == "block":
        for r in range(SIZE):
            for c in range(SIZE):
                if rng.random() < OBSTACLE_P:
                    cells[r][c] = "O"
    inner = [(r, c) for r in range(3, 8) for c in range(3, 8)]
    choices = inner if start_position == "inner" else [
        (r, c) for r in range(SIZE) for c in range(SIZE) if (r, c) not in set(inner)]
    start = rng.choice(choices)
    cells[start[0]][start[1]] = "A"
    return Grid(tuple(tuple(r) for r in cells), start, distribution, obstacles,
                start_position, index, density)


def generate_corpus(seed: int = 0, per_file: int = 100) -> list[Grid]:
    """Our own 2,000 grids over the same factors as the published set (20 files of 100), so
    users without the corpus get the same benchmark; seeded, so everyone gets the same one."""
    rng = random.Random(seed)
    return [generate(d, o, s, rng, i) for s in START_POSITIONS for d in DISTRIBUTIONS
            for o in OBSTACLES for i in range(per_file)]


def instances(grids: Iterable[Grid], settings=SETTINGS) -> list[Instance]:
    """Every grid under every constraint setting (2,000 x 8 = the paper's 16,000)."""
    return [Instance(g, d, carry, cost) for g in grids for d, carry, cost in settings]


def split(items: Sequence, eval_fraction: float = 0.5, seed: int = 0) -> tuple[list, list]:
    """A seeded train/eval split (the paper has none: it refines on what it reports)."""
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    cut = int(round(len(items) * (1 - eval_fraction)))
    return [items[i] for i in sorted(order[:cut])], [items[i] for i in sorted(order[cut:])]


# --------------------------------------------------------------------------- baselines

#: the paper's greedy baseline (seed 001's example greedy pseudocode, which "doesn't include
#: considerations for cost_per_step and carry_limit"): BFS to the nearest energy, TAKE, and
#: home by retracing the path when 2 * len(path) + steps_back + 2 > remaining actions; DROP.
GREEDY_PROGRAM = '''
from collections import deque

MOVES = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1),
         "UPLEFT": (-1, -1), "UPRIGHT": (-1, 1), "DOWNLEFT": (1, -1), "DOWNRIGHT": (1, 1)}
BACK = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT", "UPLEFT": "DOWNRIGHT",
        "DOWNRIGHT": "UPLEFT", "UPRIGHT": "DOWNLEFT", "DOWNLEFT": "UPRIGHT"}


def solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, max_actions):
    names = list(MOVES) if is_diagonals_allowed else list(MOVES)[:4]
    n = len(grid)
    here = tuple(start_pos)
    energy = {(r, c) for r in range(n) for c in range(n) if grid[r][c] == "E"}
    actions, trail = [], []
    while energy:
        seen, queue, found = {here: None}, deque([here]), None
        while queue:
            cell = queue.popleft()
            if cell in energy:
                found = cell
                break
            for m in names:
                nxt = (cell[0] + MOVES[m][0], cell[1] + MOVES[m][1])
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and grid[nxt[0]][nxt[1]] != "O" \\
                        and nxt not in seen:
                    seen[nxt] = (cell, m)
                    queue.append(nxt)
        if found is None:
            break
        path, cell = [], found
        while seen[cell] is not None:
            cell, m = seen[cell]
            path.append(m)
        path.reverse()
        remaining = max_actions - len(actions)
        if 2 * len(path) + len(trail) + 2 > remaining:
            break
        actions += path + ["TAKE"]
        trail += path
        energy.discard(found)
        here = found
    actions += [BACK[m] for m in reversed(trail)] + ["DROP"]
    return actions[:max_actions]
'''

#: the paper's random baseline: 6 x (a random move, TAKE), the 6 moves retraced in reverse,
#: DROP (19 actions); seeded by the grid, so scores are deterministic.
RANDOM_PROGRAM = '''
import random

BACK = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT", "UPLEFT": "DOWNRIGHT",
        "DOWNRIGHT": "UPLEFT", "UPRIGHT": "DOWNLEFT", "DOWNLEFT": "UPRIGHT"}


def solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, max_actions):
    rng = random.Random(str(grid) + str(start_pos) + str(is_diagonals_allowed))
    moves = ["UP", "DOWN", "LEFT", "RIGHT"] + (
        ["UPLEFT", "UPRIGHT", "DOWNLEFT", "DOWNRIGHT"] if is_diagonals_allowed else [])
    out, trail = [], []
    for _ in range(6):
        m = rng.choice(moves)
        out += [m, "TAKE"]
        trail.append(m)
    return (out + [BACK[m] for m in reversed(trail)] + ["DROP"])[:max_actions]
'''


def best_search(instance: Instance, beam: int = 3000) -> list[str]:
    """A near-optimal action list by beam search over whole states (position, what is
    carried, which cells were emptied, what lies at the start), keeping the ``beam`` best by
    score-so-far plus what is carried: exact (optimal) whenever the beam never overflows, and
    the strong reference the programs are measured against. Our own code, run in-process."""
    cells = instance.grid.cells
    start = instance.grid.start
    names = list(DELTAS) if instance.diagonals else list(STRAIGHT)
    energy0 = frozenset((r, c) for r in range(SIZE) for c in range(SIZE) if cells[r][c] == "E")
    # state: (pos, carried, taken cells, delivered) -> actions
    frontier = {(start, 0, frozenset(), 0): []}
    best, best_value = [], 0.0
    for t in range(1, instance.max_actions + 1):
        nxt: dict = {}
        for (pos, carried, taken, delivered), acts in frontier.items():
            options = []
            for m in names:
                r, c = pos[0] + DELTAS[m][0], pos[1] + DELTAS[m][1]
                if 0 <= r < SIZE and 0 <= c < SIZE and cells[r][c] != "O":
                    options.append((m, ((r, c), carried, taken, delivered)))
            if pos in energy0 and pos not in taken and carried < instance.carry_limit:
                options.append(("TAKE", (pos, carried + 1, taken | {pos}, delivered)))
            if carried and pos == start:
                options.append(("DROP", (pos, 0, taken, delivered + carried)))
            for action, state in options:
                if state not in nxt:
                    nxt[state] = acts + [action]
        ranked = sorted(nxt.items(), key=lambda kv: -(kv[0][3] * 2 + kv[0][1]
                                                      - 0.01 * _distance(kv[0][0], start)))
        frontier = dict(ranked[:beam])
        for (pos, carried, taken, delivered), acts in frontier.items():
            value = delivered - instance.cost * t
            if value > best_value:
                best, best_value = acts, value
    return best


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def run_in_process(program: str, instance_list: Sequence[Instance]) -> list[list]:
    """Our own baseline programs, called in this process (a reference for the sandbox's
    overhead; generated programs go through :mod:`pddlkit.sandbox` only)."""
    namespace: dict = {}
    exec(compile(program, "<baseline>", "exec"), namespace)  # trusted: text defined above
    solve = namespace["solve"]
    return [solve(**inst.program_args()) for inst in instance_list]


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def corpus_folder(start: Optional[Path] = None) -> Path:
    """``../shared/corpus/grasp/grids`` beside a developer's checkout."""
    here = Path(start or __file__).resolve()
    for parent in here.parents:
        candidate = parent.parent / "shared" / "corpus" / "grasp" / "grids"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the GRASP corpus (../shared/corpus/grasp/grids) is not beside "
                            "this checkout")
