"""``refused_steps`` (issue 75): while the model writes the domain, a ground action the world
refused in the very state a plan starts from is not that plan's first step.

Why: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at
8336b36): its toggleobject added seven atoms (``(holds ?l ?r)``, ``(hot ?l ?r)``, ...) and
was refused at every use, so no observation refuted its effect; the schema check set it aside
(no rewrite over the model's predicates explained the refusal), it stayed the one-step way to
four goals, and ``use creditcard 2`` was planned four times from the same five facts until the
repeated-answer limit ended the episode. Planning the same step from the same believed state
can only be refused again: the world already said so.

How, and what stays the model's: the files the model wrote are what is recorded, checked
against the transitions, kept and saved; the planner alone is given them with a guard
(:func:`guarded`), only when the facts a plan starts from are exactly those a refused
command of this episode was tried in (``SchemaEvidence.transitions``, the facts believed
before each command):

* a 0-ary predicate ``(plan-start)``, true in ``:init`` and deleted by every action, so it
  holds only before a plan's first step;
* per action with such a refusal, ``(refused-here-<action> <its parameters>)``, true in
  ``:init`` for each refused argument list, and ``(or (not (plan-start)) (not
  (refused-here-<action> ...)))`` joined to its precondition.

So the same step may come later in a plan (after other steps the state differs: "open
sinkbasin 1" refused where the facts wrongly put the player at the sinkbasin can follow "go
to sinkbasin 1"), and the guard goes once the facts change. A plan that only the refused step
reaches is then unsolvable with the guard, and the planner's message says so; the loop asks
for another goal, as for any unsolvable goal. Acted: counted once per guarded planning call
(``refused-steps``), with the steps in the record's ``help-acted`` counts.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

#: the 0-ary predicate true only before a plan's first step
START = "plan-start"
#: the prefix of the predicate naming an action's refused argument lists
REFUSED = "refused-here-"


def refused_here(transitions, state: frozenset) -> list[str]:
    """The ground actions (``(toggleobject creditcard_2 countertop_1)``) of ``transitions``
    the world refused when the facts believed before them were exactly ``state``, once each,
    in order."""
    out: list[str] = []
    for t in transitions:
        if not t.succeeded and frozenset(t.before) == state and t.action not in out:
            out.append(t.action)
    return out


def guarded(domain_text: str, problem_text: str, steps: list[str]
            ) -> Optional[tuple[str, str]]:
    """The files with ``steps`` (ground actions) kept out of a plan's first step (see the
    module), or None when either file cannot be read or no step names an action of the
    domain with its arity."""
    from pddlkit.pddl.model import And, Atom, Literal, Not, Or, Predicate
    from pddlkit.pddl.reader import read_domain, read_problem
    from pddlkit.pddl.writer import write_domain, write_problem

    domain, _ = read_domain(domain_text)
    problem, _ = read_problem(problem_text)
    if domain is None or problem is None:
        return None
    by_action: dict[str, list[tuple]] = {}
    for step in steps:
        name, *args = step.strip("() ").lower().split()
        action = next((a for a in domain.actions if a.name.lower() == name), None)
        if action is not None and len(action.parameters) == len(args):
            by_action.setdefault(action.name.lower(), []).append(tuple(args))
    if not by_action:
        return None
    start = Atom(START)
    actions, predicates = [], [Predicate(START)]
    for action in domain.actions:
        effects = action.effects + (Literal(start, positive=False),)
        pre = action.precondition
        if action.name.lower() in by_action:
            mark = Atom(REFUSED + action.name.lower(), tuple(p.name for p in action.parameters))
            predicates.append(Predicate(mark.predicate, action.parameters))
            pre = And(((pre,) if pre != And(()) else ()) + (Or((Not(start), Not(mark))),))
        actions.append(dataclasses.replace(action, precondition=pre, effects=effects))
    needs = [r for r in (":negative-preconditions", ":disjunctive-preconditions")
             if r not in domain.requirements]
    domain = dataclasses.replace(domain, requirements=domain.requirements + tuple(needs),
                                 predicates=domain.predicates + tuple(predicates),
                                 actions=tuple(actions))
    init = (start,) + tuple(Atom(REFUSED + name, args) for name, lists in by_action.items()
                            for args in lists)
    problem = dataclasses.replace(problem, init=problem.init + init)
    return write_domain(domain), write_problem(problem)


class RefusedSteps:
    """The ``refused_steps`` help: the guard of one episode's planning calls (see the
    module); the formalizer asks it for the files the planner is given
    (:class:`..modular.roles.GuardsPlans`)."""

    def guard(self, formalizer, domain_text: str, problem_text: str
              ) -> tuple[str, str, list[str]]:
        """(domain, problem, the steps kept out): the files unchanged and no step when the
        facts the problem starts from (read as the transitions' were: its ``:init`` under its
        domain, :func:`..evidence.believed_states`) match no refused command's, or the files
        cannot be read."""
        from pddlkit.semantics.state import format_atom

        from ..evidence import believed_states

        evidence = formalizer.evidence
        mine = evidence.transitions[evidence.episode_start:]
        if not any(not t.succeeded for t in mine):
            return domain_text, problem_text, []
        beliefs = believed_states(domain_text, problem_text, [])
        if beliefs is None:
            return domain_text, problem_text, []
        state = frozenset(format_atom(a) for a in beliefs.states[0].atoms)
        steps = refused_here(mine, state)
        both = guarded(domain_text, problem_text, steps) if steps else None
        if both is None:
            return domain_text, problem_text, []
        return both[0], both[1], steps
