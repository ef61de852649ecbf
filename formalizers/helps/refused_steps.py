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
  is listed cannot be the first step);
* per plan refused at a later command from the same facts (``go to cabinet 1`` then ``slice
  creditcard 1 with butterknife 1``: the household at 05094fe planned such a pair up to three
  times from the same facts, and the world, restored, refused it each time), stages
  ``(prefix-J-I)`` that hold right after a plan's first I steps were that plan's (conditional
  effects), and its refused command kept out of its last stage: no plan begins that way again
  (the same commands after another first step stay open);
* per action the world refused over :data:`KEPT_OUT_AFTER` or more different commands, each
  at the end of a plan begun from the same facts, a 0-ary ``(kept-out-<action>)`` in
  ``:init`` and its negation joined to the action's precondition: no plan from these facts
  takes that action at any step. Measured at 1734ac0 (the household, dev seed 1): with each
  refused plan kept from beginning the same way, the planner's next plan was the same
  command over other objects (``slice ladle 1 with bread 1``, ``with cup 1``, ``with
  desklamp 1``, ``with ladle 1``: the model's sliceobject holds wherever the player is, and
  no predicate of the model's says what can be sliced), refused each time, 11 refusals a
  seed. Two refusals over different objects from the same facts say the schema, as
  written, does not tell when the action works; planning it again from those facts spends
  a step on what the world has twice refused. The choice is the facts, not the action: once
  a step changes the facts believed, the action may be planned again.
* per command the world refused at the end of :data:`KEPT_OUT_AFTER` or more different
  plans begun from the same facts (``use butterknife 1`` after one move, then after
  another: the household at 759d03f, five times), ``(kept-out-command-<action> <the
  parameters its command names>)`` in ``:init`` and its negation joined to the action's
  precondition: that command is no step of a plan from those facts
  (:func:`refused_commands`).

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
(``refused-steps``), each one a ``steps-kept-out`` event naming the refused commands, the
refused plans' beginnings and the actions kept out, each with why (the listed commands are
the game's list, not named).
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
#: the prefix of the 0-ary predicate that keeps an action out of every step of a plan
KEPT = "kept-out-"
#: the predicate of the names no observation and no listed command of the game has used
UNSEEN = "unseen-name"
#: how many different commands of one action the world refused, from the same facts, before
#: the action is kept out of plans from those facts (one refusal may be the objects'; a
#: second over other objects is the action's, as the model wrote it)
KEPT_OUT_AFTER = 2


def refused_here(transitions, state: frozenset) -> list[str]:
    """The ground actions (``(toggleobject creditcard_2 countertop_1)``) of ``transitions``
    the world refused when the facts believed before them were exactly ``state``, once each,
    in order."""
    out: list[str] = []
    for t in transitions:
        if not t.succeeded and frozenset(t.before) == state and t.action not in out:
            out.append(t.action)
    return out


def refused_plans(plans, state: frozenset) -> list[list]:
    """Of ``plans`` (each plan's transitions as they ran, the refused one last), those that
    began from exactly ``state`` and were refused at a later command, once each, in
    order."""
    out: list[list] = []
    for plan in _refused_at_end(plans, state):
        if len(plan) >= 2 and [t.action for t in plan] not in [[t.action for t in p]
                                                               for p in out]:
            out.append(plan)
    return out


def refused_actions(plans, state: frozenset, signatures: Optional[dict] = None) -> list[str]:
    """The actions (``sliceobject``) the world refused over :data:`KEPT_OUT_AFTER` or more
    different commands, each the refused end of one of ``plans`` (every earlier command of
    it taken) begun from exactly ``state``, in the order first refused. Commands are read
    through ``signatures`` (:func:`as_command`: two ground actions of one command, "use
    creditcard 2" over two receptacles, are one command refused twice, not two)."""
    refused: dict[str, list[str]] = {}
    for plan in _refused_at_end(plans, state):
        words = plan[-1].action.strip().strip("()").lower().split()
        if not words:
            continue
        command = as_command("(" + " ".join(words) + ")", signatures or {})
        if command not in refused.setdefault(words[0], []):
            refused[words[0]].append(command)
    return [name for name, commands in refused.items() if len(commands) >= KEPT_OUT_AFTER]


def refused_commands(plans, state: frozenset, signatures: Optional[dict] = None) -> list[str]:
    """The commands (as :func:`as_command`: ``(toggleobject butterknife_1 ?)``) the world
    refused at the end of :data:`KEPT_OUT_AFTER` or more different plans (every earlier
    command of each taken) begun from exactly ``state``, in the order first refused: the
    same command after different first steps. Measured with Qwen2.5-Coder 1.5B learning the
    household's domain (dev seed 0 at 759d03f): "use butterknife 1" was refused five times,
    each after another move (its toggleobject added what is held, the planner's one way to
    a held thing); each refused plan was kept from beginning the same way, not the command
    from following another move, and the kept-out rule of actions counts different
    commands ("use {l}" names no receptacle: one command)."""
    seen: dict[str, list] = {}
    for plan in _refused_at_end(plans, state):
        command = as_command(plan[-1].action, signatures or {})
        actions = [t.action for t in plan]
        if actions not in seen.setdefault(command, []):
            seen[command].append(actions)
    return [c for c, ways in seen.items() if len(ways) >= KEPT_OUT_AFTER]


def _refused_at_end(plans, state: frozenset) -> list:
    """The plans begun from exactly ``state`` whose last command the world refused, every
    earlier one taken."""
    return [plan for plan in plans
            if plan and not plan[-1].succeeded and all(t.succeeded for t in plan[:-1])
            and frozenset(plan[0].before) == state]


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
    from pddlkit.envs.api import ActionTemplate   # the environment's own reading

    shown = set(ActionTemplate(name, tuple(v for v, _t in params), template).shown)
    if not shown or len(params) != len(args):
        return step
    kept = [a if v.lstrip("?") in shown else ANY for (v, _t), a in zip(params, args)]
    return "(" + " ".join((name, *kept)) + ")"


def guarded(domain_text: str, problem_text: str, refused: Sequence[str],
            listed: Optional[Sequence[str]] = None,
            prefixes: Sequence[Sequence[str]] = (), kept_out: Sequence[str] = (),
            unseen: Sequence[str] = (), shown: Optional[dict] = None,
            one_place: Sequence[str] = (), kept_commands: Sequence[str] = ()
            ) -> Optional[tuple[str, str]]:
    """The files with the ``refused`` commands kept out of a plan's first step, and, when
    ``listed`` is given (a complete list), every command it leaves out; each of
    ``prefixes`` (commands ``c1 .. ck``, the last refused after the others ran) is never
    how a plan begins; the actions named in ``kept_out`` are no step of a plan at all; and
    no step's command names one of ``unseen`` (declared names the game never used; ``shown``:
    action -> which of its parameters its command names) (see the module). A command is a
    ground action whose arguments may be :data:`ANY`. None when either file cannot be read,
    or nothing is guarded (no command names an action of the domain with its arity, no
    action is kept out, no unseen name is in a command, and no list). An action that adds an
    atom of a predicate of ``one_place`` (where the player is) also deletes its other atoms
    (:func:`_one_place_effects`). The commands of ``kept_commands`` are no step of a plan
    at all (:func:`refused_commands`)."""
    from pddlkit.pddl.reader import read_domain, read_problem

    domain, _ = read_domain(domain_text)
    problem, _ = read_problem(problem_text)
    if domain is None or problem is None or any(
            p.name.lower() in (START, UNSEEN)
            or p.name.lower().startswith((REFUSED, LISTED, KEPT))
            for p in domain.predicates):   # the model's own name: no guard of that name
        return None
    named = {o.name.lower() for o in (*problem.objects, *domain.constants)}
    no = _by_action(domain, refused, named)
    yes = _by_action(domain, listed or (), named)
    steps = _prefix_steps(domain, prefixes, named)
    banned = {a.name.lower() for a in domain.actions} & {k.lower() for k in kept_out}
    masks = {a.name.lower(): (shown or {}).get(a.name.lower(), ()) for a in domain.actions}
    hidden = [n for n in dict.fromkeys(u.lower() for u in unseen) if n in named] \
        if any(any(mask) for mask in masks.values()) else []   # else no command names one
    moves = _one_place_effects(domain, one_place)
    never = _by_action(domain, kept_commands, named)
    if not no and listed is None and not steps and not banned and not hidden and not moves \
            and not never:
        return None
    return _guarded_files(domain, problem, (no, yes, listed is not None), steps,
                          (banned, never, hidden, masks), moves)


def _guarded_files(domain, problem, first: tuple, steps: list, anywhere: tuple, moves: dict
                   ) -> tuple[str, str]:
    """:func:`guarded`'s files: each action with its guards of a plan's first step
    (``first``: refused, listed, whether the list is complete), of the refused prefixes
    (``steps``), of any step (``anywhere``: the actions kept out, the commands kept out,
    the unseen names, each action's shown parameters) and the effects that keep the player
    at one place (``moves``); the problem with their facts."""
    from pddlkit.pddl.model import And, Atom, Literal, Predicate
    from pddlkit.pddl.writer import write_domain, write_problem

    (no, yes, complete), (banned, never, hidden, masks) = first, anywhere
    start = Atom(START)
    actions, predicates, init = [], [Predicate(START)], [start]
    if hidden:
        from pddlkit.pddl.model import TypedName

        predicates.append(Predicate(UNSEEN, (TypedName("?x"),)))
        init += [Atom(UNSEEN, (n,)) for n in hidden]
    extra = _prefix_parts(domain, steps, start, predicates, init)
    for action in domain.actions:
        name = action.name.lower()
        guards = list(extra[name][0]) + _first_step_guards(action, no, yes, complete,
                                                            start, predicates, init) \
            + _any_step_guards(action, name in banned, never.get(name),
                               masks[name] if hidden else (), predicates, init)
        effects = extra[name][1] + moves.get(name, [])
        pre = action.precondition
        if guards:
            pre = And(((pre,) if pre != And(()) else ()) + tuple(guards))
        actions.append(dataclasses.replace(action, precondition=pre,
                                           effects=action.effects + (
                                               Literal(start, positive=False),
                                               *effects)))
    needs = [r for r in (":negative-preconditions", ":disjunctive-preconditions")
             + ((":conditional-effects",) if steps or moves else ())
             + ((":equality",) if moves else ()) if r not in domain.requirements]
    domain = dataclasses.replace(domain, requirements=domain.requirements + tuple(needs),
                                 predicates=domain.predicates + tuple(predicates),
                                 actions=tuple(actions))
    problem = dataclasses.replace(problem, init=problem.init + tuple(dict.fromkeys(init)))
    return write_domain(domain), write_problem(problem)


def _any_step_guards(action, banned: bool, never: Optional[tuple], shown: tuple,
                     predicates: list, init: list) -> list:
    """``action``'s guards at any step of a plan: out altogether (``banned``: refused over
    different commands), its commands in ``never`` (mask, values) out, and no parameter its
    command names (``shown``) an unseen name. Their predicates join ``predicates``, their
    values ``init``."""
    from pddlkit.pddl.model import Atom, Not, Predicate

    name, guards = action.name.lower(), []
    if banned:   # no step of any plan from these facts
        kept = Atom(KEPT + name)
        predicates.append(Predicate(kept.predicate))
        init.append(kept)
        guards.append(Not(kept))
    if never:   # these commands at no step of a plan from these facts
        mask, values = never
        params = tuple(p for p, keep in zip(action.parameters, mask) if keep)
        mark = Atom(KEPT + "command-" + name, tuple(p.name for p in params))
        predicates.append(Predicate(mark.predicate, params))
        init += [Atom(mark.predicate, v) for v in values]
        guards.append(Not(mark))
    guards += [Not(Atom(UNSEEN, (p.name,)))   # no command names what the game never named
               for p, says in zip(action.parameters, shown) if says]
    return guards


def _one_place_effects(domain, one_place: Sequence[str]) -> dict[str, list]:
    """action -> the effects that leave the player at one place: for each atom of a
    predicate of ``one_place`` (one argument) the action adds, ``(forall (?other - T) (when
    (and (P ?other) (not (= ?other ?x))) (not (P ?other))))``. The formalizer believes the
    player at one place whatever the model's schemas say (``_single_valued``, ``one_place_kept``);
    the planner is given the same. Why: measured with Qwen2.5-Coder 1.5B learning the
    household's domain (dev seed 0 at 24f3556), its gotolocation added ``(player ?to)`` and
    deleted nothing, so in the planner's model the player stayed where it had been, and
    plans went "go to cabinet 1" then "clean cd 1 with desk 1" ("You are not at the desk 1;
    go to it first."), four refusals in four steps."""
    from pddlkit.pddl.model import And, Atom, ForallEffect, Literal, Not, TypedName, When

    wanted = {p.lower() for p in one_place}
    types = {p.name.lower(): p.parameters for p in domain.predicates}
    out: dict[str, list] = {}
    for action in domain.actions:
        for effect in action.effects:
            if not (isinstance(effect, Literal) and effect.positive
                    and effect.atom.predicate.lower() in wanted
                    and len(effect.atom.args) == 1
                    and len(types.get(effect.atom.predicate.lower(), ())) == 1):
                continue
            place = effect.atom.args[0]
            other = TypedName("?one-place-other", types[effect.atom.predicate.lower()][0].types)
            there = Atom(effect.atom.predicate, (other.name,))
            out.setdefault(action.name.lower(), []).append(ForallEffect((other,), (When(
                And((there, Not(Atom("=", (other.name, place))))),
                (Literal(there, positive=False),)),)))
    return out


def _first_step_guards(action, no: dict, yes: dict, complete: bool, start,
                       predicates: list, init: list) -> list:
    """``action``'s guards of a plan's first step: its refused commands kept out (``no``),
    and, where the list is ``complete``, only its listed ones let in (``yes``; an action none
    of whose commands is listed never comes first). Their predicates join ``predicates``,
    their commands' values ``init``."""
    from pddlkit.pddl.model import Atom, Not, Or, Predicate

    name, guards = action.name.lower(), []
    for prefix, given in ((REFUSED, no), (LISTED, yes)):
        if name not in given:
            continue
        mask, values = given[name]
        params = tuple(p for p, keep in zip(action.parameters, mask) if keep)
        mark = Atom(prefix + name, tuple(p.name for p in params))
        predicates.append(Predicate(mark.predicate, params))
        init += [Atom(mark.predicate, v) for v in values]
        guards.append(Or((Not(start), Not(mark) if prefix == REFUSED else mark)))
    if complete and name not in yes:
        guards.append(Not(start))
    return guards


def _prefix_steps(domain, prefixes: Sequence[Sequence[str]], named: set) -> list[list]:
    """Each prefix of two or more commands, every one of them over an action of ``domain``
    with its arity and over declared names, as [(action, its parameters' mask, values)]."""
    out = []
    for prefix in prefixes:
        steps = []
        for command in prefix:
            read = _by_action(domain, [command], named)
            if not read:
                break
            (name, (mask, values)), = read.items()
            steps.append((name, mask, values[0]))
        if len(steps) == len(prefix) >= 2 and steps not in out:
            out.append(steps)
    return out


def _prefix_parts(domain, prefixes: list, start, predicates: list, init: list) -> dict:
    """action -> (guards joined to its precondition, effects joined to its effect) that keep
    each of ``prefixes`` from beginning a plan: ``(prefix-J-I)`` holds right after the plan's
    first I steps were the prefix's (each step's conditional effect adds the next stage, every
    step deletes the stages), and the prefix's last command is not taken in its last stage.
    The stage and step predicates join ``predicates``, the steps' values ``init``."""
    from pddlkit.pddl.model import And, Atom, Literal, Not, Predicate, When

    out: dict = {a.name.lower(): ([], []) for a in domain.actions}
    for j, steps in enumerate(prefixes):
        stages = [start] + [Atom(f"prefix-{j}-{i}") for i in range(1, len(steps))]
        predicates.extend(Predicate(stage.predicate) for stage in stages[1:])
        for i, (name, mask, values) in enumerate(steps):
            action = next(a for a in domain.actions if a.name.lower() == name)
            params = tuple(p for p, keep in zip(action.parameters, mask) if keep)
            step = Atom(f"prefix-{j}-step-{i}", tuple(p.name for p in params))
            predicates.append(Predicate(step.predicate, params))
            init.append(Atom(step.predicate, values))
            here = And((stages[i], step))
            if i == len(steps) - 1:
                out[name][0].append(Not(here))
            else:
                out[name][1].append(When(here, (Literal(stages[i + 1]),)))
        for guards_effects in out.values():
            guards_effects[1].extend(Literal(stage, positive=False) for stage in stages[1:])
    return out


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
        """(domain, problem, what is kept out, each with why): the files unchanged and no
        command when nothing is to be guarded, or the files cannot be read. The facts the
        problem starts from are read as the transitions' were (its ``:init`` under its
        domain, :func:`..evidence.believed_states`)."""
        from pddlkit.checks import check

        from ..modular.parts import _bind_command

        signatures = formalizer._signatures_seen or {}
        listed = None
        if context is not None and context.commands_complete and signatures:
            listed = [c for c in (_listed(str(c), signatures, _bind_command)
                                  for c in context.valid_actions) if c]
        refused, prefixes, kept_out, again = _refusals(getattr(formalizer, "plans_ran", []),
                                                       domain_text, problem_text, signatures)
        unseen = unseen_names(problem_text, context) if signatures else []
        moves = formalizer._player_predicates()
        if not (refused or prefixes or kept_out or again or unseen or moves
                or listed is not None) or \
                not check(domain_text, problem_text, planner=None).ok:
            # nothing to guard; or the model's own errors, said at its own lines (the
            # planner checks the files it is given), not at the guarded files'
            return domain_text, problem_text, []
        shown = shown_parameters(signatures)
        both = guarded(domain_text, problem_text, refused, listed, prefixes, kept_out,
                       unseen, shown, moves, again)
        if both is None:
            return domain_text, problem_text, []
        said = _said(refused, prefixes, kept_out, again)
        if moves and "?one-place-other" in both[0]:
            said.append("the player at one place: a step that puts it somewhere leaves it "
                        "nowhere else")
        if unseen and any(any(mask) for mask in shown.values()):
            said.append(f"{', '.join(unseen)}: in no step's command, a name the game has "
                        "not used (no observation, no listed command)")
        return both[0], both[1], said

    def shorten(self, formalizer, domain_text: str, problem_text: str, plan):
        """Over a learned entry reused with its aspects (``reused_aspects``): the plan for
        the guarded files less its needless steps (greedy action elimination,
        :func:`pddlkit.semantics.shorten.without_needless_steps`), with a line naming them;
        while the model writes the domain, the plan as found (its learning records replay
        as they were). Why: measured with Qwen2.5-Coder 1.5B over the household's learned
        ``c38cd3aeac63`` frozen (dev seeds 2-3 at ab7874e), 9 of 26 plans began with a walk
        away and back ("go to countertop 1, go to drawer 2", the player at the drawer):
        lama-first's greedy search, not the guard; two actions of a budget of 30 each."""
        if not formalizer._plays_learned():
            return plan, ""
        from pddlkit.semantics.shorten import without_needless_steps

        short = without_needless_steps(domain_text, problem_text, plan)
        if short is plan:
            return plan, ""
        gone = list(plan.steps)
        for step in short.steps:
            gone.remove(step)
        return short, (f"{' '.join(map(str, gone))}: needless in the plan found (the rest "
                       "reaches the goal without them)")


def _said(refused: list[str], prefixes: list, kept_out: list[str], again: list[str]
          ) -> list[str]:
    """The ``steps-kept-out`` event's lines for what the world refused, each with why."""
    begins = ": refused from these very facts, not how a plan begins now"
    return [step + begins for step in refused] + [
        " then ".join(p) + begins for p in prefixes] + [
        f"({name} ...) at any step: refused over {KEPT_OUT_AFTER} or more different "
        "commands from these very facts, in no plan from them now" for name in kept_out] + [
        f"{command} at any step: refused at the end of {KEPT_OUT_AFTER} or more plans from "
        "these very facts, in no plan from them now" for command in again]


def unseen_names(problem_text: str, context) -> list[str]:
    """The objects ``problem_text`` declares that the game has not used: in no observation
    of the episode and no command it lists now (``context``'s memory and valid actions;
    the world's refusals left out, as they echo the command's own words: "You don't see any
    unknown connects of cabinet 1 here."). A command naming one can only be refused: the
    game cannot be told of a thing by a name it never said. Why: measured with
    Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at 9ceef74), a place
    joined to itself was read as a connection to a placeholder (``unknown_connects_of_
    cabinet_1``, :mod:`.here_facts`), plans ended in "take butterknife 1 from unknown
    connects of cabinet 1" after a listed first step, and 5 of the episode's 8 refusals
    named a placeholder. Case, spaces, ``-`` and ``_`` aside (``middle_of_room`` is used by
    the listed "go to middle of room"). [] without a context."""
    from pddlkit.pddl.reader import read_problem

    from ..attempt import observed_text
    from .fact_memory import named_in

    if context is None:
        return []
    problem, _ = read_problem(problem_text)
    if problem is None:
        return []
    seen = "\n".join([observed_text(context.memory), *map(str, context.valid_actions)])
    return [o.name for o in problem.objects if not named_in(o.name, seen)]


def shown_parameters(signatures: dict) -> dict[str, tuple[bool, ...]]:
    """action -> which of its parameters its command names (``go to {to}``: ``?to``; ``move
    {dir}``: ``?dir`` alone), read through the environment's own template reading."""
    from pddlkit.envs.api import ActionTemplate

    out = {}
    for name, (params, template) in signatures.items():
        words = set(ActionTemplate(name, tuple(v for v, _t in params), template).shown)
        out[name.lower()] = tuple(v.lstrip("?") in words for v, _t in params)
    return out


def _refusals(plans, domain_text: str, problem_text: str, signatures: dict
              ) -> tuple[list[str], list[list[str]], list[str], list[str]]:
    """What ``plans`` (the episode's, as they ran) say the world refused from the facts the
    problem starts from (its ``:init`` under its domain, read as the transitions' were:
    :func:`..evidence.believed_states`): the first-step commands, the refused prefixes, the
    actions kept out of every step, and the commands kept out of every step (see
    :class:`RefusedSteps`)."""
    from pddlkit.semantics.state import format_atom

    from ..evidence import believed_states

    episode = [t for plan in plans for t in plan]
    if all(t.succeeded for t in episode):
        return [], [], [], []
    beliefs = believed_states(domain_text, problem_text, [])
    if beliefs is None:
        return [], [], [], []
    state = frozenset(format_atom(a) for a in beliefs.states[0].atoms)
    refused = list(dict.fromkeys(as_command(step, signatures)
                                 for step in refused_here(episode, state)))
    prefixes = [[as_command(t.action, signatures) for t in plan]
                for plan in refused_plans(plans, state)]
    kept_out = [name for name in refused_actions(plans, state, signatures)
                if re.search(rf"\(:action\s+{re.escape(name)}\s", domain_text, re.I)]
    again = [c for c in refused_commands(plans, state, signatures)
             if c.strip("()").split()[0] not in kept_out]
    return refused, prefixes, kept_out, again


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
