"""The offline program writer: an honest stand-in for the LLM in IPP, as ``noisy`` is for PDDL.

It answers IPP's prompts as a model would: pseudocode for turn 1, then a Python program for
turn 2, then a new program for each refinement prompt. The programs are real strategies (GRASP:
breadth-first search to the nearest energy, mindful of the carry limit, the cost and the
budget; MiniGrid: search to the key, the door, then the goal or the box), into which it
injects the mistakes LLMs make on these tasks:

* both: ``syntax`` (a missing colon), ``action-names`` (NORTH for UP, FORWARD for MOVE),
  ``infinite-loop`` (a search that never gives up), ``crash`` (an assumption that fails);
* GRASP: ``carry`` (ignores the carry limit), ``cost`` (ignores the cost per action),
  ``no-return`` (drops where it stands), ``off-grid`` (no bounds check), ``obstacles``
  (walks through ``O``);
* MiniGrid: ``turns`` (LEFT and RIGHT swapped), ``no-drop`` (Unlock-Pickup: picks up the box
  while holding the key), ``goal-step`` (Door-Key: stops in front of the goal).

A mistake is repaired only when the refinement prompt shows its symptom (the error kind of a
program that failed, or the simulator's account: "is not an action", "carry limit reached",
"DROP away from the start", ...), never on a keyword alone, so with ``feedback="bare"`` (the
paper's grids-only template) nothing is repaired. ``relapse_round=n`` makes the n-th
refinement introduce a new mistake while fixing the old ones, as models sometimes do: the
loop must then return the best program seen, not the last.

Use it as an LLM: ``ProgramWriter("grasp", seed=0).llm()`` (a ScriptedLLM), or pass
``standin:ipp[:MISTAKES]`` as the ``--llm`` of ``pddlkit run ipp``.
"""

from __future__ import annotations

import random
import re
from typing import Optional, Sequence

from pddlkit.agents.standins import StandIn, names

GRASP_MISTAKES = ("syntax", "action-names", "carry", "cost", "no-return", "off-grid",
                  "obstacles", "infinite-loop", "crash")
MINIGRID_MISTAKES = ("syntax", "action-names", "turns", "no-drop", "goal-step",
                     "infinite-loop", "crash")

#: words only the curriculum's first prompt has (its simplified game has no obstacles)
CURRICULUM_MARK = "'E' (one energy token) or ' ' (empty)"
#: mistakes that make every run fail (a program that does not load, crashes or hangs): one
#: of them hides every other symptom until it is repaired
BLOCKING = ("syntax", "crash", "infinite-loop")

#: the symptom each mistake shows in the refinement prompt (regular expressions, all must
#: match, case-insensitive)
SYMPTOMS = {
    "syntax": (r"syntax at line",),
    "action-names": (r"is not an action|not an action",),
    "carry": (r"carry limit reached",),
    "cost": (r"cost 0\.3 per action", r"net energy -"),
    "no-return": (r"DROP away from the start",),
    "off-grid": (r"off the grid|IndexError",),
    "obstacles": (r"into an obstacle",),
    "infinite-loop": (r"timeout",),
    "crash": (r"crash at line",),
    "turns": (r"MOVE: (nothing happened|not possible)",),
    "no-drop": (r"PICKUP: (nothing happened|not possible)",),
    "goal-step": (r"not completed", r"\(at c\d+_\d+\)"),
}


def grasp_program(mistakes: frozenset, curriculum_step: Optional[int] = None) -> str:
    bounds = "" if "off-grid" in mistakes else "0 <= nxt[0] < n and 0 <= nxt[1] < n and "
    wall = "" if "obstacles" in mistakes else 'grid[nxt[0]][nxt[1]] != "O" and '
    give_up = "continue" if "infinite-loop" in mistakes else "break"
    carry = "False" if "carry" in mistakes else "carried >= carry_limit"
    better = "True" if "cost" in mistakes else "value > best_value"
    close = 'actions + ["DROP"]' if "no-return" in mistakes else 'actions + back + ["DROP"]'
    names = ('{"UP": "NORTH", "DOWN": "SOUTH", "LEFT": "WEST", "RIGHT": "EAST"}'
             if "action-names" in mistakes else "{}")
    start = "start = (start_pos[0], start_pos[1], start_pos[2])" if "crash" in mistakes \
        else "start = tuple(start_pos)"
    colon = "" if "syntax" in mistakes else ":"
    signature = ("def solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, "
                 "max_actions)")
    if curriculum_step is not None:  # the curriculum's signatures, one parameter a step
        extra = ["is_diagonals_allowed=False", "carry_limit=100", "cost_per_step=0.0"]
        signature = ("def solve(grid, start_position, max_actions"
                     + "".join(", " + e.split("=")[0] if i < curriculum_step else ", " + e
                               for i, e in enumerate(extra)) + ")")
        start = start.replace("start_pos", "start_position")
    return f'''from collections import deque

STRAIGHT = {{"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}}
DIAGONAL = {{"UPLEFT": (-1, -1), "UPRIGHT": (-1, 1), "DOWNLEFT": (1, -1), "DOWNRIGHT": (1, 1)}}
NAMES = {names}


def _path(grid, start, goals, moves):
    """The shortest list of moves from start to the nearest cell in goals, or None."""
    n = len(grid)
    seen = {{start: None}}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell in goals:
            out = []
            while seen[cell] is not None:
                cell, move = seen[cell]
                out.append(move)
            return out[::-1]
        for name, (dr, dc) in moves.items():
            nxt = (cell[0] + dr, cell[1] + dc)
            if {bounds}{wall}nxt not in seen:
                seen[nxt] = (cell, name)
                queue.append(nxt)
    return None


def _walk(cell, path, moves):
    for m in path:
        cell = (cell[0] + moves[m][0], cell[1] + moves[m][1])
    return cell


{signature}{colon}
    # Greedy trips to the nearest energy; after each TAKE, the plan "go home and DROP now" is
    # valued (tokens home minus the cost of every action) and the best such plan is kept.
    moves = dict(STRAIGHT, **(DIAGONAL if is_diagonals_allowed else {{}}))
    {start}
    energy = {{(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == "E"}}
    here, carried, delivered, actions = start, 0, 0, []
    best, best_value = [], 0.0
    while energy:
        to_energy = _path(grid, here, energy, moves)
        if to_energy is None:
            {give_up}
        cell = _walk(here, to_energy, moves)
        back = _path(grid, cell, {{start}}, moves)
        if back is None:
            energy.discard(cell)
            continue
        if len(actions) + len(to_energy) + 1 + len(back) + 1 > max_actions:
            break
        actions = actions + to_energy + ["TAKE"]
        energy.discard(cell)
        here, carried = cell, carried + 1
        close = {close}
        value = delivered + carried - cost_per_step * len(close)
        if {better}:
            best, best_value = close, value
        if {carry}:
            actions, here, delivered, carried = close, start, delivered + carried, 0
    return [NAMES.get(a, a) for a in best[:max_actions]]
'''


def minigrid_program(mistakes: frozenset) -> str:
    colon = "" if "syntax" in mistakes else ":"
    forward = '"FORWARD"' if "action-names" in mistakes else '"MOVE"'
    left, right = ('"RIGHT"', '"LEFT"') if "turns" in mistakes else ('"LEFT"', '"RIGHT"')
    visited = "" if "infinite-loop" in mistakes else "and nxt not in seen "
    drop = "" if "no-drop" in mistakes else '''        free = [d for d in DIRS if _kind(grid, _ahead(pos, d)) == ""]
        facing = _turn_to(facing, free[0], actions)
        actions.append("DROP")
        spot = _ahead(pos, facing)
        grid[spot[1]][spot[0]] = "KEY"
'''
    onto_goal = "" if "goal-step" in mistakes else '''        actions.append(MOVE)
'''
    key_name = '"Key"' if "crash" in mistakes else '"KEY"'
    return f'''from collections import deque

DIRS = ["RIGHT", "DOWN", "LEFT", "UP"]
STEP = {{"RIGHT": (1, 0), "DOWN": (0, 1), "LEFT": (-1, 0), "UP": (0, -1)}}
MOVE = {forward}
PASSABLE = ("", "AGENT", "GOAL", "OPEN")


def _find(grid, kind):
    return next((x, y) for y, row in enumerate(grid) for x, v in enumerate(row) if v == kind)


def _kind(grid, cell):
    x, y = cell
    if 0 <= y < len(grid) and 0 <= x < len(grid[0]):
        return grid[y][x]
    return "WALL"


def _ahead(pos, facing):
    return (pos[0] + STEP[facing][0], pos[1] + STEP[facing][1])


def _turn_to(facing, want, actions):
    i, j = DIRS.index(facing), DIRS.index(want)
    if (j - i) % 4 == 1:
        actions.append({right})
    elif (j - i) % 4 == 3:
        actions.append({left})
    elif (j - i) % 4 == 2:
        actions += [{right}, {right}]
    return want


def _route(grid, start, goal_cells):
    seen = {{start: None}}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell in goal_cells:
            steps = []
            while seen[cell] is not None:
                cell, d = seen[cell]
                steps.append(d)
            return steps[::-1], cell
        for d in DIRS:
            nxt = _ahead(cell, d)
            if _kind(grid, nxt) in PASSABLE {visited}:
                seen[nxt] = (cell, d)
                queue.append(nxt)
    return None


def _go_next_to(grid, pos, facing, target, actions):
    stands = {{_ahead(target, d) for d in DIRS if _kind(grid, _ahead(target, d)) in PASSABLE}}
    route = _route(grid, pos, stands)
    if route is None:
        return pos, facing
    for d in route[0]:
        facing = _turn_to(facing, d, actions)
        actions.append(MOVE)
        pos = _ahead(pos, d)
    want = next(d for d in DIRS if _ahead(pos, d) == target)
    return pos, _turn_to(facing, want, actions)


def solve(grid, start_direction){colon}
    grid = [list(row) for row in grid]
    pos, facing, actions = _find(grid, "AGENT"), start_direction, []
    key, door = _find(grid, {key_name}), _find(grid, "DOOR")
    pos, facing = _go_next_to(grid, pos, facing, key, actions)
    actions.append("PICKUP")
    grid[key[1]][key[0]] = ""
    pos, facing = _go_next_to(grid, pos, facing, door, actions)
    actions.append("UNLOCK")
    grid[door[1]][door[0]] = "OPEN"
    if any("GOAL" in row for row in grid):
        goal = _find(grid, "GOAL")
        pos, facing = _go_next_to(grid, pos, facing, goal, actions)
{onto_goal}    elif any("BOX" in row for row in grid):
{drop}        box = _find(grid, "BOX")
        pos, facing = _go_next_to(grid, pos, facing, box, actions)
        actions.append("PICKUP")
    return actions
'''


class ProgramWriter:
    """The stand-in (see the module docstring). ``mistakes``: the ones made in direct
    generation; by default ``count`` drawn by ``seed`` from those the task can show, leaving
    out the :data:`BLOCKING` ones (ask for them by name)."""

    def __init__(self, task: str, mistakes: Optional[Sequence[str]] = None, seed: int = 0,
                 count: int = 2, relapse_round: Optional[int] = None,
                 relapse: Optional[str] = None) -> None:
        self.kind = "grasp" if task == "grasp" else "minigrid"
        self.task = task
        pool = GRASP_MISTAKES if self.kind == "grasp" else tuple(
            m for m in MINIGRID_MISTAKES
            if not (m == "no-drop" and task != "minigrid-unlockpickup")
            and not (m == "goal-step" and task != "minigrid-doorkey"))
        if mistakes is None:  # the default draw leaves out the mistakes that stop every run
            rng = random.Random(seed)
            subtle = [m for m in pool if m not in BLOCKING]
            mistakes = rng.sample(subtle, min(count, len(subtle)))
        unknown = set(mistakes) - set(pool)
        if unknown:
            raise ValueError(f"mistakes {sorted(unknown)} do not apply to {task}; choose from "
                             f"{', '.join(pool)}")
        self.active = set(mistakes)
        self.injected = sorted(self.active)
        self.repaired: list[str] = []
        self.refinements = 0
        self.relapse_round = relapse_round
        self.relapse = relapse or ("no-return" if self.kind == "grasp" else "turns")
        self.curriculum_step: Optional[int] = None

    def program(self) -> str:
        build = grasp_program if self.kind == "grasp" else minigrid_program
        return build(frozenset(self.active))

    def answer(self, messages: list[dict]) -> str:
        last = messages[-1]["content"]
        if last.rstrip().endswith("Let's think step by step."):
            return self._cot_answer(last)
        if CURRICULUM_MARK in messages[0]["content"] and self.kind == "grasp":
            return self._curriculum_answer(messages, last)
        if last.rstrip().endswith("Ensure your code doesnt cause any errors like out of grid "
                                  "bounds.") or "Give me the pseudocode" in last:
            return self.pseudocode()
        if last.startswith("You were tasked with writing code"):
            self.refinements += 1
            feedback = last.split("<sample_grids>", 1)[-1]
            for mistake in sorted(self.active):
                if all(re.search(p, feedback, re.I) for p in SYMPTOMS[mistake]):
                    self.active.discard(mistake)
                    self.repaired.append(mistake)
            if self.refinements == self.relapse_round:
                self.active.add(self.relapse)
        return "Here is the program.\n```python\n" + self.program() + "```\n"

    def _curriculum_answer(self, messages: list[dict], last: str) -> str:
        """The curriculum: the simplified game first, so the program knows nothing of the
        carry limit, the cost or obstacles until a turn names them."""
        if self.curriculum_step is None:
            self.curriculum_step = 0
            self.active |= {"carry", "cost", "obstacles"}
            return self.pseudocode()
        if last.startswith("Now, there is an additional constraint:"):
            self.curriculum_step += 1
            for words, mistake in (("carry limit", "carry"), ("cost_per_step", "cost"),
                                   ("obstacles", "obstacles")):
                if words in last and mistake in self.active:
                    self.active.discard(mistake)
        return "```python\n" + grasp_program(frozenset(self.active),
                                              self.curriculum_step) + "```\n"

    def _cot_answer(self, prompt: str) -> str:
        """Answer one instance directly (the CoT baseline): the writer reads the grid from the
        prompt and works out the actions with its current strategy, run in the sandbox."""
        import ast

        from pddlkit.sandbox import SandboxWorker

        if getattr(self, "_cot_worker", None) is None or self._cot_source != self.program():
            self._cot_source = self.program()
            self._cot_worker = SandboxWorker(self._cot_source)
        grid_text = prompt.split("<grid>", 1)[1].split("</grid>", 1)[0].strip("\n")
        if self.kind == "grasp":
            from pddlkit.envs.grasp import parse_ascii

            start = ast.literal_eval(re.search(r"starting position is (\[[^\]]*\])",
                                               prompt).group(1))
            result = self._cot_worker.call(
                grid=[list(r) for r in parse_ascii(grid_text)], start_pos=start, carry_limit=2,
                cost_per_step=0.3, is_diagonals_allowed=True, max_actions=20)
            tag = "final_answer"
        else:
            direction = re.search(r"<start_direction>(\w+)</start_direction>",
                                  prompt.split("<grid>", 1)[1]).group(1)
            result = self._cot_worker.call(grid=ast.literal_eval(grid_text),
                                           start_direction=direction)
            tag = "actions"
        actions = result.value if result.ok and isinstance(result.value, list) else []
        return (f"Thinking it through step by step, I collect what I can reach in time.\n"
                f"<{tag}>{actions}</{tag}>")

    def pseudocode(self) -> str:
        if self.kind == "grasp":
            return ("1. Find the nearest energy token by breadth-first search.\n2. If there is "
                    "time to fetch it and come back, go there and TAKE it.\n3. When carrying "
                    "as much as allowed, go back to the start and DROP.\n4. Repeat; at the end "
                    "go back and DROP what is carried.")
        return ("1. Walk next to the key, face it, PICKUP.\n2. Walk next to the door, face it, "
                "UNLOCK.\n3. Walk onto the goal, or drop the key and pick up the box.")

    def llm(self):
        from pddlkit.llm import ScriptedLLM
        from pddlkit.llm.usage import UsageLedger

        return ScriptedLLM(self.answer, model=f"standin-{self.task}", ledger=UsageLedger())


#: what ``--llm`` may name for the stand-in writer: ``standin:ipp:MISTAKE,...`` (any task's
#: mistakes here; the task's own are checked when the writer is made)
STAND_INS = (StandIn("standin", names(tuple(dict.fromkeys(GRASP_MISTAKES + MINIGRID_MISTAKES))),
                     "standin:ipp:carry,cost", form="MISTAKE,...", mode="",
                     knows="stand-in (our own strategy, with injected mistakes)"),)
