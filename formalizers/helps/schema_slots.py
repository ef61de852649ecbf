"""An action's schema asked for one predicate a line, as what holds before and after the
command (issue 75, ``schema_slots``).

Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain with slotted predicates
(dev seeds 0-2 at 18fc955, ``examples/real-llm/domain-writing.md``), the predicates described
the state in every episode but the schemas did not use them as the game does: the first move
schema of every episode was ``:precondition (connected ?from ?to ?dir) :effect (not (connected
?from ?to ?dir))``, and of 9 move schemas kept none changed where the player is. Asked for a
whole body, the model picks a predicate or two and writes an effect over them; the others it
never considers. Here the grammar holds one line per predicate the action's parameters fit
(:func:`pddlkit.pddl.grammars.action_slots_grammar`), so each predicate is considered in
turn, and each line asks what a person would say of a command, not PDDL's add and delete
lists::

    player: before (player ?from) after (player ?to)
    room-connected: before (room-connected ?from ?to ?dir) after same
    holding: before none after same

Code writes the schema from the lines (:func:`read_slots`), and says so here, since a row
must say what the model wrote and what code wrote:

- the precondition is every literal after ``before``;
- ``after same`` leaves the predicate out of the effect;
- otherwise the effect adds each atom after ``after`` that ``before`` did not require, and
  deletes each atom ``before`` required that ``after`` does not list (``after none`` deletes
  them all): STRIPS's reading of a state change, where what a command ends is what it needed.

Nothing is inferred from the game: the model chooses every literal, the schema check
(``schema_check``) tests the result against the transitions as it tests any schema, and a
refuted schema is shown back to the model in the same lines (:func:`slots_of_body`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

#: how the lines are asked for (the action template's ``$form``), with the examples: three
#: actions of another game (walking between places, lighting a lamp, picking up a key), each
#: with a line for a place the player must be at, a fact that stays, and one that changes.
#: Why three, and these: measured with Qwen2.5-Coder 1.5B on CoinCollector (dev seed 0 at
#: 23dec28) with one example line (``at: before (at ?from) after (at ?to)``), every line of
#: every action came out as ``before (not X) after X``, the player's place included
#: (``player: before (not (player ?from)) after (player ?to)``), so no move was ever planned.
#: The walk's third line, a fact that must not hold and stays so (``gate-shut: before (not
#: ...) after same``): in every CoinCollector domain Qwen learnt (1886144, 28f7b5c, and 2e889f5
#: with ``final_effects``), move read ``closed-door: before (not (closed-door ?from ?to
#: ?dir)) after (closed-door ?from ?to ?dir)``, the lamp's ``before (not X) after X``
#: copied, so the door behind the player was believed closed; the observation after a move
#: describes the room entered, not that door, so no check refuted it, and every move of the
#: 3-room test episodes disagreed with the simulator's successor by it
#: (``benchmarks/learned_transitions.py``). The examples had no ``before (not X) after same``.
SCHEMA_SLOTS_FORM = (
    "Write one line for each predicate below: its name, then \"before\" and the facts over it "
    "that must hold for the command to work (with (not ...) for one that must not hold), or "
    "none; then \"after\" and the facts over it that hold once the command worked, or same "
    "when the command does not change them, or none when none holds then.\n"
    "Examples, from another game:\n"
    "action walk (?a - place ?b - place): the player walks from ?a to ?b\n"
    "at: before (at ?a) after (at ?b)\n"
    "path: before (path ?a ?b) after same\n"
    "gate-shut: before (not (gate-shut ?a ?b)) after same\n"
    "action light (?l - lamp ?p - place): the player lights lamp ?l at place ?p\n"
    "at: before (at ?p) after same\n"
    "lamp-in: before (lamp-in ?l ?p) after same\n"
    "lit: before (not (lit ?l)) after (lit ?l)\n"
    "action pick (?k - key ?p - place): the player picks up key ?k at place ?p\n"
    "at: before (at ?p) after same\n"
    "key-in: before (key-in ?k ?p) after none\n"
    "carried: before none after (carried ?k)\n")
#: answer tokens a line may take (its label, two or three literals), and the schema's own
LINE_TOKENS, BASE_TOKENS = 30, 40

_LITERAL = re.compile(r"\(\s*not\s*(\([^()]*\))\s*\)|(\([^()]*\))", re.I)


def slot_predicates(predicates: "dict[str, Sequence[Optional[str]]]",
                    parameters: Sequence[tuple[str, Optional[str]]]) -> dict[str, list]:
    """The predicates (name -> parameter types) some atom over the action's ``parameters``
    can be written for, in their order: the lines the grammar asks for."""
    from pddlkit.pddl.grammars import argument_fits

    names = dict(parameters)
    return {name: list(types) for name, types in predicates.items()
            if all(argument_fits(types, names))}


def form_lines(predicates: "dict[str, Sequence[Optional[str]]]") -> str:
    """The lines to fill in, as the prompt shows them (``player: ...``)."""
    return "\n".join(f"{name}: ..." for name in predicates)


def read_slots(text: str, predicates: "dict[str, Sequence[Optional[str]]]",
               parameters: Sequence[tuple[str, Optional[str]]],
               positive_before: Sequence[str] = (), static: Sequence[str] = (),
               in_place: Optional[dict] = None, pairs: Sequence[str] = ()
               ) -> tuple[Optional[str], list[str]]:
    """(the schema's body, what was refused) from the answer's lines (see the module); the
    body is None when no line changes anything. Read leniently, as a free answer is: a label
    anywhere a line could start, any case, the lines in any order; a literal over another
    predicate than its line's, at another arity, or naming what is not a parameter, is
    refused and said, as is ``(not ...)`` before of a predicate in ``positive_before`` (the
    player's place: the grammar allows only where the player must be). A line of a ``static``
    predicate (how places connect: no command changes it) is read as ``same`` after, and a
    change it lists is refused and said; so is a line of ``in_place`` (the player's place,
    for an action with fewer than two parameters of a place's type: see
    :func:`in_place_predicates`), whose atom there (``(player ?r)``) is required before,
    added and said when the answer leaves it out. A literal of a predicate of ``pairs``
    (:func:`place_pairs`) that names one variable twice is left out, before and after, and
    said."""
    in_place = in_place or {}
    variables = {v.lower() for v, _t in parameters}
    lines = _lines(text, predicates)
    if not lines:
        return None, ["no line names a predicate: write one line for each, as "
                      "'name: before ... after ...'"]
    pre: list[str] = []
    adds: list[str] = []
    deletes: list[str] = []
    refused: list[str] = []
    for name in [n for n in predicates if n in lines]:   # the schema in the predicates' order
        before, after, why = _line(lines[name], name, predicates[name], variables,
                                   name in positive_before)
        refused += why
        if before is None:   # no before ... after
            continue
        before, after = _unjoined(name, before, after, static, pairs, refused)
        pre += [lit for lit in before if lit not in pre]
        if name in static or name in in_place:   # this command leaves it: read as same
            _say_static_change(name, before, after, refused, _STAYS[name in static])
            after = None
        if after is None:   # same
            continue
        required = [lit for lit in before if not lit.startswith("(not ")]
        adds += [a for a in after if a not in required and a not in adds]
        deletes += [a for a in required if a not in after and a not in deletes]
    _require_here(in_place, pre, refused)
    effect = [f"(not {a})" for a in deletes] + adds
    if not effect:
        return None, refused + ["the effect is empty: no line's after changes what held "
                                "before (a command that works changes something)"]
    body = (f":precondition (and {' '.join(pre)})\n    " if pre else "") + \
        f":effect (and {' '.join(effect)})"
    return body, refused


#: why a line is read as ``same`` (:func:`read_slots`): [an in-place line, a static one]
_STAYS = ("this command does not move the player (it has no place to leave and another to "
          "reach: it is done where the player is)",
          "no command changes it (how places connect)")


def _unjoined(name: str, before: list[str], after: Optional[list[str]], static: Sequence[str],
              pairs: Sequence[str], refused: list[str]) -> tuple[list[str], Optional[list[str]]]:
    """A line's before and after less what joins a place to itself: before, for a
    ``static`` predicate or one of ``pairs``; after too, for one of ``pairs``."""
    if name in static or name in pairs:
        before = _without_self_joined(before, refused)
    if after is not None and name in pairs:
        after = _without_self_joined(after, refused)
    return before, after


def _without_self_joined(before: list[str], refused: list[str]) -> list[str]:
    """A line's ``before`` (or ``after``) less the literals that join a place to itself
    (:func:`self_joined`), each said in ``refused``."""
    joined = [lit for lit in before if _joins_itself(lit)]
    refused += [f"{lit}: joins a place to itself, never a fact; left out" for lit in joined]
    return [lit for lit in before if lit not in joined]


def _require_here(in_place: dict, pre: list[str], refused: list[str]) -> None:
    """Each atom of ``in_place`` (where the command is done) first in ``pre`` when the
    answer left it out, said in ``refused``."""
    for name, here in in_place.items():
        if here and here not in pre:
            pre.insert(0, here)
            refused.append(f"{name}: the command is done where the player is; {here} "
                           "required before")


def _joins_itself(literal: str) -> bool:
    """Whether a literal (``(connects ?r ?r)``, ``(not (connects ?r ?r))``) names one
    variable twice."""
    names = re.findall(r"\?[\w\-]+", literal)
    return len(set(names)) < len(names)


def _say_static_change(name: str, before: list, after: Optional[list], refused: list,
                       why: str = "no command changes it (how places connect)") -> None:
    """A line this command leaves (static, or the player's place where it cannot move the
    player) whose after would change it is refused and said in ``refused``; one that lists
    what held before, or says same, is not."""
    held = {lit for lit in before if not lit.startswith("(not ")}
    if after is not None and set(after) != held:
        refused.append(f"{name}: {why}; its after is read as same")


def self_joined(static: Sequence[str], predicates, parameters: Sequence[tuple[str, Optional[str]]]
                ) -> dict[str, set[str]]:
    """static predicate -> its literals over ``parameters`` that name one parameter twice
    (``(connects ?r ?r)``, ``(not (connects ?r ?r))``): a place joined to itself is never a
    fact (:mod:`.here_facts` keeps none), so requiring it makes the action never fire, and
    requiring its negation says nothing. Ruled out of ``before`` in the grammar
    (:func:`pddlkit.pddl.grammars.action_slots_grammar`'s ``not_before``) and refused as a
    free answer is read. Why: measured with Qwen2.5-Coder 1.5B learning the household's
    domain (dev seed 0 at 2fcc924): openobject, pickupobject, putobject, cleanobject,
    heatobject, sliceobject and toggleobject each required ``(connects ?r ?r)``, the planner
    said each "can never fire", and the episode ended at the solver's retry limit after 9
    moves."""
    from itertools import product

    names = dict(parameters)
    out: dict[str, set[str]] = {}
    for name in static:
        types = predicates.get(name)
        if types is None:
            continue
        fits = [[v for v, t in names.items() if kind is None or t == kind or t is None]
                for kind in types]
        for args in product(*fits):
            if len(set(args)) < len(args):
                atom = "(" + " ".join((name, *args)) + ")"
                out.setdefault(name, set()).update({atom, f"(not {atom})"})
    return out


def place_pairs(predicates: "dict[str, Sequence[Optional[str]]]",
                place_kinds: Sequence[str]) -> list[str]:
    """The predicates with two arguments or more of a place's type (``place_kinds``,
    :func:`..predicate_slots.place_types`): a door between two rooms, how places connect.
    An atom of one that names one place twice (``(closed-door ?loc1 ?loc1 ?dir)``) joins a
    place to itself, which no observation states, so a schema that requires it never fires
    and one that adds or deletes it changes nothing the world shows: ruled out of the
    grammar's lines (:func:`self_joined`, before and after) and left out of a free answer.
    Why: measured with Qwen2.5-Coder 1.5B learning CoinCollector's domain (dev seed 1 at
    dca66d4), open-door was rewritten four times over ``(closed-door ?loc1 ?loc1 ?dir)``
    and move over ``(closed-door ?from ?from ?dir)``; the domain saved from that run
    opens no door."""
    kinds = set(place_kinds)
    return [name for name, types in predicates.items()
            if kinds and sum(1 for t in types if t in kinds) >= 2]


def in_place_predicates(player: Sequence[str], parameters: Sequence[tuple[str, Optional[str]]],
                        place_kinds: Sequence[str]) -> dict[str, Optional[str]]:
    """The predicates of the player's place (``player``) an action's line must leave
    ``same`` after, each with the atom it must require before (over the action's one
    parameter of a place's type; None with none): all of them when the action has fewer
    than two parameters of a place's type (``place_kinds``,
    :func:`..predicate_slots.place_types`), {} otherwise or when no type is a place's. To
    move the player a schema deletes where it was and adds where it goes, two places; with
    one, the command is done where the player is, there (the household's "take {o} from
    {r}", "open {r}"; CoinCollector's "take {i}"). Measured with Qwen2.5-Coder 1.5B learning
    the household's domain (dev seed 0 at 16d5df2): its cleanobject and heatobject required
    no place of the player, and plans went "go to cabinet 1" then "clean cd 1 with desk 1"
    ("You are not at the desk 1; go to it first."), six refusals. Why the ``same``: measured with
    Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at 9ceef74), every
    schema but gotolocation's wrote ``player: before none after (player ?r)``, so
    pickupobject, sliceobject and closeobject moved the player in the planner's model;
    plans reached places through "take butterknife 1 from ...", "slice butterknife 1 with
    cd 1", refused every time (7 of the episode's 8 refusals were such steps)."""
    kinds = set(place_kinds)
    places = [v for v, t in parameters if t in kinds]
    if not kinds or len(places) >= 2:
        return {}
    return {name: f"({name} {places[0]})" if places else None for name in player}


def _lines(text: str, predicates) -> dict[str, str]:
    """predicate -> the text of its line: from its label (the last, where a label comes
    twice) to the next label."""
    starts = []
    for name in predicates:
        found = [m for m in re.finditer(rf"(?<![\w\-?]){re.escape(name)}\s*:", text, re.I)]
        if found:
            starts.append((found[-1].start(), found[-1].end(), name))
    starts.sort()
    return {name: text[end:starts[i + 1][0] if i + 1 < len(starts) else len(text)]
            for i, (_start, end, name) in enumerate(starts)}


def _line(line: str, name: str, types, variables: set[str], positive: bool):
    """(before's literals or None when the line has no before/after, after's atoms or None
    for ``same``, what was refused) of one predicate's line."""
    said = re.search(r"\bbefore\b(.*?)\bafter\b(.*)", line, re.I | re.S)
    if said is None:
        return None, None, [f"{name}: no 'before ... after ...'"]
    before, refused = _literals(said.group(1), name, types, variables)
    if positive:
        refused += [f"{name}: before {lit}: a command is done where the player is; say "
                    "where that is, not where it is not" for lit in before
                    if lit.startswith("(not ")]
        before = [lit for lit in before if not lit.startswith("(not ")]
    after_text = said.group(2).strip().lower()
    if after_text.startswith("same"):
        return before, None, refused
    after, why = _literals(after_text, name, types, variables, negative=False)
    return before, after, refused + why


def _literals(text: str, name: str, types: Sequence[Optional[str]], variables: set[str],
              negative: bool = True) -> tuple[list[str], list[str]]:
    """The literals over ``name`` in ``text`` (``(p ?a)``, ``(not (p ?a))``), normalised; and
    why each other one was refused."""
    kept, refused = [], []
    for m in _LITERAL.finditer(text):
        atom = m.group(1) or m.group(2)
        words = atom.strip("() ").lower().split()
        literal = "(" + " ".join(words) + ")"
        if m.group(1) and not negative:
            refused.append(f"{name}: after lists what holds, not (not ...): {m.group(0)}")
        elif not words or words[0] != name:
            refused.append(f"{name}: {literal} is not over {name}")
        elif len(words) - 1 != len(types):
            refused.append(f"{name}: {literal} has {len(words) - 1} arguments, {name} takes "
                           f"{len(types)}")
        elif any(w not in variables for w in words[1:]):
            refused.append(f"{name}: {literal} names what is not one of the action's "
                           f"parameters ({', '.join(sorted(variables))})")
        else:
            kept.append(f"(not {literal})" if m.group(1) else literal)
    return kept, refused


def slots_of_body(body: str, predicates: "dict[str, Sequence[Optional[str]]]") -> str:
    """``body`` (``:precondition ... :effect ...``) in the lines :func:`read_slots` reads, one
    per predicate: a refuted schema is shown to the model as it writes one."""
    at = body.lower().find(":effect")
    condition, effect = (body[:at], body[at:]) if at >= 0 else (body, "")
    pre = [_normal(m) for m in _LITERAL.finditer(condition)]
    eff = [_normal(m) for m in _LITERAL.finditer(effect)]
    lines = []
    for name in predicates:
        before = [lit for lit in pre if _over(lit) == name]
        changes = [lit for lit in eff if _over(lit) == name]
        if not changes:
            after = "same"
        else:
            gone = {lit[len("(not "):-1] for lit in changes if lit.startswith("(not ")}
            held = [lit for lit in before if not lit.startswith("(not ") and lit not in gone]
            held += [lit for lit in changes if not lit.startswith("(not ") and lit not in held]
            after = " ".join(held) or "none"
        lines.append(f"{name}: before {' '.join(before) or 'none'} after {after}")
    return "\n".join(lines)


def _only_atom(literal: str, binding: dict[str, str]) -> Optional[str]:
    """The one atom over the action's parameters that grounds to ``literal`` (a positive
    ground atom) under ``binding`` (variable -> value), or None: a negated literal, a value
    no parameter holds, or one two parameters hold (then either could be meant). Measured
    with Qwen2.5-Coder 1.5B writing the household's domain (dev seeds 0-1 at e5ed7a0):
    "add (player sofa_1) to gotolocation's effect", the move done as (gotolocation desk_1
    sofa_1), ruled out only ``same``, and the model wrote ``player: before none after
    (player ?from)`` again in every rewrite (4 of them the same schema); only ``(player
    ?to)`` says it."""
    if literal.startswith("(not "):
        return None
    name, *values = literal.strip("() ").split()
    args = []
    for value in values:
        holders = [v for v, bound in binding.items() if bound == value]
        if len(holders) != 1:
            return None
        args.append(holders[0])
    return "(" + " ".join((name, *args)) + ")"


def _normal(m: "re.Match") -> str:
    atom = "(" + " ".join((m.group(1) or m.group(2)).strip("() ").lower().split()) + ")"
    return f"(not {atom})" if m.group(1) else atom


def _over(literal: str) -> str:
    """The predicate a literal is over."""
    return literal.replace("(not ", "").strip("() ").split()[0]


@dataclass
class RuledOut:
    """What the evidence rules out of an action's lines (:func:`ruled_out`), for the
    rewrite's grammar and its request: ``before`` (predicate -> literals over the parameters
    no line may require), ``after`` (predicate -> atoms no line may list after), ``change``
    (predicates whose line may not say ``same``), ``keep`` (predicate -> atoms its line must
    keep: ``same``, or list them after)."""

    before: dict[str, set[str]] = field(default_factory=dict)
    after: dict[str, set[str]] = field(default_factory=dict)
    change: set[str] = field(default_factory=set)
    keep: dict[str, set[str]] = field(default_factory=dict)
    #: predicate -> atoms its line must list after: a command made a fact true that the
    #: effect did not say, and only these atoms over the parameters say it
    add: dict[str, set[str]] = field(default_factory=dict)
    #: predicate -> atoms its line must require before and not list after: a command made a
    #: fact false that the effect kept (the player left the place it was at), and only these
    #: atoms over the parameters say it
    drop: dict[str, set[str]] = field(default_factory=dict)

    def said(self) -> list[str]:
        """The request's lines, one per rule (``player: not before (not (player ?from))``)."""
        out = [f"{name}: not before {lit}" for name, lits in self.before.items()
               for lit in sorted(lits)]
        out += [f"{name}: not after {atom}" for name, atoms in self.after.items()
                for atom in sorted(atoms)]
        out += [f"{name}: not after same (the command changed it)"
                for name in sorted(self.change)]
        out += [f"{name}: after same, or after {' '.join(sorted(atoms))} (it still held)"
                for name, atoms in self.keep.items()]
        out += [f"{name}: after {' '.join(sorted(atoms))} (the command made it true)"
                for name, atoms in self.add.items()]
        out += [f"{name}: before {' '.join(sorted(atoms))}, and not after (the command made "
                f"it false)" for name, atoms in self.drop.items()]
        return out


def ruled_out(refutations: Sequence[tuple], parameters: Sequence[tuple[str, Optional[str]]]
              ) -> RuledOut:
    """What each (refuted body, finding) of an action rules out of its lines, exactly where
    the finding's transition would refute it again whatever the other lines say: a
    precondition literal that was false before a command the world took; an atom the effect
    added that was false after; and a line that said ``same`` of a predicate a command
    changed (its literal named by an effect-missing finding); and, for an atom the effect
    deleted that still held after (required ``before``, not listed ``after``), a line that
    drops it: the line must say ``same`` or list it after (measured with Qwen2.5-Coder 1.5B,
    CoinCollector dev seed 1 at 5d9a75d: open-door's ``player: before (player ?loc1) after
    (player ?loc2)`` refuted, then drawn again four times). An effect-missing finding whose
    literal one atom over the parameters grounds to makes the line list that atom after
    (``add``: made true) or require it before and leave it out after (``drop``: made false;
    the player left ``?from``). A precondition too weak names no literal, and rules out only
    the whole schema (as every refuted schema is)."""
    variables = [v.lower() for v, _t in parameters]
    out = RuledOut()
    for body, finding in refutations:
        literal = " ".join((finding.literal or "").lower().split())
        if not literal:
            continue
        binding = dict(zip(variables, finding.action.strip("() ").lower().split()[1:]))
        at = body.lower().find(":effect")
        part = body[:at] if finding.kind == "precondition-too-strong" else body[at:]
        if finding.kind == "effect-missing":
            out.change.add(_over(literal))
            made = _only_atom(literal, binding)
            if made:
                out.add.setdefault(_over(made), set()).add(made)
            gone = _only_atom(literal[len("(not "):-1].strip(), binding) \
                if literal.startswith("(not ") else None
            if gone:
                out.drop.setdefault(_over(gone), set()).add(gone)
            continue
        if finding.kind == "effect-contradicted" and literal.startswith("(not "):
            kept = literal[len("(not "):-1].strip()   # deleted, yet it held after
            for m in _LITERAL.finditer(body[:at]):
                lifted = _normal(m)
                if not lifted.startswith("(not ") and _ground(lifted, binding) == kept:
                    out.keep.setdefault(_over(lifted), set()).add(lifted)
            continue
        if finding.kind not in ("precondition-too-strong", "effect-contradicted"):
            continue
        target = out.before if finding.kind == "precondition-too-strong" else out.after
        for m in _LITERAL.finditer(part):
            lifted = _normal(m)
            if _ground(lifted, binding) == literal:
                target.setdefault(_over(lifted), set()).add(lifted)
    return out


def _ground(literal: str, binding: dict) -> str:
    return " ".join(binding.get(w, w) for w in literal.replace("(", "( ").replace(")", " )")
                    .split()).replace("( ", "(").replace(" )", ")")
