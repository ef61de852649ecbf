"""The tasks a code-writing front end solves: what the LLM is told, what the program is called
with, and how its answer is scored, with an account of what went wrong.

A task gives, for one instance, the program's keyword arguments, a score for its result, and
a few lines saying what happened (the simulator's account: blocked moves, TAKE on an empty
cell, a DROP away from the start; for MiniGrid the environment's run and the first step the
PDDL model rejects). A program that crashes, times out or returns the wrong thing scores the
worst an instance can score, minus one (``crash_score``), so refinement sees it as worst and a
mean cannot hide it; the count of such failures is reported beside every mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Protocol, Sequence

from pddlkit.sandbox import CallResult

PROMPTS = Path(__file__).resolve().parent / "prompts" / "ipp"


def template(name: str):
    """One of IPP's prompt files (``$name`` placeholders, :mod:`pddlkit.llm.prompts`)."""
    from pddlkit.llm.prompts import read_prompt

    return read_prompt(PROMPTS, name)


@dataclass
class Scored:
    score: float
    ok: bool            # the program ran and returned actions
    account: str        # what happened, for the refinement prompt
    #: the program's line the failure happened at (0: none, or the program ran), so a fix
    #: can be asked for the function holding it (issue 76)
    line: int = 0


class Task(Protocol):
    name: str
    signature: str
    #: what ``solve`` returns, in words (the probe's fix prompt)
    returns: str

    def worked_call(self) -> str:
        """One call of ``solve`` on the sample instance and what a good program returns."""
        ...

    def rules(self) -> str: ...

    def program_args(self, instance: Any) -> dict: ...

    def score(self, instance: Any, result: CallResult) -> Scored: ...

    def show(self, instance: Any) -> str:
        """The instance as the refinement prompt shows it (a grid, and its setting)."""
        ...

    def show_bare(self, instance: Any) -> str:
        """The instance as the paper's refinement prompt shows it (the grid only)."""
        ...


def _failed(result: CallResult, worst: float) -> Optional[Scored]:
    if result.ok and isinstance(result.value, list) and all(
            isinstance(a, str) for a in result.value):
        return None
    if result.ok and isinstance(result.value, list):
        k, item = next((k, a) for k, a in enumerate(result.value) if not isinstance(a, str))
        why = (f"bad-return: solve returned a list whose item {k} is a "
               f"{type(item).__name__} ({str(item)[:60]}), not an action string; return "
               "only the list of actions (a tuple such as (actions, energy) arrives as a "
               "list of its parts)")
    elif result.ok:
        why = (f"bad-return: solve returned a {type(result.value).__name__}, not a list of "
               "action strings")
    else:
        return Scored(worst - 1.0, False, result.error.format(), result.error.line or 0)
    return Scored(worst - 1.0, False, why)


# --------------------------------------------------------------------------- GRASP


class GraspTask:
    name = "grasp"
    signature = ("solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, "
                 "max_actions)")
    returns = ("a list of action strings (a list of str, nothing else: not a tuple, not the "
               "energy)")

    def __init__(self, instances: Sequence, sample=None) -> None:
        self.instances = list(instances)
        self.sample = sample or self.instances[0]

    def rules(self) -> str:
        return template("grasp_rules.txt").fill(sample_grid=ascii_grid(self.sample.grid.cells))

    def program_args(self, instance) -> dict:
        return instance.program_args()

    def worked_call(self) -> str:
        """The sample instance's arguments (the grid as drawn in the rules) and the actions a
        search finds for it (:func:`pddlkit.envs.grasp.best_search`: our code, not a
        model's), so the expected call and return are shown, not described."""
        from pddlkit.envs.grasp import best_search

        args = {k: v for k, v in self.program_args(self.sample).items() if k != "grid"}
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        actions = best_search(self.sample, beam=200)
        return f"solve(grid=<the sample grid>, {shown})\n-> {actions!r}"

    def score(self, instance, result: CallResult) -> Scored:
        from pddlkit.envs.grasp import simulate

        failed = _failed(result, -instance.cost * instance.max_actions)
        if failed:
            return failed
        outcome = simulate(instance, [str(a) for a in result.value])
        return Scored(outcome.score, True, outcome.account())

    #: the paper's refinement prompt for GRASP (Appendix A.3.1), word for word
    paper_refine = "refine_paper_grasp.txt"

    def show(self, instance) -> str:
        return (f"{instance.describe()}\nstart position {list(instance.grid.start)}\n"
                + ascii_grid(instance.grid.cells))

    def show_bare(self, instance) -> str:
        return ascii_grid(instance.grid.cells)


def ascii_grid(cells) -> str:
    """The published drawing style: a column header, then ``+---+`` rows."""
    n = len(cells[0])
    rule = "  +" + "---+" * n
    lines = ["    " + "   ".join(str(c) for c in range(n)), rule]
    for r, row in enumerate(cells):
        lines.append(f"{r:>2}|" + "|".join(f" {v} " for v in row) + "|")
        lines.append(rule)
    return "\n".join(lines)


# --------------------------------------------------------------------------- MiniGrid

MISSIONS = {"unlock": ("open the door", "The game ends when the door is open."),
            "doorkey": ("use the key to open the door and then get to the goal",
                        "You must stand on the goal cell to complete the game."),
            "unlockpickup": ("pick up the box",
                             "The game ends when you pick up the box. You cannot drop objects "
                             "into non-empty cells or into a WALL or DOOR cell.")}


class MiniGridTask:
    signature = "solve(grid, start_direction)"
    returns = "a list of action strings (a list of str)"

    def __init__(self, task: str, seeds: Sequence[int] = (), sample_seed: int = 0, *,
                 instances: Optional[Sequence] = None) -> None:
        """Over the instances of ``seeds``, or over ``instances`` already observed."""
        from pddlkit.envs import minigrid_tasks as M

        self.task = task
        self.name = f"minigrid-{task}"
        self.instances = list(instances) if instances is not None else \
            [M.observe(task, s) for s in seeds]
        self._sample = M.observe(task, sample_seed)
        self._sample_solution, _ = M.planner_baseline(task, sample_seed)

    def rules(self) -> str:
        mission, rule = MISSIONS[self.task]
        return template("minigrid_rules.txt").fill(
            mission=mission, task_rule=rule, sample_grid=grid_rows(self._sample.grid),
            start_direction=self._sample.start_direction,
            sample_solution=self._sample_solution)

    def program_args(self, instance) -> dict:
        return instance.program_args()

    def worked_call(self) -> str:
        """The sample's call and the planner's actions for it (the rules show both)."""
        return (f"solve(grid=<the sample grid>, start_direction="
                f"{self._sample.start_direction!r})\n-> {list(self._sample_solution)!r}")

    def score(self, instance, result: CallResult) -> Scored:
        from pddlkit.envs import minigrid_tasks as M

        failed = _failed(result, 0.0)
        if failed:
            return failed
        actions = [str(a) for a in result.value]
        run = M.run(self.task, instance.seed, actions)
        account = run.account()
        if not run.success:
            symbolic = M.validate_actions(instance, actions)
            if symbolic:
                account += "\nchecked on the PDDL model: " + symbolic.splitlines()[0]
        return Scored(run.reward, True, account)

    #: the paper's refinement prompt for MiniGrid (Appendix A.3.2-A.3.4), word for word
    paper_refine = "refine_paper_minigrid.txt"

    def show(self, instance) -> str:
        return f"seed {instance.seed}\n{grid_rows(instance.grid)}\nstart_direction: " \
               f"{instance.start_direction}"

    def show_bare(self, instance) -> str:
        """The grid and its start direction, as the paper's direct-generation prompt shows
        its sample (``<start_direction>`` tags)."""
        return (f"{grid_rows(instance.grid)}\n<start_direction>\n{instance.start_direction}\n"
                f"</start_direction>")


def grid_rows(grid) -> str:
    return "[\n" + ",\n".join("  " + repr(list(r)) for r in grid) + "\n]"
