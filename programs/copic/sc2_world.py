"""StarCraft II unit building under CoPiC: :class:`~pddlkit.envs.sc2_build.SC2Build` behind the
paper's program API, ``planner(obs, action_space, task) -> list[str]`` (Appendix B.3).

- **A step** runs one chosen plan (at most 5 actions) and advances game time by the simulator's
  ``step_seconds``; the budget is the simulator's game-time limit.
- **Time limit**: 660 s of game time per episode, the simulator's own default
  (:data:`~pddlkit.envs.sc2_build.MAX_SECONDS`; the paper gives none). The correct strategy finishes every difficulty within it on seeds
  0-99 and 1000-1099, and a wasteful plan then costs the episode, so the choice among programs
  shows in the success rate, not only in the steps.
- **The task type** is the difficulty: one program set per difficulty, as the paper evolves one
  per task family; the unit counts vary by seed.
- **The world-model filter** reads the tech tree as PDDL (:func:`~pddlkit.envs.sc2_build.
  tech_model`, tried through :func:`pddlkit.semantics.simulate.simulate`) with a believed state built from the observation the programs see: a kind is
  "had" when its count is above 0 (the count includes buildings still under construction, so the
  belief is optimistic and a rejection is always right: the first action needs a building that
  is not even started).
- **The economy** (issue 49): the filter also reads the numeric model
  (``tech_model(economy=True)``) in the state that holds the most minerals, gas and supply the
  step can bring (:meth:`~pddlkit.envs.sc2_build.SC2Build.economy_within`: nothing spent, so
  the bound is exact), so a plan whose first action the economy cannot pay for before the step
  ends is dropped with the price and what there can be at most; it could never start.
- **The world model's plans** (``world_model=True``, issue 48; off by default): programs may
  call ``build_order(goal)`` (a unit or building name; ``plan(goal)`` is the same function,
  but the paper's example program names its result list ``plan``, which makes ``plan`` a
  local variable in ``planner`` and the call an UnboundLocalError, so the prompt teaches
  ``build_order``), which returns the build order the tech tree
  needs for it from what the observation shows (``['BUILD BARRACKS', 'BUILD FACTORY',
  'BUILD STARPORT', 'BUILD FUSIONCORE', 'TRAIN BATTLECRUISER']``). Generated code never runs in
  the host and the sandbox cannot call the host, so the host plans, with Fast Downward on
  :func:`~pddlkit.envs.sc2_build.tech_model`, for every kind on the chain of a task's unit, once
  per believed state (cached), and hands the plans to the sandbox as data with each call;
  ``build_order`` reads them (a goal not planned returns ``[]``). The seconds spent planning are
  counted (:attr:`SC2World.plan_seconds`). Measured with Qwen2.5-Coder 1.5B: its programs
  never built the production chain the tech-tree model spells out, and with the help its
  initial programs still copied the example's partial tech tree and never called the API
  (``examples/real-llm/helps.md``).
- **The derived tech tree** (``derived_tree=True``, CoPiC's ``--derived-tree``; off by
  default): the paper's example program in the initial prompt carries a hand-written
  ``tech_tree`` for the example task's units only (Marine, Reaper, Marauder, Hellion), and a
  small model copies it. With the option, code writes that dict instead, from the simulator's
  tech tables (:func:`~pddlkit.envs.sc2_build.tech_chain`, the tables
  :func:`~pddlkit.envs.sc2_build.tech_model` is made from), for the example's units and this
  task's, in the example's own format, with a comment that says where it came from; the rest
  of the example is the paper's. Why: measured with Qwen2.5-Coder 1.5B, its programs copied
  the example with its partial tree both without and with ``build_order`` in the prompt (it
  defined its own ``build_order`` and never called one), and the paper's example with the
  derived tree wins seeds 5000-5004 on easy, medium and hard (the test copies it).
- **The results** for the evolution prompt are the paper's "final unit counts" per episode
  (``SCV 18/18, BATTLECRUISER 0/2 (+1 in progress)``: finished units against the target, the
  ones in production or queued apart), and per program how often its plans were chosen, the
  actions of its plans that could not start (with the simulator's reason), and its errors.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Sequence

from pddlkit.envs.sc2_build import (DIFFICULTIES, ECONOMY, MAX_PLAN, MAX_SECONDS,
                                    TECH_MESSAGES, SC2Build, cost_sentence, public_obs,
                                    supply_sentence, tech_chain, tech_goal, tech_model,
                                    tech_state)
from pddlkit.envs.sc2_data import KINDS

from .world import Executed, programs_block, render

PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "copic" / "sc2"


#: the sandbox's entry with the world model on: it takes the host's plans as data, then calls
#: the program's ``planner``
WITH_PLANS = "_planner_with_world_plans"

#: what ``world_model=True`` puts after the program's body (the program API's ``plan``)
PLAN_API = f'''

# ---- the world model (pddlkit): plans computed by the host, passed in with each call ----
_WORLD_PLANS = {{}}


def build_order(goal):
    """The build order the tech tree needs for ``goal`` (a unit or building name such as
    'BATTLECRUISER') from what you have now: a list of actions such as ['BUILD BARRACKS',
    'TRAIN MARINE']; [] when you already have it or it was not planned."""
    return list(_WORLD_PLANS.get(str(goal).strip().upper(), []))


plan = build_order   # the same, for a program that names it so


def {WITH_PLANS}(plans, obs, action_space, task):
    _WORLD_PLANS.clear()
    _WORLD_PLANS.update(plans)
    return planner(obs, action_space, task)
'''


def derived_tech_tree(units: Sequence[str]) -> dict:
    """unit -> {"base_building", "pre_dependency"} in the example program's terms, from the
    tech tables: the base building is where the unit is made (its TechLab where it needs one),
    the dependencies everything else it needs, deepest first, numbered from 1."""
    from pddlkit.envs.sc2_data import KINDS, TECHLAB_OF

    tree = {}
    for unit in units:
        kind = KINDS[unit]
        base = TECHLAB_OF[kind.producer] if kind.needs_techlab else kind.producer
        deps = [b for b in tech_chain(unit) if b != base]
        tree[unit] = {"base_building": base, "pre_dependency": dict(enumerate(deps, 1))}
    return tree


def tech_tree_source(tree: dict, indent: str = "    ") -> str:
    """``tech_tree = {...}`` as the paper's example writes it (one key a line)."""
    lines = [f"{indent}tech_tree = {{"]
    for unit, tech in tree.items():
        lines += [f'{indent}    "{unit}": {{',
                  f'{indent}        "base_building": "{tech["base_building"]}",']
        if tech["pre_dependency"]:
            lines.append(f'{indent}        "pre_dependency": {{')
            lines += [f'{indent}            {k}: "{b}",' for k, b in tech["pre_dependency"].items()]
            lines.append(f"{indent}        }},")
        else:
            lines.append(f'{indent}        "pre_dependency": {{}},')
        lines.append(f"{indent}    }},")
    return "\n".join(lines + [f"{indent}}}"])


#: the paper's example task's units (the initial prompt's example program)
EXAMPLE_UNITS = ("SCV", "MARINE", "REAPER", "MARAUDER", "HELLION")
_TREE_START, _TREE_END = "    tech_tree = {", "    # obtain the base_building"


def with_derived_tree(prompt: str, units: Sequence[str]) -> str:
    """``prompt`` with its example program's ``tech_tree`` written by code for the example's
    units and ``units`` (see the module); ValueError when the prompt has no such block."""
    start, end = prompt.find(_TREE_START), prompt.find(_TREE_END)
    if start < 0 or end < start:
        raise ValueError("the SC2 initial prompt has no example tech_tree to derive "
                         f"(looked for {_TREE_START!r} before {_TREE_END!r})")
    tree = derived_tech_tree(list(dict.fromkeys([*EXAMPLE_UNITS, *units])))
    note = ("    # for the example's units and this task's: written by pddlkit's world model from "
            "the game's tech tables\n")
    return prompt[:start] + note + tech_tree_source(tree) + "\n" + prompt[end:]


@lru_cache(maxsize=4096)
def plan_for(goal: str, have: frozenset) -> tuple[str, ...]:
    """The tech tree's build order for ``goal`` from the kinds in ``have`` (Fast Downward on
    :func:`~pddlkit.envs.sc2_build.tech_model`), as actions ``BUILD X`` / ``TRAIN X``; () when
    ``goal`` is had or cannot be made."""
    import pddlkit

    if goal in have:
        return ()
    from pddlkit.envs.sc2_build import tech_domain, tech_problem

    result = pddlkit.plan(tech_domain(), tech_problem([goal], sorted(have)))
    if result.status != "solved":
        return ()
    out = []
    for step in result.plan.steps:
        name = step.name.upper().removeprefix("MAKE-")
        out.append(f"{'TRAIN' if KINDS[name].is_unit else 'BUILD'} {name}")
    return tuple(out)


@lru_cache(maxsize=1)
def _tech_world():
    from pddlkit.semantics.world import World

    return World(tech_model(), tech_goal(["SCV"]))


@lru_cache(maxsize=1)
def _economy_world():
    from pddlkit.semantics.world import World

    return World(tech_model(economy=True), tech_goal(["SCV"], economy=dict.fromkeys(ECONOMY, 0)))


def believed_state(obs: dict, economy: Optional[dict] = None):
    """The tech-tree state the observation shows: ``(have-x)`` for every kind counted; with
    ``economy`` (:data:`~pddlkit.envs.sc2_build.ECONOMY`'s numbers), the economy model's."""
    return tech_state((k for k, n in {**obs["Building"], **obs["Unit"]}.items() if n > 0),
                      economy)


def tech_failure(obs: dict, action: str, economy: Optional[dict] = None) -> Optional[str]:
    """Why ``action`` cannot start in any state the observation allows, by the tech tree (the
    world-model service, :func:`pddlkit.semantics.simulate.simulate`, and the simulator's own
    sentences); None when the tree allows it. Without ``economy`` costs, supply and idle
    producers stay with the simulator; with it (the most the economy can hold before the step
    ends, :meth:`~pddlkit.envs.sc2_build.SC2Build.economy_within`), the economy model also
    refuses an action the step cannot pay for or has no supply for, saying how much there can
    be at most."""
    from pddlkit.semantics.simulate import simulate

    verb, _, name = action.strip().upper().partition(" ")
    if verb not in ("BUILD", "TRAIN") or name not in KINDS:
        return f"unknown action {action!r}"
    if (verb == "TRAIN") != KINDS[name].is_unit:
        return f"{name} cannot be {'trained' if verb == 'TRAIN' else 'built'}"
    world = _tech_world() if economy is None else _economy_world()
    tried = simulate(world, believed_state(obs, economy), f"make-{name.lower()}")
    if tried.applicable:
        return None
    reason = TECH_MESSAGES.first_sentence(tried, context=name) or str(tried.first)
    if economy is not None and reason == cost_sentence(name):
        reason += (f"; at most {int(economy['minerals'])} minerals and {int(economy['gas'])} "
                   f"gas before this step ends")
    elif economy is not None and reason == supply_sentence(name):
        reason += (f"; at most {int(economy['supply-cap'] - economy['supply-used'])} left "
                   f"before this step ends")
    return reason


class SC2World:
    """``SC2World("hard")``: CoPiC's view of the SC2 unit-building simulator."""

    kind = "sc2"
    entry = "planner"
    max_plan = MAX_PLAN
    trajectory_lines = 0   # the results show final counts, not step-by-step histories
    wait_is_a_plan = True  # an empty plan saves resources: a choice among the others

    def __init__(self, difficulty: str = "easy", *, step_seconds: float = 10.0,
                 max_seconds: float = MAX_SECONDS, task: Optional[dict] = None,
                 env: Optional[SC2Build] = None, world_model: bool = False,
                 derived_tree: bool = False) -> None:
        """``env``: the simulator, already made (``make("sc2-build", ...)``, a job's
        ``make_env``); its difficulty and time limit are then the world's. ``world_model``:
        ``build_order(goal)`` in the program API; ``derived_tree``: the example's tech tree
        written by code (see the module)."""
        if env is None:
            from pddlkit.envs import make

            env = make("sc2-build", difficulty=difficulty, step_seconds=step_seconds,
                       max_seconds=max_seconds, task=task)
        self.env = env
        self.difficulty = self.env.difficulty
        self.budget = int(self.env.max_seconds // self.env.step_seconds)
        self._obs: dict = {}
        self.world_model = world_model
        self.derived_tree = derived_tree
        self.entry = WITH_PLANS if world_model else "planner"
        self.plan_seconds = 0.0    # host time spent planning for plan(goal)

    @property
    def id(self) -> str:
        return f"sc2-build-{self.difficulty}"

    def reset(self, seed: Optional[int]) -> None:
        self._obs, _ = self.env.reset(seed)

    @property
    def task_type(self) -> str:
        return self.difficulty

    @property
    def program_name(self) -> str:
        return "planner"

    @property
    def task_text(self) -> str:
        return "train " + ", ".join(f"{n} {u}" for u, n in self.env.task.items())

    def program_args(self) -> dict:
        args = {"obs": public_obs(self._obs), "action_space": self.env.action_space(),
                "task": dict(self.env.task)}
        if self.world_model:
            args = {"plans": self.world_plans(), **args}
        return args

    def world_plans(self) -> dict[str, list[str]]:
        """plan(goal)'s answers for this state: every kind on the chain of a task's unit."""
        import time

        obs = public_obs(self._obs)
        have = frozenset(k for k, n in {**obs["Building"], **obs["Unit"]}.items() if n > 0)
        goals = list(dict.fromkeys(g for unit in self.env.task
                                   for g in [*tech_chain(unit), unit]))
        start = time.monotonic()
        plans = {goal: list(plan_for(goal, have)) for goal in goals}
        self.plan_seconds += time.monotonic() - start
        return plans

    def observation_text(self) -> str:
        obs = public_obs(self._obs)
        have = ", ".join(f"{k} {v}" for k, v in {**obs["Building"], **obs["Unit"]}.items() if v)
        res = obs["Resource"]
        return (f"supply {res['supply_cap'] - res['supply_left']}/{res['supply_cap']}, gas "
                f"{res['gas']}; have {have}")

    def check_plan(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise ValueError(f"planner must return a list of action strings, got "
                             f"{type(value).__name__}: {str(value)[:80]}")
        return [a.strip() for a in value if a.strip()][:MAX_PLAN]

    def first_action_fails(self, plan: Sequence[str]) -> Optional[str]:
        """The world-model filter's reason to drop ``plan`` unrun: its first action needs a
        kind not even started, or more minerals, gas or supply than the step can give
        (the economy model, issue 49); None when it may start."""
        if not plan:
            return None
        return tech_failure(public_obs(self._obs), plan[0],
                            self.env.economy_within(self.env.step_seconds))

    def execute(self, plan: Sequence[str]) -> Executed:
        step = self.env.step(list(plan))
        self._obs = step.observation
        done = step.terminated or step.truncated
        failed = [(a, why.split("; there are")[0]) for a, why in step.info["skipped"]]
        return Executed(step.reward, done, step.won, 1, self.observation_text(),
                        {"failed": failed, "started": step.info["started"]})

    def potential(self) -> float:
        """Minus the simulator's relaxed estimate of the steps still needed
        (:meth:`~pddlkit.envs.sc2_build.SC2Build.seconds_left` over the step length), for
        potential-based reward shaping: the paper's reward pays only when a wanted unit starts,
        so a wasted order or a missing tech building would otherwise show only many steps
        later."""
        return -self.env.seconds_left() / self.env.step_seconds

    def fallback(self) -> list[str]:
        """No program proposed anything: the step passes with no action (time still runs)."""
        return []

    def episode_result(self, won: bool) -> str:
        """The task, the outcome and the final counts: finished units against the target, with
        the ones still in production (or queued) apart, ``SCV 17/18 (+1 in progress)``."""
        def count(unit: str, wanted: int) -> str:
            finished, pending = self._obs["_detail"][unit]
            return f"{unit} {finished}/{wanted}" + (f" (+{pending} in progress)" if pending
                                                    else "")

        counts = ", ".join(count(u, n) for u, n in self.env.task.items())
        extra = ", ".join(f"{u} {n}" for u, n in self._obs["Unit"].items()
                          if n and u not in self.env.task and u != "SCV")
        return (f"task {json.dumps(self.env.task)}: {'completed' if won else 'not completed'} "
                f"after {self.env.time:.0f} s of game time; final unit counts {counts}"
                + (f"; units not in the task: {extra}" if extra else ""))

    # -- prompts --------------------------------------------------------------------------
    def program_source(self, body: str) -> str:
        return body + PLAN_API if self.world_model else body

    def init_prompt(self, example: Optional[str] = None) -> str:
        task = {u: f"num_{i}" for i, u in enumerate(DIFFICULTIES[self.difficulty], 1)}
        text = render(PROMPTS, "init.txt", task=json.dumps(task, indent=0))
        if self.derived_tree:
            text = with_derived_tree(text, DIFFICULTIES[self.difficulty])
        if self.world_model:
            text += "\n\n" + render(PROMPTS, "plan_api.txt")
        return text

    def evolve_prompt(self, programs: Sequence[str], results: str,
                      example: Optional[str] = None) -> str:
        evolve = render(PROMPTS, "evolve.txt", count=str(len(programs)),
                        programs=programs_block(programs), results=results)
        return self.init_prompt() + "\n\n" + evolve

