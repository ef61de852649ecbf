"""Plan validation: does the plan run, and does it reach the goal?

``validate_plan`` simulates the plan from the initial state with pddlkit's semantics. For the
first step that cannot run it reports the exact precondition literals that are false (or why
the step is malformed: unknown action, wrong number of arguments, unknown object, wrong type);
at the end it reports the goal literals that do not hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from ..pddl.model import Domain, FunctionTerm, Problem
from ..pddl.plan import Plan, PlanStep, parse_plan
from .formulas import Unsatisfied, evaluate, unsatisfied
from .grounding import ground
from .state import State
from .world import World


@dataclass(frozen=True)
class StepFailure:
    index: int  # 0-based position in the plan
    step: PlanStep
    reason: str  # precondition | unknown-action | arity | unknown-object | type
    message: str
    unsatisfied: tuple[Unsatisfied, ...] = ()


@dataclass(frozen=True)
class PlanValidation:
    valid: bool
    steps_executed: int
    failure: Optional[StepFailure] = None
    goal_satisfied: bool = False
    unsatisfied_goal: tuple[Unsatisfied, ...] = ()
    cost: Optional[float] = None
    final_state: Optional[State] = field(default=None, repr=False, compare=False)

    def explain(self) -> str:
        if self.valid:
            return f"valid plan: {self.steps_executed} steps, cost {self.cost:g}"
        if self.failure is not None:
            f = self.failure
            text = f"step {f.index + 1} {f.step} cannot be executed: {f.message}"
            if f.unsatisfied:
                text += "; false: " + ", ".join(str(u) for u in f.unsatisfied)
            return text
        return ("the plan runs but does not reach the goal; not satisfied: "
                + ", ".join(str(u) for u in self.unsatisfied_goal))


def validate_plan(domain: Domain, problem: Problem, plan: Union[Plan, str, list],
                  world: Optional[World] = None) -> PlanValidation:
    if not isinstance(plan, Plan):
        plan = parse_plan(plan)
    world = world or World(domain, problem)
    state = world.initial_state
    uses_cost = _cost_key(problem) is not None
    for i, step in enumerate(plan.steps):
        failure = _check_step(i, step, domain, world)
        if failure is not None:
            return PlanValidation(False, i, failure, False, (), None, state)
        action = domain.action_map[step.name]
        ga = ground(action, step.args)
        missing = ga.unsatisfied(state, world)
        if missing:
            fail = StepFailure(i, step, "precondition", "precondition not satisfied",
                               tuple(missing))
            return PlanValidation(False, i, fail, False, (), None, state)
        state = ga.apply(state, world)
    missing_goal = unsatisfied(problem.goal, state, {}, world)
    cost = _plan_cost(problem, state, len(plan.steps)) if uses_cost else float(len(plan.steps))
    return PlanValidation(not missing_goal, len(plan.steps), None, not missing_goal,
                          tuple(missing_goal), cost, state)


def _check_step(i: int, step: PlanStep, domain: Domain, world: World) -> Optional[StepFailure]:
    action = domain.action_map.get(step.name)
    if action is None:
        return StepFailure(i, step, "unknown-action", f"the domain has no action '{step.name}'")
    if len(step.args) != len(action.parameters):
        return StepFailure(i, step, "arity", f"{step.name} takes {len(action.parameters)} "
                           f"argument(s), the step gives {len(step.args)}")
    for arg, param in zip(step.args, action.parameters):
        if arg not in world.object_types:
            return StepFailure(i, step, "unknown-object", f"unknown object '{arg}'")
        if not world.is_of_type(arg, param.types):
            return StepFailure(i, step, "type", f"'{arg}' is not of type "
                               f"{' or '.join(param.types)} required by {param.name}")
    return None


def _cost_key(problem: Problem):
    if problem.metric is not None and isinstance(problem.metric.expression, FunctionTerm):
        t = problem.metric.expression
        return (t.name, *t.args)
    return None


def _plan_cost(problem: Problem, state: State, length: int) -> float:
    value = evaluate(problem.metric.expression, state, {})
    return value if value is not None else float(length)
