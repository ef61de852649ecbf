"""The DEPS loop (seed 003, Eq. 1): describe, explain, plan, select.

One growing dialogue per task, as in App. G: the planner prompt with its two demonstrations, the
question ("How to obtain 1 <item> in Minecraft step-by-step?", or in Crafter with Crafter's own
prompt when the world is Crafter), the plan, then per failure a
``Descriptor:`` line, an ``Explainer:`` line and ``User: Please fix the above errors and replan
the task "obtain 1 <item>".``, answered by a ``RePlanner:`` plan from the current inventory. The
new plan replaces the remaining goals.

Choices where the paper is silent (see ``shared/specs/deps.md`` §4):

- **Rounds.** ``max_rounds`` caps re-plans (Table 4: 0, 1, 3, 5, None for unlimited); unlimited
  still stops at ``ROUND_LIMIT`` = 30 re-plans (the paper's bound is the LLM's context) or when
  the world's action budget is spent.
- **Failure.** A goal fails when its recipe cannot be applied (the world's first false
  precondition). A plan whose goals all succeed without the target in the inventory fails on
  its last step ("the plan ends without <item>").
- **Unreadable plans.** An answer with goal lines that cannot be parsed is not run: the lines
  and what is wrong with them are described to the planner, and the answer counts as a round.
- **Plan check** (``check_plan=True``, pddlkit's addition, :mod:`.check`): every new plan is
  first run on a copy of the world and its stated recipes compared with the model's; the first
  goal that would fail is described and explained before any action is spent (a round, with no
  actions). A misstated recipe in a plan that would succeed is a warning: the plan runs (no
  round spent), and the dialogue says what was misstated.
- **Plan completion** (``complete_plan=True``, pddlkit's addition, issue 48,
  :mod:`.complete`): before a plan runs, the goals whose prerequisites it lacks get the goals
  the world model's planner finds for them, marked as the world model's in the dialogue and in
  the episode's ``completions``; unknown items and unreachable goals are left out with the
  model's sentence. The completed plan is what the check and the selector see.
- **Selector** (``selector=`` exact | learned | order | random): see :mod:`.select`.
- **Context.** When the model's context is known (``local:`` servers), the dialogue sent is
  trimmed to fit it with room for the answer (:data:`ANSWER_TOKENS`): the opening prompt, the
  question and the first plan stay, the oldest failure rounds after them go first, and a
  ``User:`` line says how many were left out. The episode's record keeps the whole dialogue.
- **The LLM fails** (a server error, a time-out, a refused request): the episode ends there as
  a failure whose record names the error (code ``llm-error``); the run goes on and its summary
  is printed, so nothing already played is lost.
- **Worlds.** The crafting world (:class:`~pddlkit.envs.craft.CraftWorld`) and Crafter
  (:class:`~pddlkit.envs.crafter_world.CrafterWorld`) both run goals with ``run_goal(kind,
  item, count)`` and report the first false precondition. The plan check and the selector read
  the crafting world's PDDL model, so on Crafter goals run in plan order without a check.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Optional

from pddlkit.envs.craft import CraftFailure, CraftWorld
from pddlkit.llm.context import fit_by_dropping, room

from .check import check_plan
from .describe import (describe_check, describe_failure, describe_misstated, describe_success,
                       describe_unreadable)
from .explain import Explainer, SymbolicExplainer
from .goals import Goal, parse_plan
from .prompts import planner_prompt
from .select import PREDICTORS, select

ROUND_LIMIT = 30
#: tokens kept free for one planner answer when the dialogue is trimmed to the context
ANSWER_TOKENS = 1024
@dataclass
class DepsConfig:
    max_rounds: Optional[int] = None      # None: unlimited (up to ROUND_LIMIT)
    selector: str = "order"               # exact | learned | order | random
    sample: bool = True                   # selector: sample by softmax, or take the nearest
    check_plan: bool = False
    temperature: float = 0.0
    seed: int = 0
    #: decode plans under the goal-plan grammar (:mod:`.grammar`) where the server takes it
    constrained: bool = False
    #: complete each plan with the world model before it runs (:mod:`.complete`)
    complete_plan: bool = False

    def __post_init__(self) -> None:
        if self.max_rounds is not None and self.max_rounds < 0:
            raise ValueError(f"max_rounds must be >= 0 or None, got {self.max_rounds}")
        if self.selector not in PREDICTORS:
            raise ValueError(f"selector must be one of {', '.join(PREDICTORS)}, got "
                             f"{self.selector!r}")


@dataclass
class FailureRecord:
    round: int
    line: str
    code: str                 # the world's failure code (or "unreadable", "incomplete")
    missing: Optional[str]    # the precondition that was false
    explanation: str
    checked: bool = False     # found by the plan check, before acting

    @property
    def named(self) -> bool:
        """Whether the explanation names the false precondition."""
        return self.missing is not None and self.missing in self.explanation


@dataclass
class DepsEpisode:
    task: str
    group: str
    won: bool
    rounds: int               # re-plans
    actions: int              # recipe applications spent
    goals_run: int
    failures: list[FailureRecord] = field(default_factory=list)
    dialogue: str = ""
    horizons: list = field(default_factory=list)   # (item, missing, actions) per goal run
    #: per plan the world model completed (``complete_plan``): its round, the goals it
    #: inserted and the ones it refused (:meth:`.complete.Completion.as_dict`)
    completions: list = field(default_factory=list)

    @property
    def goals_inserted(self) -> int:
        return sum(len(c["inserted"]) for c in self.completions)

    @property
    def goals_refused(self) -> int:
        return sum(len(c["refused"]) for c in self.completions)

    def as_dict(self) -> dict:
        return {"task": self.task, "group": self.group, "won": self.won, "rounds": self.rounds,
                "actions": self.actions, "goals_run": self.goals_run,
                "failures": [f.__dict__ for f in self.failures],
                "completions": self.completions}


class Deps:
    """``Deps(llm, explainer=SymbolicExplainer()).run(CraftWorld(task="stone_pickaxe"))``."""

    def __init__(self, llm: Any, explainer: Optional[Explainer] = None,
                 config: Optional[DepsConfig] = None, predictor: Any = None) -> None:
        self.llm = llm
        self.explainer = explainer or SymbolicExplainer()
        self.config = config or DepsConfig()
        self.predictor = predictor or PREDICTORS[self.config.selector]()
        self.rng = random.Random(self.config.seed)
        self.modes: list[str] = []   # each constrained call's Completion.constraint_mode
        self.items: tuple[str, ...] = ()   # the world's item names, for the grammar

    def _ask(self, dialogue: list[str], label: str) -> str:
        extra = {}
        if self.config.constrained and self.items:
            from .grammar import plan_grammar

            extra["constraint"] = plan_grammar(self.items)
        done = self.llm.complete([{"role": "user", "content": "\n".join(
                                      fit_dialogue(dialogue, room(self.llm, ANSWER_TOKENS)))
                                   + f"\n{label}:"}],
                                 temperature=self.config.temperature, stop=["Descriptor:",
                                                                            "User:"], **extra)
        if extra:
            self.modes.append(done.constraint_mode)
        answer = done.text
        dialogue.append(f"{label}: {answer.strip()}")
        return answer

    def run(self, world: Any, seed: Optional[int] = None) -> DepsEpisode:
        """One episode; an LLM failure ends it as a failure naming the error (see the module)."""
        from pddlkit.llm.errors import LLMError

        if not isinstance(world, CraftWorld) and (self.config.check_plan
                                                  or self.config.selector != "order"):
            raise ValueError(f"{type(world).__name__} has no PDDL model: the plan check and "
                             f"the selector need the crafting world (use check_plan=False, "
                             f"selector='order')")
        if self.config.complete_plan and not isinstance(world, CraftWorld) and \
                getattr(world, "game", "") != "Crafter":
            raise ValueError(f"{type(world).__name__} has no recipe model: plan completion "
                             f"needs the crafting world or Crafter (complete_plan=False)")
        self.items = _item_names(world) if self.config.constrained else ()
        world.reset(seed)
        item = world.target
        game = getattr(world, "game", "Minecraft")
        dialogue = [planner_prompt(game), "==========",
                    f"User: How to obtain 1 {item} in {game} step-by-step?"]
        cap = ROUND_LIMIT if self.config.max_rounds is None else self.config.max_rounds
        rounds, goals_run = 0, 0
        failures: list[FailureRecord] = []
        horizons: list = []
        completions: list = []
        try:
            answer = self._ask(dialogue, "Planner")
        except LLMError as exc:
            answer = None
            failures.append(_llm_failure(rounds, exc))
        while answer is not None:
            parsed = parse_plan(answer)
            goals = list(parsed.goals)
            problem: Optional[tuple[str, Optional[Goal], Optional[CraftFailure], bool]] = None
            if not parsed.errors and self.config.complete_plan:
                from .complete import complete_plan

                completed = complete_plan(world, goals)
                if completed.changed:
                    dialogue.append(f"Descriptor: {completed.describe()}")
                    completions.append({"round": rounds, **completed.as_dict()})
                goals = completed.goals
            if parsed.errors:
                problem = (describe_unreadable(parsed.errors), None, None, False)
            elif self.config.check_plan:
                problem, note = self._check(world, goals)
                if note:   # warnings only: the plan runs, the planner is told
                    dialogue.append(f"Descriptor: {note}")
            if problem is None:
                problem, ran = self._execute(world, goals, horizons)
                goals_run += ran
            if world.won:
                dialogue.append(f"Descriptor: {problem[0]}")
                break
            text, goal, failure, checked = problem
            dialogue.append(f"Descriptor: {text}")
            if goal is not None:
                try:
                    explanation = self.explainer.explain(goal, failure, world)
                except LLMError as exc:  # the LLM explainer's call
                    failures.append(_llm_failure(rounds, exc))
                    break
            else:
                explanation = "Because some lines of the plan are not goals I can run."
            dialogue.append(f"Explainer: {explanation}")
            failures.append(FailureRecord(rounds, goal.call if goal else "",
                                          failure.code if failure else "unreadable",
                                          failure.missing if failure else None, explanation,
                                          checked))
            if rounds >= cap or world.actions >= world.max_actions or getattr(world, "dead",
                                                                                False):
                break
            dialogue.append(f'User: Please fix the above errors and replan the task "obtain 1 '
                            f'{item}".')
            rounds += 1
            try:
                answer = self._ask(dialogue, "RePlanner")
            except LLMError as exc:
                failures.append(_llm_failure(rounds, exc))
                break
        return DepsEpisode(item, world.group, world.won, rounds, world.actions,
                           goals_run, failures, "\n".join(dialogue), horizons, completions)

    def _check(self, world: CraftWorld, goals: list[Goal]):
        """(problem or None, a note of warnings for a plan that runs anyway, or "")."""
        found = check_plan(world, goals)
        warnings = found.warning_text()
        if found.error is None:
            return None, (f"Before acting, the check notes that the plan misstates recipes "
                          f"({warnings}); it would still succeed, so it runs."
                          if warnings else "")
        step, goal, failure = found.error
        if found.warnings:
            # a misstated recipe before the failing step is its likely cause (the planks run
            # short because the table costs 4, not 3): explain the cause, name the symptom
            wstep, wgoal, wfailure = found.warnings[0]
            text = (describe_misstated(wstep, wgoal.call, world.inventory)
                    + f' Step {step} "{goal.call}" would then fail: {failure.message}.')
            return (text, wgoal, wfailure, True), ""
        return (describe_check(step, goal.call, world.inventory), goal, failure, True), ""

    def _execute(self, world: CraftWorld, goals: list[Goal], horizons: list):
        """Run the goals (the selector picks the order); (problem or None, goals run)."""
        numbered = list(enumerate(goals, 1))
        done: list[int] = []
        ran = 0
        while numbered and not world.won:
            pick = select([g for _, g in numbered], world.inventory, self.predictor, self.rng,
                          self.config.sample)
            step, g = numbered.pop(pick)
            before, missing = world.actions, max(0, g.count - world.inventory.get(g.item, 0))
            outcome = world.run_goal(g.kind, g.item, g.count)
            ran += 1
            if not outcome.ok:
                return (describe_failure(done, step, g.call, world.inventory), g,
                        outcome.failure, False), ran
            horizons.append((g.item, missing, world.actions - before))
            done.append(step)
        if world.won:
            return (describe_success(done), None, None, False), ran
        last = goals[-1] if goals else Goal("craft", world.target, 1)
        return (describe_failure(done[:-1], done[-1] if done else 1, last.call,
                                 world.inventory), last, _incomplete(world.target), False), ran


def _llm_failure(round_: int, exc: Exception) -> FailureRecord:
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return FailureRecord(round_, "", "llm-error", None, f"the LLM failed: {message}")


def fit_dialogue(dialogue: list[str], budget: Optional[int]) -> list[str]:
    """The dialogue within ``budget`` tokens (see the module docstring, Context): the opening,
    the question and the first plan kept; whole failure rounds dropped oldest first
    (:func:`pddlkit.llm.context.fit_by_dropping`)."""
    head, rest = dialogue[:4], dialogue[4:]
    # rounds start at each "Descriptor:" line (Descriptor, Explainer, User fix, RePlanner)
    starts = [i for i, line in enumerate(rest) if line.startswith("Descriptor:")][1:]
    rounds = [rest[a:b] for a, b in zip([0, *starts], [*starts, len(rest)])] if rest else []

    def lines(kept, dropped: int) -> list[str]:
        note = [f"User: ({dropped} earlier round{'s' if dropped > 1 else ''} left out to fit "
                "the model's context.)"] if dropped else []
        return head + note + [line for r in kept for line in r]

    _, dropped = fit_by_dropping(lambda kept, n: "\n".join(lines(kept, n)), rounds, budget,
                                 keep_last=0)
    return lines(rounds[dropped:], dropped)


def _item_names(world: Any) -> tuple[str, ...]:
    """The item names a plan may use in ``world``: every item, material and tool of its
    recipes (the crafting world's table, or Crafter's rules)."""
    if getattr(world, "game", "") == "Crafter":
        from pddlkit.envs.crafter_world import recipes
    else:
        from pddlkit.envs.craft import recipes
    names: set = set()
    for r in recipes():
        names.add(r.item)
        names.update(m for m, _ in r.materials)
        if r.tool:
            names.add(r.tool)
    return tuple(sorted(names))


def _incomplete(item: str) -> CraftFailure:
    return CraftFailure("incomplete", f"the plan ends without {item} in my inventory",
                        missing=item)
