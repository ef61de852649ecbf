"""A domain checked against what the world did: every observed transition is evidence for or
against each action schema (issue 75, the part that needs no LLM).

Why: when a model writes the domain, code knows every command the agent ran, the facts
believed before it, whether the world accepted it, and the facts read after it. A schema
that disagrees with one of those transitions is wrong in a way code can name exactly: the
schema, the transition and the literal. A small model can then be asked to rewrite that one
schema, with that one reason, instead of the whole file.

What is checked, for each :class:`Transition` whose action the domain has (its command
bound to the domain's action, ``(move kitchen corridor east)``; binding a command's words to
an action is the caller's, as the environment's own templates do it):

* **precondition too strong**: the world accepted the command, but the schema's precondition
  is false in the facts before; the finding names the first false literal;
* **precondition too weak**: the world refused the command, but the schema's precondition
  holds (the schema would let a planner use an action the world refuses);
* **effect contradicted**: an atom the schema adds is absent after, or one it deletes is
  still there;
* **effect missing**: an atom that changed between before and after (made true, or made
  false) that the schema does not change.

``after`` is every fact believed after the step (closed world: an atom not in it is false).
Where only what the observation after the step stated is known (a small model's facts of one
sentence, not a whole state), ``observed`` holds those atoms instead, and only what they can
say is checked: an atom stated true that was false before and that the schema does not add
(effect missing), or one the schema deletes (effect contradicted). Only atoms over the
action's own arguments count (``(at kitchen)`` after ``(move corridor kitchen east)``; a door
seen open in the room just entered is something learnt, not something done). Nothing is
concluded from an atom the observation leaves out, except of a predicate the caller names in
``single``: one atom of it holds at a time (where the player is: one place), so an atom of it
stated true makes every other atom of it false (both over the action's arguments: a room the
command named ``unknown_north`` may be the corridor the observation names). A schema that
keeps the player where it was
(no delete of ``(at ?from)``), or that puts it at another of the action's arguments as well,
is then refuted by the observation that states the one place (effect missing, or
contradicted). The same holds of a thing's whereabouts, over the predicates the caller names
in ``whereabouts`` (what the player holds, where each thing is, each with the position of the
thing among its arguments): a thing held is at no place, and at one place at a time, so
``(holds cd_1)`` stated after "take cd 1 from countertop 1" makes ``(in cd_1 countertop_1)``
false, and a take that leaves the thing where it was is refuted (measured with Qwen2.5-Coder
1.5B learning the household's domain, dev seed 0 at 3e72055: its pickupobject deleted
nothing, so the cd was believed still on the countertop, the put that followed "changed"
nothing, and a putobject adding no ``(in ...)`` was never refuted; in seed 1 the task's goal,
the ladle on the countertop, could never be planned).

The effect checks compare only the predicates a transition speaks for: those some action of
the domain changes, and those the caller names in ``fluents`` (a predicate the model forgot
in every effect is still checked when the caller knows it changes, such as ``at``). Atoms of
other predicates that appear after a step (a new room seen, ``(connected corridor pantry
west)``) are what the agent learnt, not what the action did, and are not blamed on it.

Facts and commands that do not fit the domain (an unknown predicate, a wrong arity, an
undeclared object type) are findings too (``facts-do-not-fit``), with the checker's message.
Nothing here reads a simulator's hidden state: only what the caller observed.

The domain library's own check (``formalizers/library.py``, ``checks.json``) asks the
precondition questions of a saved domain, progressing each stored problem's state by the
domain under test; a transition here carries the facts believed at the time instead, and
adds the effects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional, Sequence

#: the kinds of finding, in the order a transition is checked
KINDS = ("facts-do-not-fit", "precondition-too-strong", "precondition-too-weak",
         "effect-contradicted", "effect-missing")


#: a :class:`Finding`'s ``detail`` when a command the environment listed as admissible, not
#: one the agent ran, refuted the schema (:func:`check_listed`)
LISTED = "listed"
#: the ``detail`` when a command a complete list of admissible commands left out refuted the
#: schema: the world would refuse it, and the schema's precondition held (:func:`check_listed`)
UNLISTED = "unlisted"
#: the most fillings of a left-out command's unnamed parameters tried; a command with more
#: readings is not evidence (each check of each rewrite would try them all)
MAX_UNLISTED_FILLINGS = 256


@dataclass(frozen=True)
class Transition:
    """One command the agent ran: ``action`` (the ground action it stands for, as PDDL),
    ``before`` (the facts believed before it), ``succeeded`` (whether the world accepted it),
    ``after`` (the facts believed after it; None when the world refused it or nothing was
    read), ``objects`` (name -> type for the names the facts and the action use), and
    ``where`` (the episode and step, or the command's words, for messages),
    ``observed`` (atoms the observation after it stated true, when no whole state is known:
    see the module), and ``answer`` (the world's words after it, for prompts that show a
    model the action's uses)."""

    action: str
    before: frozenset
    succeeded: bool
    after: Optional[frozenset] = None
    objects: Mapping[str, str] = field(default_factory=dict)
    where: str = ""
    observed: Optional[frozenset] = None
    answer: str = ""

    @property
    def name(self) -> str:
        return self.action.strip("() \n").split()[0].lower() if self.action.strip("() ") else ""


@dataclass(frozen=True)
class Finding:
    """A schema that a transition contradicts: ``kind`` (one of :data:`KINDS`), the
    ``schema`` (action name), the transition's index and ``where``, the ground ``action``,
    and the ``literal`` at fault (None when no single literal is: a precondition too weak)."""

    kind: str
    schema: str
    index: int
    where: str
    action: str
    literal: Optional[str] = None
    detail: str = ""

    def format(self) -> str:
        """One sentence a person or a model can act on: the schema, the transition, the
        literal, and what to change."""
        at = f"transition {self.index + 1}" + (f" ({self.where})" if self.where else "")
        lit = self.literal
        if self.kind == "precondition-too-strong" and self.detail == LISTED:
            return (f"action {self.schema}: at {self.where}, the game listed the command as "
                    f"one it would take now, but its precondition {lit} was false before it "
                    f"(as {self.action}, and however the facts fill its other parameters); "
                    f"rewrite {self.schema}'s precondition so the world's step is allowed")
        if self.kind == "precondition-too-strong":
            return (f"action {self.schema}: at {at}, {self.action} succeeded, but its "
                    f"precondition {lit} was false before it; rewrite {self.schema}'s "
                    f"precondition so the world's step is allowed")
        if self.kind == "precondition-too-weak" and self.detail == UNLISTED:
            return (f"action {self.schema}: at {self.where}, the game did not list the command "
                    f"among those it would take now (it would refuse it), but its precondition "
                    f"held (as {self.action}); rewrite {self.schema}'s precondition with what "
                    f"that command lacked")
        if self.kind == "precondition-too-weak":
            return (f"action {self.schema}: at {at}, the world refused {self.action}, but its "
                    f"precondition held{self.detail}; rewrite {self.schema}'s precondition with "
                    "what the refused step lacked")
        if self.kind == "effect-contradicted":
            return (f"action {self.schema}: at {at}, after {self.action} {self.detail}; "
                    f"rewrite {self.schema}'s effect")
        if self.kind == "effect-missing":
            return (f"action {self.schema}: at {at}, {self.action} {self.detail}, which its "
                    f"effect does not say; add {lit} to {self.schema}'s effect")
        return f"action {self.schema}: at {at}: {self.detail}"


def _atoms(facts: Iterable[str]) -> frozenset:
    """Facts as ground atoms (lowercase tuples); negative or malformed text is skipped."""
    out = set()
    for fact in facts:
        words = fact.replace("(", " ").replace(")", " ").split()
        if words and words[0].lower() != "not":
            out.add(tuple(w.lower() for w in words))
    return frozenset(out)


def _text(atom: tuple) -> str:
    return "(" + " ".join(atom) + ")"


def _problem(domain, t: Transition) -> str:
    by_type: dict[str, list[str]] = {}
    for name, kind in sorted(t.objects.items()):
        by_type.setdefault(kind, []).append(name)
    objects = " ".join(f"{' '.join(names)} - {kind}" for kind, names in by_type.items())
    init = " ".join(t.before)
    return (f"(define (problem evidence) (:domain {domain.name}) (:objects {objects}) "
            f"(:init {init}) (:goal (and)))")


def check_transitions(domain_text: str, transitions: Sequence[Transition],
                      fluents: Iterable[str] = (), schemas: Optional[Iterable[str]] = None,
                      single: Iterable[str] = (),
                      whereabouts: Optional[Mapping[str, int]] = None) -> list[Finding]:
    """Every finding of ``transitions`` against the domain's schemas (only the schemas in
    ``schemas`` when given), in transition order. ``single``: predicates of one argument of
    which one atom holds at a time; ``whereabouts``: predicates that say where a thing is
    (held, or at a place) -> the position of the thing among their arguments, one atom of
    them holding over a thing at a time (see the module). A domain that does not check
    raises ValueError naming its first error (that is not evidence against one schema)."""
    from pddlkit.checks import check
    from pddlkit.pddl.model import iter_effect_literals
    from pddlkit.pddl.reader import parse_domain, parse_problem

    from .simulate import first_false_literal, simulate
    from .world import World

    own = check(domain_text, planner=None)
    if not own.ok:   # the domain's own errors are not evidence against a schema
        raise ValueError(f"the domain does not check, so no transition can be read against "
                         f"it: {own.errors[0].message} (run pddlkit check on it first)")
    domain = parse_domain(domain_text)
    wanted = {s.lower() for s in schemas} if schemas is not None else None
    changed = {lit.atom.predicate.lower() for a in domain.actions
               for lit in iter_effect_literals(a.effects)} | {f.lower() for f in fluents}
    findings: list[Finding] = []
    for i, t in enumerate(transitions):
        name = t.name
        if name not in domain.action_map or (wanted is not None and name not in wanted):
            continue
        problem_text = _problem(domain, t)
        report = check(domain, problem_text, planner=None)   # the domain read once
        if not report.ok:
            first = report.errors[0]
            findings.append(Finding("facts-do-not-fit", name, i, t.where, t.action,
                                    detail=f"the facts before it do not fit the domain: "
                                           f"{first.message}"))
            continue
        world = World(domain, parse_problem(problem_text))
        state = world.initial_state
        tried = simulate(world, state, t.action)
        if tried.problem is not None:
            findings.append(Finding("facts-do-not-fit", name, i, t.where, t.action,
                                    detail=f"{t.action} does not fit the domain: "
                                           f"{tried.problem}"))
            continue
        schema = domain.action_map[name]
        if t.succeeded and not tried.applicable:
            false = first_false_literal(schema.precondition, state, tried.ground.binding, world)
            findings.append(Finding("precondition-too-strong", name, i, t.where, t.action,
                                    literal=false.text if false else (
                                        str(tried.first) if tried.first else None)))
            continue
        if not t.succeeded:
            if tried.applicable:
                findings.append(Finding("precondition-too-weak", name, i, t.where, t.action,
                                        detail=_held_over(t.before, t.action)))
            continue
        before = state.atoms
        predicted = tried.successor.atoms
        if t.after is None:
            if t.observed is not None:
                findings += _observed_findings(name, i, t, before, predicted, changed,
                                               {p.lower() for p in single},
                                               {p.lower(): k for p, k in
                                                (whereabouts or {}).items()})
            continue
        after = _atoms(t.after)
        spoken = {a for a in after | before | predicted if a[0] in changed}
        for atom in sorted(spoken):
            now, then, said = atom in after, atom in before, atom in predicted
            if said and not then and not now:
                findings.append(Finding("effect-contradicted", name, i, t.where, t.action,
                                        _text(atom), f"{_text(atom)} is false, yet {name} "
                                                     "adds it"))
            elif then and not said and now:
                findings.append(Finding("effect-contradicted", name, i, t.where, t.action,
                                        f"(not {_text(atom)})", f"{_text(atom)} still holds, "
                                                                f"yet {name} deletes it"))
            elif now and not then and not said:
                findings.append(Finding("effect-missing", name, i, t.where, t.action,
                                        _text(atom), f"made {_text(atom)} true"))
            elif then and not now and said:
                findings.append(Finding("effect-missing", name, i, t.where, t.action,
                                        f"(not {_text(atom)})", f"made {_text(atom)} false"))
    return findings


def check_listed(domain_text: str, listed: Sequence[Transition],
                 schemas: Optional[Iterable[str]] = None, static: Iterable[str] = (),
                 shown: Iterable[str] = ()) -> list[Finding]:
    """Findings of commands the environment listed as admissible (it would take them now)
    but the agent did not run: each is a :class:`Transition` that succeeded, whose ``action``
    may leave parameters the command's words do not name as variables (``(move ?from ?to
    east)`` for "move east"). A transition that did not succeed is a command a complete list
    left out (the world would refuse it now): the schema is refuted (``precondition-too-weak``,
    detail :data:`UNLISTED`) when its precondition holds under one of the fillings kept as
    below: the planner could then use a step the world refuses.

    The variables are filled with the ``objects`` of their type, keeping only the fillings
    under which every positive precondition literal over a ``static`` predicate holds (the
    connections the facts know: "move east" from the kitchen goes where the kitchen's east
    connection goes), or every filling when none does. A schema is refuted only by a literal
    of its precondition's conjunction false under every kept filling that is ``(not X)``
    (the facts believe X, and the world would take the command), or an atom of a predicate
    no fact before holds at all (the schema needs what nothing in the game has shown:
    measured with Qwen2.5-Coder 1.5B, move needed ``(closed-door ?from ?to ?dir)`` before
    any door was seen; ``shown`` names the predicates some fact of held at any earlier
    point, which are not "nothing known": measured with Qwen2.5-Coder 1.5B writing
    CoinCollector's domain, dev seed 1 at dca66d4, the door had been believed closed, its
    close-door then added nothing, so no closed-door fact was believed when "open door to
    north" was listed, and open-door's right precondition ``(closed-door ?loc1 ?loc2 ?dir)``
    was refuted for good). Any other positive literal false there is not evidence: the
    facts of an open world may just not know it yet (a coin not yet written down), and a
    precondition the fillings disagree on names nothing. The finding's index is ``-1 - i``
    for the ``i``-th listed command, its ``detail`` :data:`LISTED`; only preconditions are
    evidence (nothing ran)."""
    from pddlkit.pddl.model import And, Atom, Not
    from pddlkit.pddl.reader import parse_domain, parse_problem

    from .simulate import first_false_literal
    from .world import World

    domain = parse_domain(domain_text)
    wanted = {s.lower() for s in schemas} if schemas is not None else None
    fixed = {s.lower() for s in static}
    findings: list[Finding] = []
    for i, t in enumerate(listed):
        name = t.name
        if name not in domain.action_map or (wanted is not None and name not in wanted):
            continue
        schema = domain.action_map[name]
        words = t.action.strip("() ").lower().split()[1:]
        if len(words) != len(schema.parameters) or schema.precondition is None:
            continue
        options = []
        for word, param in zip(words, schema.parameters):
            kind = param.types[0].lower() if param.types else None
            options.append(sorted(n for n, k in t.objects.items() if kind is None or k == kind)
                           if word.startswith("?") else [word])
        if not all(options):
            continue
        try:
            world = World(domain, parse_problem(_problem(domain, t)))
        except Exception:   # noqa: BLE001 - facts that do not fit are check_transitions'
            continue
        state = world.initial_state
        conjuncts = list(schema.precondition.parts) if isinstance(schema.precondition, And) \
            else [schema.precondition]
        known = _heads(t.before) | {name.lower() for name in shown}
        # the literals that are evidence when false (see above)
        telling = [c for c in conjuncts if isinstance(c, Not) and isinstance(c.formula, Atom)]
        telling += [c for c in conjuncts if isinstance(c, Atom) and c.predicate != "="
                    and c.predicate.lower() not in known]   # nothing known of it at all
        fixing = [c for c in conjuncts if isinstance(c, Atom) and c.predicate.lower() in fixed]
        if not t.succeeded:
            if math.prod(len(o) for o in options) > MAX_UNLISTED_FILLINGS:
                continue   # too many readings of the command to try at every check
            held = _unlisted_held(world, state, name, options, fixing)
            if held is not None:
                findings.append(Finding("precondition-too-weak", name, -1 - i, t.where, held,
                                        detail=UNLISTED))
            continue
        fillings, applicable = [], False
        for fits, tried in _fillings(world, state, name, options, fixing):
            if tried.applicable:
                applicable = True
                break
            fillings.append((fits, tried.ground))
        if applicable or not fillings or not telling:
            continue
        kept = [g for fits, g in fillings if fits] or [g for _fits, g in fillings]
        for c in telling:
            false = [first_false_literal(c, state, g.binding, world) for g in kept]
            if all(f is not None for f in false):
                ground = "(" + " ".join([name, *kept[0].args]) + ")"
                findings.append(Finding("precondition-too-strong", name, -1 - i, t.where,
                                        ground, literal=false[0].text, detail=LISTED))
                break
    return findings


def _held_over(before: Iterable[str], action: str) -> str:
    """A refused command's finding's ``detail``: the facts believed before it over its
    arguments only, so the rewrite request says what held (" (before it: (at kitchen), (closed
    kitchen corridor east))"); "" when none. Why: measured with Qwen2.5-Coder 1.5B learning
    CoinCollector's domain (dev seed 1 at 156944c), close-door, refused with the door closed,
    was drawn again the same four times from "its precondition held" alone."""
    args = set(action.strip("() ").lower().split()[1:])
    held = sorted(_text(atom) for atom in _atoms(before) if set(atom[1:]) <= args)
    return f" (before it: {', '.join(held)})" if held else ""


def _heads(facts: Iterable[str]) -> set[str]:
    """The predicates of ``facts`` (text atoms), lower case."""
    return {atom[0] for atom in _atoms(facts)}


def _fillings(world, state, name: str, options: list, fixing: list):
    """Each filling of the action's parameters from ``options`` that fits the domain, tried in
    ``state``: (whether every ``fixing`` (static) literal holds under it, the simulation)."""
    from itertools import product

    from .simulate import first_false_literal, simulate

    for values in product(*options):
        tried = simulate(world, state, "(" + " ".join([name, *values]) + ")")
        if tried.problem is None:
            yield (all(first_false_literal(c, state, tried.ground.binding, world) is None
                       for c in fixing), tried)


def _unlisted_held(world, state, name: str, options: list, fixing: list) -> Optional[str]:
    """The ground action (as PDDL) of a left-out command whose precondition holds, among the
    fillings that fit the ``fixing`` (static) literals, or among all when none fits; None
    when it holds under none."""
    fitting, other = [], []
    for fits, tried in _fillings(world, state, name, options, fixing):
        (fitting if fits else other).append(tried)
    for tried in fitting or other:
        if tried.applicable:
            return "(" + " ".join([name, *tried.ground.args]) + ")"
    return None


def _observed_findings(name: str, i: int, t: Transition, before, predicted, changed,
                       single: "set[str]" = frozenset(),
                       whereabouts: "Optional[Mapping[str, int]]" = None) -> list[Finding]:
    """What the atoms an observation stated true say against the schema (see the module)."""
    out, whereabouts = [], whereabouts or {}
    named = set(t.action.lower().replace("(", " ").replace(")", " ").split()[1:])
    stated = _atoms(t.observed)
    for atom in sorted(a for a in stated
                       if a[0] in changed and set(a[1:]) <= named):
        if atom in before and atom not in predicted:
            out.append(Finding("effect-contradicted", name, i, t.where, t.action,
                               f"(not {_text(atom)})", f"{_text(atom)} still holds, yet "
                                                       f"{name} deletes it"))
        elif atom not in before and atom not in predicted:
            out.append(Finding("effect-missing", name, i, t.where, t.action, _text(atom),
                               f"made {_text(atom)} true"))

    def one_of(atom: tuple):
        return _slot_of(atom, single, whereabouts)
    for atom in sorted(stated):   # one atom of a slot stated: the slot's others false
        slot = one_of(atom)
        if slot is None or not set(atom[1:]) <= named or \
                sum((one_of(a) or (None,))[0] == slot[0] for a in stated) != 1:
            continue   # two stated: no rule; a place the command does not name may be one
            # it named otherwise
        for other in sorted(a for a in predicted if a != atom and a not in stated
                            and (one_of(a) or (None,))[0] == slot[0]
                            and set(a[1:]) <= named):
            said = f"the observation after it says {_text(atom)}, and {slot[1]}"
            out.append(Finding("effect-missing", name, i, t.where, t.action,
                               f"(not {_text(other)})", f"made {_text(other)} false ({said})")
                       if other in before else
                       Finding("effect-contradicted", name, i, t.where, t.action,
                               _text(other), f"{_text(other)} is false ({said}), yet "
                                             f"{name} adds it"))
    return out


def _slot_of(atom: tuple, single: "set[str]", whereabouts: "Mapping[str, int]"):
    """(the slot of which one atom holds at a time, how the finding says so) for an atom of
    a ``single`` predicate (one argument: where the player is) or of a ``whereabouts`` one
    (over its thing: a thing held is at no place, and at one place at a time); None when no
    such rule holds of it."""
    if atom[0] in single and len(atom) == 2:
        return (atom[0],), f"one atom of {atom[0]} holds at a time"
    k = whereabouts.get(atom[0])
    if k is not None and 0 <= k < len(atom) - 1:
        return ("", atom[1 + k]), "a thing is held or at one place at a time"
    return None


def explained(domain_text: str, transitions: Sequence[Transition],
              fluents: Iterable[str] = ()) -> bool:
    """Whether the domain explains every transition (no finding)."""
    return not check_transitions(domain_text, transitions, fluents)
