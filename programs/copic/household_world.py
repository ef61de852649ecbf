"""Household and ALFWorld under CoPiC: any text environment with ALFWorld's commands and task
sentences behind the paper's agent API (Appendix B.1.1; :mod:`.household_agent`).

- **Task types**: the six of ALFWorld, by the paper's method names (``pick_and_place``,
  ``pick_two_obj_and_place``, ``look_at_obj_in_light``, ``pick_clean_then_place``,
  ``pick_heat_then_place``, ``pick_cool_then_place``); ``objecttype`` and ``receptacletype`` are
  read from the task sentence (the household's and ALFWorld's phrasings both).
- **A step** runs the chosen plan's commands in order and stops at the first one that fails
  (an error code, or ALFWorld's "Nothing happens."); each command counts against the budget of
  50 (the paper's step cap, inferred from its Table 10). An empty plan runs "look".
- **The world-model filter** needs an environment with a symbolic model of what the agent has
  perceived: :class:`~pddlkit.envs.pddl_world.PDDLWorldEnv` resolves a command against its
  domain's preconditions, and only objects the agent has seen can be named, so the check uses
  the agent's knowledge, not hidden state. The ALFWorld adapter plays TextWorld's engine and has
  no such model: there the filter drops nothing (``first_action_fails`` returns None).
- **The results** for evolution are the last M episodes' interaction histories as ``Obs:`` /
  ``Act:`` lines (Appendix G shows "only key parts": the last 12 steps here), then what each
  program did.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from pddlkit.envs.household_tasks import ALFWORLD_NAMES, read_task_sentence

from .household_programs import DESCRIPTIONS, HOUSEHOLD_TASKS, household_program
from .world import Executed, programs_block, render

PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "copic" / "household"
AGENT_API = Path(__file__).resolve().with_name("household_agent.py")

#: ALFWorld's task-type names (full and short) -> the paper's method names (the household's
#: one table, :mod:`pddlkit.envs.household_tasks`)
ALIASES = {**ALFWORLD_NAMES, **{t: t for t in HOUSEHOLD_TASKS}}
EXAMPLE_OF = {t: "pick_clean_then_place" if t == "pick_and_place" else "pick_and_place"
              for t in HOUSEHOLD_TASKS}


def parse_task(sentence: str) -> tuple[str, str, str]:
    """(task type, objecttype, receptacletype) of a task sentence, read by the household's
    one reader (:func:`pddlkit.envs.household_tasks.read_task_sentence`): ALFWorld's wordings
    and the household's, "put a sliced apple in countertop." included (a ValueError names an
    example when it is none of them)."""
    task = read_task_sentence(sentence)
    return task.task_type, task.target, task.receptacle or ""


def agent_api() -> str:
    """The agent API's source, as the sandbox runs it in front of each task method."""
    return AGENT_API.read_text()


#: the worked call of the program API (``plan_api``), as the example's first lines
PLAN_CALL = ('    commands = plan("task")    # the world model\'s commands for the whole task, '
             'from what was seen\n'
             '    if commands:\n'
             '        self.follow(commands)\n'
             '        return\n')


def with_plan_call(method: str) -> str:
    """``method`` (a task method's text) with :data:`PLAN_CALL` after its ``def`` line and
    docstring: a small model copies the example, so the example calls the API."""
    lines = method.splitlines(keepends=True)
    at = 1
    if len(lines) > 1 and lines[1].strip().startswith('"""'):
        at = 2
        if lines[1].strip() == '"""' or not lines[1].strip()[3:].rstrip().endswith('"""'):
            # a docstring over several lines: the call goes after its closing quotes
            at = next((k + 1 for k in range(2, len(lines)) if '"""' in lines[k]), 1)
    return "".join(lines[:at]) + PLAN_CALL + "".join(lines[at:])


class HouseholdWorld:
    """``HouseholdWorld(lambda: Household(receptacles=8, difficulty="pick_and_place"))``; any
    ALFWorld-style text environment (``ALFWorldEnv("heat")`` too)."""

    kind = "household"
    entry = "propose"
    max_plan = 5
    trajectory_lines = 12

    def __init__(self, make_env: Callable[[], Any], *, budget: int = 50,
                 put_template: str = "move {o} to {r}", world_model: bool = False) -> None:
        self.env = make_env()
        if world_model and not callable(getattr(self.env, "reference_problem", None)):
            raise ValueError(f"plan(goal) needs an environment built on PDDL (the household); "
                             f"{type(self.env).__name__} has no model of what the agent saw")
        self.world_model = world_model
        self.plan_seconds = 0.0            # host time spent planning for plan(goal)
        self._planned: dict = {}
        self.put_template = put_template
        self.budget = budget
        self.history: list[list] = []
        self._task: tuple[str, str, str] = ("pick_and_place", "", "")

    @property
    def id(self) -> str:
        return getattr(self.env, "id", type(self.env).__name__)

    def reset(self, seed: Optional[int]) -> None:
        observation, _ = self.env.reset(seed=seed)
        self.history = [[None, observation]]
        declared = getattr(self.env, "task_type", None)
        parsed = parse_task(self.env.task)
        task_type = ALIASES.get(declared, parsed[0]) if declared else parsed[0]
        if task_type not in HOUSEHOLD_TASKS:   # slice_and_place: no ALFWorld method for it
            raise ValueError(f"CoPiC evolves programs for ALFWorld's task types "
                             f"({', '.join(HOUSEHOLD_TASKS)}); {self.env.task!r} is "
                             f"{task_type} (choose another --difficulty)")
        self._task = (task_type, parsed[1], parsed[2])

    @property
    def task_type(self) -> str:
        return self._task[0]

    @property
    def program_name(self) -> str:
        return self._task[0]

    @property
    def task_text(self) -> str:
        return self.env.task

    def program_args(self) -> dict:
        args = {"history": self.history, "task_type": self._task[0],
                "objecttype": self._task[1], "receptacletype": self._task[2],
                "max_actions": self.max_plan, "put_template": self.put_template}
        if self.world_model:
            args["plans"] = self.world_plans()
        return args

    def _plannable(self, seen):
        """``seen`` (what a perfect reader would write) with the names the goal uses declared
        (the task's object and receptacle types: words of the task sentence, not hidden
        state) and the facts over them, so the goal can be planned for."""
        from dataclasses import replace as replaced

        from pddlkit.pddl.model import Atom, iter_atoms

        full = self.env.problem
        used = {a for atom in iter_atoms(full.goal) for a in atom.args
                if not str(a).startswith("?")}
        declared = {o.name for o in seen.objects}
        objects = seen.objects + tuple(o for o in full.objects
                                       if o.name in used and o.name not in declared)
        names = {o.name for o in objects} | {c.name for c in self.env.domain.constants}
        init = tuple(Atom(a[0], tuple(a[1:])) for a in sorted(self.env.state.atoms)
                     if all(x in names for x in a[1:]))
        return replaced(seen, objects=objects, init=init)

    def world_plans(self) -> dict[str, list[str]]:
        """plan(goal)'s answers now: ``"task"``, the commands Fast Downward finds for the
        task's goal on the environment's domain from the problem a perfect reader of the
        observations so far would write (:meth:`~pddlkit.envs.pddl_world.PDDLWorldEnv.
        reference_problem`: nothing hidden, so a plan exists once what it needs was seen);
        cached per state; [] when there is none."""
        import time

        import pddlkit
        from pddlkit.pddl.writer import write_domain, write_problem

        problem = self._plannable(self.env.reference_problem())
        key = (problem.init, problem.numeric_init, problem.objects)
        if key not in self._planned:
            start = time.monotonic()
            commands: list[str] = []
            try:
                result = pddlkit.plan(write_domain(self.env.domain), write_problem(problem),
                                      timeout=10.0, explain=False)
                if result.status == "solved":
                    commands = list(self.env.commands_for_plan(result.plan))
            except Exception:   # noqa: BLE001 - a goal over what was not seen: no plan yet
                commands = []
            self.plan_seconds += time.monotonic() - start
            self._planned = {key: commands}   # one state at a time: the episode moves on
        return {"task": list(self._planned[key])}

    def observation_text(self) -> str:
        command, observation = self.history[-1]
        return " ".join(str(observation).split()[-60:])

    def check_plan(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise ValueError(f"the task method's plan must be a list of commands, got "
                             f"{type(value).__name__}: {str(value)[:80]}")
        return [a.strip() for a in value if a.strip()][:self.max_plan]

    def first_action_fails(self, plan: Sequence[str]) -> Optional[str]:
        resolve = getattr(self.env, "resolve", None)
        if not plan or resolve is None:
            return None
        meta = getattr(self.env, "META_COMMANDS", ())
        first = " ".join(plan[0].split()).lower()
        if any(re.fullmatch(re.escape(m).replace(r"\{x\}", ".+"), first) for m in meta):
            return None  # look, inventory, examine: they change nothing and cannot fail
        outcome = resolve(plan[0])
        return getattr(outcome, "message", None)

    def execute(self, plan: Sequence[str]) -> Executed:
        plan = list(plan) or ["look"]
        reward, won, done, actions, failed = 0.0, False, False, 0, []
        observation = ""
        for command in plan:
            step = self.env.step(command)
            observation = step.observation
            self.history.append([command, observation])
            actions += 1
            reward += float(step.reward)
            won = step.won
            done = step.terminated or step.truncated
            if won or done:
                break
            if step.error or observation.strip().startswith("Nothing happens"):
                failed.append((command, " ".join(observation.split())[:100]))
                break
            if len(self.history) - 1 >= self.budget:
                break
        return Executed(reward, done, won, actions, observation, {"failed": failed})

    def fallback(self) -> list[str]:
        return ["look"]

    def plan_label(self, plan: Sequence[str]) -> str:
        """A plan's text; an empty plan runs "look"."""
        return "; ".join(plan) or "look"

    def potential(self) -> float:
        """-h_add of the environment's state (a PDDL world's relaxed distance to the goal),
        for reward shaping; TypeError for an environment without a model."""
        from pddlkit.semantics.heuristic import RelaxedDistance

        world, state = getattr(self.env, "world", None), getattr(self.env, "state", None)
        if world is None or state is None:
            raise TypeError(f"reward shaping needs a PDDL world; {type(self.env).__name__} has "
                            f"none: use shaping=0")
        if getattr(self, "_distance", None) is None or self._distance[0] is not world:
            self._distance = (world, RelaxedDistance(world))
        return -min(self._distance[1](state), 100.0)

    def episode_result(self, won: bool) -> str:
        return f"task: {self.env.task}"

    # -- prompts --------------------------------------------------------------------------
    def program_source(self, body: str) -> str:
        return agent_api() + "\n\n# ---- the task method ----\n" + body

    def _fields(self) -> dict:
        task_type = self._task[0]
        example_type = EXAMPLE_OF[task_type]
        example = household_program(example_type).rstrip()
        if self.world_model:   # the API said before the example, and the example calls it
            example = "\n".join("# " + line for line in
                                 render(PROMPTS, "plan_api.txt").strip().splitlines()) \
                + "\n" + with_plan_call(example)
        return {"task": task_type.replace("_", " "), "task_method": task_type,
                "task_method_desc": DESCRIPTIONS[task_type], "example": example,
                "example_method_name": example_type}

    def init_prompt(self, example: Optional[str] = None) -> str:
        return render(PROMPTS, "init.txt", **self._fields())

    def evolve_prompt(self, programs: Sequence[str], results: str,
                      example: Optional[str] = None) -> str:
        return self.init_prompt() + "\n" + render(
            PROMPTS, "evolve.txt", programs=programs_block(programs),
            results=results, **self._fields())
