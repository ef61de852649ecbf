"""``refused_steps`` (issue 75): while the model writes the domain, a plan's first step is
never a command the world refused from the very facts the plan starts from, nor, where the
environment lists every command it would take now, one that list leaves out.

Why: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at
8336b36): its toggleobject added seven atoms (``(holds ?l ?r)``, ``(hot ?l ?r)``, ...) and
was refused at every use, so no observation refuted its effect; the schema check set it aside
(no rewrite over the model's predicates explained the refusal), it stayed the one-step way to
four goals, and ``use creditcard 2`` was planned four times from the same five facts until the
repeated-answer limit ended the episode. Planning the same command from the same believed
state can only be refused again: the world already said so. With the refused step kept out
(at a516ea4), the planner chose the same command over another receptacle (``use creditcard
2`` names no receptacle: ``(toggleobject creditcard_2 cabinet_1)``), so a command is kept
out whatever fills the parameters its words do not name. And each episode began with
commands over words no game object has (``use middle``, ``use room``, ``slice textworld with
textworld``: 4 of seed 1's first 4 commands), which a complete list of the commands the game
would take leaves out: the world has said it would refuse them before they are tried.

How, and what stays the model's: the files the model wrote are what is recorded, checked
against the transitions, kept and saved; the planner alone is given them with a guard
(:func:`guarded`):

* a 0-ary predicate ``(plan-start)``, true in ``:init`` and deleted by every action, so it
  holds only before a plan's first step;
* per action with a refused command, ``(refused-here-<action> <the parameters its command
  names>)``, true for each refused command, and ``(or (not (plan-start)) (not
  (refused-here-<action> ...)))`` joined to its precondition;
* where the list is complete, per action ``(listed-here-<action> <the parameters its
  command names>)``, true for each listed command, and ``(or (not (plan-start))
  (listed-here-<action> ...))`` joined to its precondition (an action none of whose commands
  is listed cannot be the first step).

Not guarded: a command over a name the files do not declare (they could not plan it), files
with errors of their own (the planner says them at the model's own lines), and a domain that
names a predicate as the guard does. A limit, written down: where the list is not complete,
a first step that changes no fact (a move in place) lets a refused command come second from
the same facts; where it is complete, such a step is not listed.

So a kept-out command may come later in a plan (after other steps the state differs: "open
sinkbasin 1" refused where the facts wrongly put the player at the sinkbasin can follow "go
to sinkbasin 1"), and a refusal's guard goes once the facts change. A goal only a kept-out
first step reaches is then unsolvable, and the planner says so; the loop asks for another
goal, as for any unsolvable goal. Acted: counted once per guarded planning call
(``refused-steps``), each one a ``steps-kept-out`` event naming the refused commands kept out
(the listed ones are the game's list, not named).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional, Sequence

#: the 0-ary predicate true only before a plan's first step
START = "plan-start"
#: the prefixes of the predicates naming an action's refused and listed commands
REFUSED, LISTED = "refused-here-", "listed-here-"
#: a pattern's argument its command does not name (any object fills it)
ANY = "?"


def refused_here(transitions, state: frozenset) -> list[str]:
    """The ground actions (``(toggleobject creditcard_2 countertop_1)``) of ``transitions``
    the world refused when the facts believed before them were exactly ``state``, once each,
    in order."""
    out: list[str] = []
    for t in transitions:
        if not t.succeeded and frozenset(t.before) == state and t.action not in out:
            out.append(t.action)
    return out


def as_command(step: str, signatures: dict) -> str:
    """A ground action as the command it stands for: the arguments its action's command
    template does not name are :data:`ANY` (``use {l}``: ``(toggleobject creditcard_2
    countertop_1)`` -> ``(toggleobject creditcard_2 ?)``); unchanged when the action has no
    template with slots."""
    words = step.strip().strip("()").lower().split()
    if not words:
        return step
    name, *args = words
    params, template = next(((p, t) for a, (p, t) in signatures.items() if a.lower() == name),
                            ((), ""))
    shown = set(re.findall(r"\{(\w+)\}", template))
    if not shown or len(params) != len(args):
        return step
    kept = [a if v.lstrip("?") in shown else ANY for (v, _t), a in zip(params, args)]
    return "(" + " ".join((name, *kept)) + ")"


def guarded(domain_text: str, problem_text: str, refused: Sequence[str],
            listed: Optional[Sequence[str]] = None) -> Optional[tuple[str, str]]:
    """The files with the ``refused`` commands kept out of a plan's first step, and, when
    ``listed`` is given (a complete list), every command it leaves out (see the module).
    A command is a ground action whose arguments may be :data:`ANY`. None when either file
    cannot be read, or nothing is guarded (no command names an action of the domain with its
    arity, and no list)."""
    from pddlkit.pddl.model import And, Atom, Literal, Not, Or, Predicate
    from pddlkit.pddl.reader import read_domain, read_problem
    from pddlkit.pddl.writer import write_domain, write_problem

    domain, _ = read_domain(domain_text)
    problem, _ = read_problem(problem_text)
    if domain is None or problem is None or any(
            p.name.lower() == START or p.name.lower().startswith((REFUSED, LISTED))
            for p in domain.predicates):   # the model's own name: no guard of that name
        return None
    named = {o.name.lower() for o in (*problem.objects, *domain.constants)}
    no = _by_action(domain, refused, named)
    yes = _by_action(domain, listed or (), named)
    if not no and listed is None:
        return None
    start = Atom(START)
    actions, predicates, init = [], [Predicate(START)], [start]
    for action in domain.actions:
        name = action.name.lower()
        guards = []
        for prefix, given in ((REFUSED, no), (LISTED, yes)):
            if name not in given:
                continue
            mask, values = given[name]
            params = tuple(p for p, keep in zip(action.parameters, mask) if keep)
            mark = Atom(prefix + name, tuple(p.name for p in params))
            predicates.append(Predicate(mark.predicate, params))
            init += [Atom(mark.predicate, v) for v in values]
            guards.append(Or((Not(start), Not(mark) if prefix == REFUSED else mark)))
        if listed is not None and name not in yes:
            guards.append(Not(start))   # none of its commands is listed: never first
        pre = action.precondition
        if guards:
            pre = And(((pre,) if pre != And(()) else ()) + tuple(guards))
        actions.append(dataclasses.replace(action, precondition=pre,
                                           effects=action.effects + (
                                               Literal(start, positive=False),)))
    needs = [r for r in (":negative-preconditions", ":disjunctive-preconditions")
             if r not in domain.requirements]
    domain = dataclasses.replace(domain, requirements=domain.requirements + tuple(needs),
                                 predicates=domain.predicates + tuple(predicates),
                                 actions=tuple(actions))
    problem = dataclasses.replace(problem, init=problem.init + tuple(dict.fromkeys(init)))
    return write_domain(domain), write_problem(problem)


def _by_action(domain, commands: Sequence[str], named: set
               ) -> dict[str, tuple[tuple, list]]:
    """action -> (which of its parameters the commands name, each command's values of them):
    the commands that name an action of ``domain`` with its arity, over objects the files
    declare (``named``: a listed "go to middle of room" the model never declared is no step
    its files can plan), the first command's pattern deciding which parameters are named
    (an action's template names the same ones every time)."""
    out: dict[str, tuple[tuple, list]] = {}
    for command in commands:
        words = command.strip().strip("()").lower().split()
        if not words:
            continue
        name, *args = words
        action = next((a for a in domain.actions if a.name.lower() == name), None)
        if action is None or len(action.parameters) != len(args) or \
                any(a != ANY and a not in named for a in args):
            continue
        mask = tuple(a != ANY for a in args)
        if out.setdefault(name, (mask, []))[0] != mask:
            continue
        values = tuple(a for a in args if a != ANY)
        if values not in out[name][1]:
            out[name][1].append(values)
    return out


class RefusedSteps:
    """The ``refused_steps`` help: the guard of one episode's planning calls (see the
    module); the formalizer asks it for the files the planner is given
    (:class:`..modular.roles.GuardsPlans`)."""

    def guard(self, formalizer, domain_text: str, problem_text: str, context
              ) -> tuple[str, str, list[str]]:
        """(domain, problem, the refused commands kept out): the files unchanged and no
        command when nothing is to be guarded, or the files cannot be read. The facts the
        problem starts from are read as the transitions' were (its ``:init`` under its
        domain, :func:`..evidence.believed_states`)."""
        from pddlkit.semantics.state import format_atom

        from ..evidence import believed_states
        from ..modular.parts import _bind_command

        from pddlkit.checks import check

        if not check(domain_text, problem_text, planner=None).ok:
            # the model's own errors are said at its own lines, not the guarded files'
            return domain_text, problem_text, []
        signatures = formalizer._signatures_seen or {}
        listed = None
        if context is not None and context.commands_complete and signatures:
            listed = [c for c in (_listed(str(c), signatures, _bind_command)
                                  for c in context.valid_actions) if c]
        evidence = formalizer.evidence
        mine = [t for t in evidence.transitions[evidence.episode_start:] if not t.succeeded]
        refused: list[str] = []
        if mine:
            beliefs = believed_states(domain_text, problem_text, [])
            if beliefs is not None:
                state = frozenset(format_atom(a) for a in beliefs.states[0].atoms)
                refused = list(dict.fromkeys(as_command(step, signatures)
                                             for step in refused_here(mine, state)))
        both = guarded(domain_text, problem_text, refused, listed) \
            if refused or listed is not None else None
        if both is None:
            return domain_text, problem_text, []
        return both[0], both[1], refused


def _listed(command: str, signatures: dict, bind) -> str:
    """A listed command as a command pattern (the parameters it does not name :data:`ANY`),
    read through its action's template (``bind``: :func:`..modular.parts._bind_command`), or
    one a template without slots is word for word ("look", "inventory"); "" when no action's
    template reads it."""
    bound = bind(command, signatures)
    if bound is None:
        said = " ".join(command.lower().split())
        name = next((a for a, (_p, t) in signatures.items()
                     if "{" not in t and " ".join(t.lower().split()) == said), None)
        if name is None:
            return ""
        bound = (name, {})
    name, binding = bound
    params = next((p for a, (p, _t) in signatures.items() if a == name), ())
    return "(" + " ".join((name.lower(), *(binding.get(v, ANY) for v, _t in params))) + ")"
