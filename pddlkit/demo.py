"""``pddlkit demo``: what the toolkit does, offline, on the bundled CoinCollector domain.

It shows the language core and the planner: a checked domain, an LLM-style broken domain with
the diagnostics an LLM would get back, plan validation that names the failing step and the
false precondition atoms, a plan found by Fast Downward, and the explanation pddlkit gives when
a model (here: one missing connection) leaves no plan.
"""

from __future__ import annotations

from .checks import check
from .pddl.plan import parse_plan
from .planners import plan as find_plan
from .semantics.validate import validate_plan

# What LLMs typically get wrong (from the PDDLego+ logs): a ':preconditions' typo, an
# undeclared variable, a predicate used with the wrong arity and a missing ')'.
BROKEN_DOMAIN = """(define (domain coin-collector)
  (:requirements :strips :typing)
  (:types room direction)
  (:predicates (at ?r - room) (door-open ?a - room ?b - room ?d - direction))
  (:action open-door
    :parameters (?loc1 - room ?loc2 - room ?dir - direction)
    :preconditions (at ?loc1)
    :effect (door-open ?loc1 ?loc2 ?dir))
  (:action move
    :parameters (?from - room ?to - room)
    :precondition (and (at ?from) (door-open ?from ?to)
    :effect (and (not (at ?from)) (at ?to) (visited ?dest))))
"""


def _rule(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 66 - len(title)))


def _domain_path(name: str):
    try:
        from pddlkit.domains import path
    except ImportError:  # running from a source tree without install
        from domains import path  # type: ignore
    return path(name)


def _plugin_demos() -> bool:
    """Demos of the front ends (the PDDLego+ loop), found through ``pddlkit.demos`` entry
    points so that this core module never imports them."""
    from .plugins import entry_points_of

    ok = True
    for ep in entry_points_of("pddlkit.demos"):
        ok = bool(ep.load()()) and ok
    return ok


def run_demo() -> int:
    domain = _domain_path("coin-collector/domain.pddl")
    problem = _domain_path("coin-collector/p3.pddl")
    plan_file = _domain_path("coin-collector/p3.plan")

    _rule("1. check the reference CoinCollector model")
    report = check(domain, problem)
    print(report.format())
    print("OK" if report.ok else "FAILED")

    _rule("2. check an LLM-written domain with typical mistakes")
    bad = check(BROKEN_DOMAIN)
    print(bad.format())
    print(f"-> {len(bad.errors)} error(s), each with a line, a caret and a hint to fix it")

    _rule("3. validate a plan")
    plan = parse_plan(plan_file)
    result = validate_plan(report.domain, report.problem, plan)
    print(plan.to_text().rstrip())
    print(("VALID: " if result.valid else "INVALID: ") + result.explain())

    _rule("4. validate the same plan with its first step removed")
    broken = validate_plan(report.domain, report.problem, plan.without(0))
    print(("VALID: " if broken.valid else "INVALID: ") + broken.explain())

    _rule("5. plan with Fast Downward (validated before it is returned)")
    found = find_plan(domain, problem)
    print(found.format())

    _rule("6. the LLM forgot a connection: why is there no plan?")
    text = problem.read_text()
    missing = text.replace("(connected patio backyard west)", "")
    nothing = find_plan(domain, missing)
    print(nothing.format())

    ok = (report.ok and not bad.ok and result.valid and not broken.valid and found.solved
          and nothing.status == "unsolvable" and nothing.explanation is not None
          and bool(nothing.explanation.unreachable_goals))
    ok = _plugin_demos() and ok
    print("\ndemo finished" + ("" if ok else " with unexpected results"))
    return 0 if ok else 1
