"""Does a candidate domain say what the reference domain says, and does it behave the same?

Two views, because each misses what the other sees. Literal matching (as Text2World scores
domains) names the precondition or effect that is missing, but calls two domains different
when one writes a redundant precondition; behaviour (apply both to the same states) is what a
planner will see, but a literal that never matters in the states sampled goes unnoticed. The
PDDLego+ authors found frozen LLM domains that were incomplete (``open-door`` without a
location precondition); :func:`compare_domains` finds that transition and names the literal.

Names: a model writing a domain chooses its own predicate names and argument orders, so the
candidate's predicates are first *defined* from the reference's (:class:`PredicateMapping`):
by the actions, whose names and parameter lists PDDLego+ fixes, each candidate predicate is
matched to the reference predicate (with an argument order, possibly negated) that occurs in
the same places of the same actions most often. A negated definition (``door-closed`` =
not ``door-open``) takes a *guard*, the positive reference literal that sits beside the
negated one in the reference's preconditions (``has-door``), so ``door-closed`` holds of
doors that are closed, not of every pair of rooms.

Actions are paired the same way: by name first (``open_door`` ~ ``open-door``, then a close
name of the same arity), and a reference action left over is paired with a candidate action of
another name (``stack`` ~ ``put-on``) when, under the predicate renaming, their preconditions
and effects agree (:func:`pair_actions`, reported as ``action_mapping``): a model renames an
action as freely as a predicate. An action left without a counterpart still counts in the
behaviour: each sampled transition of it is a disagreement, so a domain that lacks an action
never agrees fully on the transitions that action makes.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence, Union

from ..pddl.model import (
    Action, And, Atom, Domain, Exists, Forall, ForallEffect, Formula, Imply, Literal, Not, Or,
    Problem, TypedName, When,
)
from ..pddl.writer import write_formula
from ..semantics.formulas import candidate_bindings, ground_text, holds
from ..semantics.grounding import GroundAction, ground
from ..semantics.state import State, format_atom
from ..semantics.world import World
from .inputs import CompareInputError, DomainLike, ProblemLike, load_domain, load_problem

PRE, EFF = "pre", "eff"


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PredicateMapping:
    """How a candidate predicate is read off a reference state: ``candidate(x_order[0], ...)``
    holds when ``reference(x_0, ..., x_k)`` holds (``negated``: does not hold, and the
    ``guard`` atom over the same arguments does). ``evidence`` counts the literal pairs in
    matched actions that support it (0: chosen by name alone)."""

    candidate: str
    reference: str
    order: tuple[int, ...]
    negated: bool = False
    guard: Optional[str] = None
    evidence: int = 0

    @property
    def identity(self) -> bool:
        return (self.candidate == self.reference and not self.negated
                and self.order == tuple(range(len(self.order))))

    def format(self) -> str:
        xs = [f"?x{i}" for i in range(len(self.order))]
        head = "(" + " ".join([self.candidate, *(xs[i] for i in self.order)]) + ")"
        body = "(" + " ".join([self.reference, *xs]) + ")"
        if self.negated:
            body = f"(not {body})"
            if self.guard:
                body = "(" + " ".join([self.guard, *xs]) + f") and {body}"
        return f"{head} = {body}"

    def to_dict(self) -> dict:
        return {"candidate": self.candidate, "reference": self.reference,
                "order": list(self.order), "negated": self.negated, "guard": self.guard,
                "evidence": self.evidence, "text": self.format()}


@dataclass(frozen=True)
class ActionMapping:
    """How a reference action was paired with a candidate action. ``by``: ``"name"`` (the
    same name, ``_`` and ``-`` alike), ``"close name"`` (a similar name of the same arity),
    ``"literals"`` (another name, paired because its preconditions and effects agree with the
    reference action's under the predicate renaming) or ``"shape"`` (another name, paired
    because its literals have the same parameters in the same places, predicate names aside,
    before the predicate renaming could tell). ``agreement`` is the share of both actions'
    literals matched under the renaming finally used. ``parameters`` are the candidate's
    parameters in the reference action's order (the candidate may list them in another)."""

    reference: str
    candidate: str
    by: str
    parameters: tuple[str, ...] = ()
    reordered: bool = False
    agreement: Optional[float] = None

    def format(self) -> str:
        text = f"{self.reference} ~ {self.candidate}"
        if self.reordered:
            text += f" (its parameters in the reference's order: {' '.join(self.parameters)})"
        how = {"literals": "by its preconditions and effects",
               "shape": "by the shape of its preconditions and effects (predicate names aside)"}
        if self.by in how:
            text += f", paired {how[self.by]}"
            if self.agreement is not None:
                text += f"; {self.agreement:.0%} of the literals agree"
        return text

    def to_dict(self) -> dict:
        return {"reference": self.reference, "candidate": self.candidate, "by": self.by,
                "parameters": list(self.parameters), "reordered": self.reordered,
                "agreement": self.agreement, "text": self.format()}


@dataclass(frozen=True)
class ActionComparison:
    """One action's literals, lifted (written over the reference action's parameters for
    what is missing, the candidate's for what is extra). ``reference``/``candidate`` is None
    for an action on one side only."""

    reference: Optional[str]
    candidate: Optional[str]
    matched_preconditions: int = 0
    matched_effects: int = 0
    reference_literals: int = 0
    candidate_literals: int = 0
    matched_reference: int = 0
    matched_candidate: int = 0
    missing_preconditions: tuple[str, ...] = ()
    extra_preconditions: tuple[str, ...] = ()
    missing_effects: tuple[str, ...] = ()
    extra_effects: tuple[str, ...] = ()

    @property
    def precision(self) -> float:
        return _ratio(self.matched_candidate, self.candidate_literals)

    @property
    def recall(self) -> float:
        return _ratio(self.matched_reference, self.reference_literals)

    @property
    def exact(self) -> bool:
        return (self.reference is not None and self.candidate is not None
                and self.matched_reference == self.reference_literals
                and self.matched_candidate == self.candidate_literals)

    def to_dict(self) -> dict:
        return {"reference": self.reference, "candidate": self.candidate,
                "precision": self.precision, "recall": self.recall,
                "reference_literals": self.reference_literals,
                "candidate_literals": self.candidate_literals,
                "matched_reference": self.matched_reference,
                "matched_candidate": self.matched_candidate,
                "missing_preconditions": list(self.missing_preconditions),
                "extra_preconditions": list(self.extra_preconditions),
                "missing_effects": list(self.missing_effects),
                "extra_effects": list(self.extra_effects)}


#: disagreement kinds
ONLY_CANDIDATE = "only-candidate"   # the candidate lets the action run; the reference does not
ONLY_REFERENCE = "only-reference"   # the reference lets it run; the candidate does not
SUCCESSOR = "successor"             # both run it; the states after differ
NO_COUNTERPART = "no-counterpart"   # the reference runs an action the candidate has no match for
CANDIDATE_ONLY_ACTION = "candidate-only-action"   # the candidate runs an action the reference lacks


@dataclass(frozen=True)
class Disagreement:
    """One transition on which the domains differ. ``action`` is ground, in the reference's
    names; ``state`` is the reference state (its atoms); ``literals`` say what differs, ground,
    and ``lifted`` the same over the action's parameters (for counting kinds across states):
    for ``only-candidate`` the reference's precondition parts that are false (what the
    candidate's precondition lacks), for ``only-reference`` the candidate's false parts (in
    its own vocabulary), for ``successor`` ``missing (atom)`` (the reference's successor has
    it, the candidate's does not) and ``extra (atom)``, in the candidate's vocabulary; for
    ``no-counterpart`` (a reference action no candidate action was paired with) and
    ``candidate-only-action`` (a candidate action paired with none; ``action`` and ``schema``
    in the candidate's names) there is no literal to name."""

    kind: str
    action: str
    schema: str
    problem: str
    state: tuple[str, ...]
    literals: tuple[str, ...]
    lifted: tuple[str, ...]

    def explain(self) -> str:
        shown = ", ".join(self.literals) or "(no single literal)"
        if self.kind == ONLY_CANDIDATE:
            return (f"{self.action} is applicable in the candidate but not in the reference, "
                    f"which also requires {shown}: the candidate's precondition lacks it")
        if self.kind == ONLY_REFERENCE:
            return (f"{self.action} is applicable in the reference but not in the candidate, "
                    f"whose precondition also requires {shown}")
        if self.kind in (NO_COUNTERPART, CANDIDATE_ONLY_ACTION):
            side, other = ("reference", "candidate") if self.kind == NO_COUNTERPART else \
                ("candidate", "reference")
            return (f"{self.action} is applicable in the {side}, but the {other} has no "
                    f"action that corresponds to {self.schema}")
        return f"{self.action} applies in both, but the successors differ: {shown}"

    def format(self, atoms: int = 12) -> str:
        state = " ".join(self.state[:atoms])
        more = f" ... ({len(self.state)} atoms)" if len(self.state) > atoms else ""
        return f"{self.explain()}\n    in {self.problem}, state: {state}{more}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "action": self.action, "schema": self.schema,
                "problem": self.problem, "literals": list(self.literals),
                "lifted": list(self.lifted), "explanation": self.explain(),
                "state": list(self.state)}


@dataclass(frozen=True)
class BehaviourComparison:
    """Sampled transitions of reference problems, run in both domains. A transition is a
    (state, ground action) pair where the action applies in at least one domain; it agrees
    when it applies in both and the successors are equal on the candidate's mapped
    predicates. An action with no counterpart on the other side makes a transition wherever
    it applies, and that transition disagrees: leaving it out would call a domain that lacks
    an action one that agrees everywhere. ``tally`` counts (action, kind, lifted literal)
    over every disagreement; ``examples`` keeps the first disagreement of each (action,
    kind)."""

    transitions: int
    agreeing: int
    states: int
    problems: tuple[str, ...]
    first: Optional[Disagreement] = None
    examples: tuple[Disagreement, ...] = ()
    by_action: dict = field(default_factory=dict)
    tally: tuple[tuple[str, str, str, int], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def disagreeing(self) -> int:
        return self.transitions - self.agreeing

    @property
    def agreement(self) -> float:
        return _ratio(self.agreeing, self.transitions)

    def to_dict(self) -> dict:
        return {"transitions": self.transitions, "agreeing": self.agreeing,
                "disagreeing": self.disagreeing, "agreement": self.agreement,
                "states": self.states, "problems": list(self.problems),
                "first": self.first.to_dict() if self.first else None,
                "examples": [d.to_dict() for d in self.examples],
                "by_action": self.by_action,
                "tally": [{"action": a, "kind": k, "literal": lit, "count": n}
                          for a, k, lit, n in self.tally],
                "notes": list(self.notes)}


@dataclass(frozen=True)
class DomainComparison:
    """The outcome of :func:`compare_domains`. ``equivalent``: the same actions, and no
    sampled transition disagrees (when states were sampled) or every literal matches (when
    none were)."""

    equivalent: bool
    predicate_mapping: tuple[PredicateMapping, ...]
    type_mapping: dict[str, str]
    actions: tuple[ActionComparison, ...]
    missing_actions: tuple[str, ...] = ()
    extra_actions: tuple[str, ...] = ()
    unmapped_reference: tuple[str, ...] = ()
    unmapped_candidate: tuple[str, ...] = ()
    behaviour: Optional[BehaviourComparison] = None
    notes: tuple[str, ...] = ()
    reference_name: str = ""
    candidate_name: str = ""
    #: how each pair of actions was made (:func:`pair_actions`)
    action_mapping: tuple[ActionMapping, ...] = ()

    @property
    def renamed(self) -> bool:
        """Whether any predicate needed more than its own name to be matched."""
        return any(not m.identity for m in self.predicate_mapping)

    @property
    def precision(self) -> float:
        return _ratio(sum(a.matched_candidate for a in self.actions),
                      sum(a.candidate_literals for a in self.actions))

    @property
    def recall(self) -> float:
        return _ratio(sum(a.matched_reference for a in self.actions),
                      sum(a.reference_literals for a in self.actions))

    def format(self, limit: int = 10) -> str:
        """A report for a person or an LLM: verdict, renaming used, per-action literals,
        then behaviour with the first disagreement named."""
        lines = [("EQUIVALENT" if self.equivalent else "NOT EQUIVALENT")
                 + header_names(self.reference_name, self.candidate_name)
                 + f": literal precision {self.precision:.3f}, recall {self.recall:.3f}"]
        renamed = [m for m in self.predicate_mapping if not m.identity]
        if renamed:
            lines.append("predicate renaming used (candidate = reference):")
            lines.extend(f"  {m.format()}" for m in renamed)
        elif self.predicate_mapping:
            lines.append("predicate renaming used: none (the same names)")
        paired = [m for m in self.action_mapping if m.by != "name" or m.reordered]
        if paired:
            lines.append("action renaming used (reference ~ candidate):")
            lines.extend(f"  {m.format()}" for m in paired)
        types = {a: b for a, b in self.type_mapping.items() if a != b}
        if types:
            lines.append("type renaming used: "
                         + ", ".join(f"{a}->{b}" for a, b in sorted(types.items())))
        if self.unmapped_candidate:
            lines.append("candidate predicates with no reference counterpart (false in every "
                         "state compared): " + ", ".join(self.unmapped_candidate))
        if self.unmapped_reference:
            lines.append("reference predicates the candidate does not express: "
                         + ", ".join(self.unmapped_reference))
        if self.missing_actions:
            lines.append("actions the candidate lacks: " + ", ".join(self.missing_actions))
        if self.extra_actions:
            lines.append("actions only the candidate has: " + ", ".join(self.extra_actions))
        for a in self.actions:
            if a.reference is None or a.candidate is None:
                continue
            head = a.reference if a.reference == a.candidate else f"{a.reference} ~ {a.candidate}"
            verdict = "same literals" if a.exact else \
                f"precision {a.precision:.2f}, recall {a.recall:.2f}"
            lines.append(f"action {head}: {verdict}")
            for title, items in (("missing precondition", a.missing_preconditions),
                                 ("extra precondition", a.extra_preconditions),
                                 ("missing effect", a.missing_effects),
                                 ("extra effect", a.extra_effects)):
                for item in items[:limit]:
                    lines.append(f"  {title}: {item}")
        b = self.behaviour
        if b is None:
            lines.append("behaviour: not compared (no reference problems or states given)")
        else:
            lines.append(f"behaviour: {b.agreeing}/{b.transitions} sampled transitions agree "
                         f"({b.agreement:.1%}) over {b.states} states of "
                         f"{len(b.problems)} problem(s)")
            if b.first is not None:
                lines.append("first disagreement: " + b.first.format())
            for action, kinds in sorted(b.by_action.items()):
                parts = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
                lines.append(f"  {action}: {parts}")
            lines.extend(f"note: {n}" for n in b.notes)
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"kind": "domain", "equivalent": self.equivalent,
                "reference": self.reference_name, "candidate": self.candidate_name,
                "precision": self.precision, "recall": self.recall,
                "renamed": self.renamed,
                "predicate_mapping": [m.to_dict() for m in self.predicate_mapping],
                "action_mapping": [m.to_dict() for m in self.action_mapping],
                "type_mapping": dict(sorted(self.type_mapping.items())),
                "unmapped_reference": list(self.unmapped_reference),
                "unmapped_candidate": list(self.unmapped_candidate),
                "missing_actions": list(self.missing_actions),
                "extra_actions": list(self.extra_actions),
                "actions": [a.to_dict() for a in self.actions],
                "behaviour": self.behaviour.to_dict() if self.behaviour else None,
                "notes": list(self.notes)}


def _ratio(a: int, b: int) -> float:
    return a / b if b else 1.0


def header_names(reference: str, candidate: str) -> str:
    """`` (REF vs CAND)`` for a verdict line, in the order the two were given (the
    reference first, as ``pddlkit compare REF CAND`` takes them); empty without names."""
    if not (reference or candidate):
        return ""
    return f" ({reference or 'reference'} vs {candidate or 'candidate'})"


# ---------------------------------------------------------------------------- literals


@dataclass(frozen=True)
class _Lit:
    """A lifted literal of an action: arguments are ``#i`` (parameter i), ``?qN`` (a
    quantified variable, numbered in order) or a constant."""

    section: str
    positive: bool
    predicate: str
    args: tuple[str, ...]

    def text(self, params: Sequence[str]) -> str:
        shown = [params[int(a[1:])] if a.startswith("#") else a for a in self.args]
        atom = "(" + " ".join([self.predicate, *shown]) + ")"
        return atom if self.positive else f"(not {atom})"


def action_literals(action: Action, keep_names: bool = False) -> list[_Lit]:
    """Every precondition atom with its polarity (under ``or`` and quantifiers too), and
    every effect literal (inside ``when`` and ``forall`` too, their conditions left out).
    Quantified variables are ``?q0``, ``?q1``... in order (so two actions compare), or keep
    their own names (``keep_names``, for showing)."""
    index = {p.name: f"#{i}" for i, p in enumerate(action.parameters)}
    counter = [0]
    out: list[_Lit] = []

    def term(t: str, scope: dict) -> str:
        return scope.get(t, t)

    def walk(f: Formula, positive: bool, scope: dict) -> None:
        if isinstance(f, Atom):
            out.append(_Lit(PRE, positive, f.predicate, tuple(term(a, scope) for a in f.args)))
        elif isinstance(f, Not):
            walk(f.formula, not positive, scope)
        elif isinstance(f, (And, Or)):
            for p in f.parts:
                walk(p, positive, scope)
        elif isinstance(f, Imply):
            walk(f.condition, not positive, scope)
            walk(f.consequence, positive, scope)
        elif isinstance(f, (Exists, Forall)):
            inner = dict(scope)
            for v in f.variables:
                inner[v.name] = v.name if keep_names else f"?q{counter[0]}"
                counter[0] += 1
            walk(f.body, positive, inner)

    def effects(es, scope: dict) -> None:
        for e in es:
            if isinstance(e, Literal):
                out.append(_Lit(EFF, e.positive, e.atom.predicate,
                                tuple(term(a, scope) for a in e.atom.args)))
            elif isinstance(e, When):
                effects(e.effects, scope)
            elif isinstance(e, ForallEffect):
                inner = dict(scope)
                for v in e.variables:
                    inner[v.name] = v.name if keep_names else f"?q{counter[0]}"
                    counter[0] += 1
                effects(e.effects, inner)

    walk(action.precondition, True, index)
    effects(action.effects, index)
    return out


# ---------------------------------------------------------------------------- alignment


def _norm(name: str) -> str:
    return name.lower().replace("_", "-")


def match_actions(ref: Domain, cand: Domain) -> list[tuple[Action, Action]]:
    """Pairs of actions: the same name (``_`` and ``-`` alike), then a close name of the
    same arity."""
    pairs: list[tuple[Action, Action]] = []
    by_name = {_norm(a.name): a for a in cand.actions}
    used: set = set()
    left = []
    for a in ref.actions:
        b = by_name.get(_norm(a.name))
        if b is not None and b.name not in used and b.arity == a.arity:
            pairs.append((a, b))
            used.add(b.name)
        else:
            left.append(a)
    for a in left:
        options = {_norm(b.name): b for b in cand.actions
                   if b.name not in used and b.arity == a.arity}
        close = difflib.get_close_matches(_norm(a.name), list(options), n=1, cutoff=0.6)
        if close:
            pairs.append((a, options[close[0]]))
            used.add(options[close[0]].name)
    return pairs


#: the least share of two actions' literals that must match (under the predicate renaming)
#: for a reference action to be paired with a candidate action of another name
ACTION_AGREEMENT = 0.5
#: the least share of literals alike with predicate names left out (the same parameters in
#: the same places, section and polarity) for such a pair when the predicate renaming cannot
#: tell yet (the candidate renamed predicates and actions both); one such pair is taken at a
#: time, and the renaming is found again with its evidence before the next
ACTION_SHAPE = 0.8
#: actions with at most this many parameters are also tried with their parameters reordered
MAX_REORDERED = 4


def pair_actions(ref: Domain, cand: Domain
                 ) -> tuple[list[tuple[Action, Action]], list[ActionMapping]]:
    """Every pair of a reference action and its candidate counterpart, and how each was made.

    First by name (:func:`match_actions`). Then, as predicates are matched by renaming, each
    reference action left is paired with a candidate action left of the same arity whose
    literals agree with it under the predicate renaming the pairs so far support
    (:data:`ACTION_AGREEMENT` of both actions' literals at least; parameters in the candidate's
    order or, up to :data:`MAX_REORDERED` parameters, any other), best first, one candidate
    action per reference action; a pair alike only in shape (:data:`ACTION_SHAPE`) is taken
    one at a time, when no pair agrees by literals. A pair made by literals holds the
    candidate action with its parameters in the reference's order, so the rest of the
    comparison (by parameter position) needs no other change."""
    pairs = match_actions(ref, cand)
    mapping = [ActionMapping(a.name, b.name, "name" if _norm(a.name) == _norm(b.name)
                             else "close name", tuple(p.name for p in b.parameters))
               for a, b in pairs]
    left_r = [a for a in ref.actions if a.name not in {x.name for x, _ in pairs}]
    left_c = [b for b in cand.actions if b.name not in {y.name for _, y in pairs}]
    while left_r and left_c:
        by_ref = _by_reference(_rank_predicates(pairs, ref, cand)[0])
        options = []
        for a in left_r:
            for b in left_c:
                if b.arity != a.arity:
                    continue
                identity = tuple(range(a.arity))
                orders = itertools.permutations(identity) if a.arity <= MAX_REORDERED \
                    else (identity,)
                for order in orders:
                    moved = _reordered(b, order)
                    agree = _literal_agreement(compare_actions(a, moved, by_ref))
                    shape = _shape_agreement(a, moved)
                    if agree >= ACTION_AGREEMENT or shape >= ACTION_SHAPE:
                        similar = difflib.SequenceMatcher(None, _norm(a.name),
                                                          _norm(b.name)).ratio()
                        options.append((-agree, -shape, order != identity, -similar, a.name,
                                        b.name, order, a, moved))
        options.sort(key=lambda o: o[:7])
        taken_r: set = set()
        taken_c: set = set()
        for neg_agree, _, reordered, _, _, _, _, a, moved in options:
            by_literals = -neg_agree >= ACTION_AGREEMENT
            if a.name in taken_r or moved.name in taken_c or (taken_r and not by_literals):
                continue
            pairs.append((a, moved))
            mapping.append(ActionMapping(a.name, moved.name,
                                         "literals" if by_literals else "shape",
                                         tuple(p.name for p in moved.parameters), reordered))
            taken_r.add(a.name)
            taken_c.add(moved.name)
            if not by_literals:
                break   # alike in shape only: find the renaming again with this pair first
        if not taken_r:
            break
        left_r = [a for a in left_r if a.name not in taken_r]
        left_c = [b for b in left_c if b.name not in taken_c]
    return pairs, mapping


def _reordered(action: Action, order: tuple[int, ...]) -> Action:
    """``action`` with its parameter ``order[i]`` at position ``i``."""
    if order == tuple(range(len(order))):
        return action
    return dataclasses.replace(action, parameters=tuple(action.parameters[k] for k in order))


def _literal_agreement(c: ActionComparison) -> float:
    """The share of both actions' literals matched (1.0 for two actions with none)."""
    return _ratio(c.matched_reference + c.matched_candidate,
                  c.reference_literals + c.candidate_literals)


def _shape_agreement(a: Action, b: Action) -> float:
    """The share of both actions' literals that have a counterpart of the same section,
    polarity and arguments, whatever its predicate."""
    shapes = [Counter((x.section, x.positive, x.args) for x in dict.fromkeys(action_literals(y)))
              for y in (a, b)]
    return _ratio(2 * sum((shapes[0] & shapes[1]).values()),
                  sum(shapes[0].values()) + sum(shapes[1].values()))


def _by_reference(mappings: Iterable[PredicateMapping]) -> dict[str, list[PredicateMapping]]:
    """The predicate mappings by the reference predicate they read."""
    out: dict[str, list[PredicateMapping]] = defaultdict(list)
    for m in mappings:
        out[m.reference].append(m)
    return out


def map_types(pairs: list[tuple[Action, Action]], ref: Domain, cand: Domain) -> dict[str, str]:
    """Each reference type to the candidate type its parameters most often have."""
    votes: dict[str, Counter] = defaultdict(Counter)
    for a, b in pairs:
        for p, q in zip(a.parameters, b.parameters):
            for t in p.types:
                votes[t].update(q.types)
    declared = {t.name for t in cand.types} | {"object"}
    out = {}
    for t in {x.name for x in ref.types} | set(votes) | {"object"}:
        if votes.get(t):
            out[t] = max(sorted(votes[t]), key=lambda c: votes[t][c])
        else:
            out[t] = t if t in declared else "object"
    return out


def type_votes(pairs: list[tuple[Action, Action]]) -> dict[str, tuple[str, ...]]:
    """Each reference type to every candidate type its parameters have somewhere: an object
    of the reference type gets all of them in the candidate's world (a model may call a room
    ``location`` in one action and ``room`` in another)."""
    votes: dict[str, dict] = defaultdict(dict)
    for a, b in pairs:
        for p, q in zip(a.parameters, b.parameters):
            for t in p.types:
                votes[t].update(dict.fromkeys(q.types))
    return {t: tuple(sorted(v)) for t, v in votes.items()}


def map_predicates(pairs: list[tuple[Action, Action]], ref: Domain, cand: Domain
                   ) -> list[PredicateMapping]:
    """A definition of each candidate predicate it can find (see the module docstring):
    candidates ``(reference, order, negated)`` scored by the literal pairs of matched
    actions they explain; the best first, each reference predicate used at most once
    positively and once negated; ties go to the same name, the identity order, the more
    similar name (``door-closed`` is nearer ``door-open`` than ``has-door``), positive."""
    return _rank_predicates(pairs, ref, cand)[0]


def _rank_predicates(pairs: list[tuple[Action, Action]], ref: Domain, cand: Domain
                     ) -> tuple[list[PredicateMapping], dict[str, list[PredicateMapping]]]:
    """:func:`map_predicates`'s choice, and per candidate predicate the definitions with
    as much evidence as the chosen one (a tie the literals cannot break)."""
    lits = [(action_literals(a), action_literals(b)) for a, b in pairs]
    arity_r = predicate_arities(ref)
    arity_c = predicate_arities(cand)
    score: Counter = Counter()
    for lr, lc in lits:
        for x in lr:
            if x.predicate not in arity_r:
                continue
            for y in lc:
                if y.section != x.section or y.predicate not in arity_c \
                        or len(y.args) != len(x.args) or len(x.args) > 4:
                    continue
                for order in itertools.permutations(range(len(x.args))):
                    if tuple(x.args[i] for i in order) != y.args:
                        continue
                    score[(y.predicate, x.predicate, order, x.positive != y.positive)] += 1
    for q, k in arity_c.items():   # the same name, by name alone
        if arity_r.get(q) == k:
            score.setdefault((q, q, tuple(range(k)), False), 0)
    # on equal evidence: the same name, then the same argument order, then a plain renaming
    # before a negation (the simpler reading), then the closer name
    ranked = sorted(score.items(), key=lambda kv: (
        -kv[1], kv[0][0] != kv[0][1], kv[0][2] != tuple(range(len(kv[0][2]))), kv[0][3],
        -round(difflib.SequenceMatcher(None, kv[0][0], kv[0][1]).ratio(), 3),
        kv[0][0], kv[0][1], kv[0][2]))
    chosen: dict[str, PredicateMapping] = {}
    used: set = set()
    for (q, p, order, negated), n in ranked:
        if q in chosen or (p, negated) in used:
            continue
        if n == 0 and q != p:
            continue
        guard = _guard(ref, p) if negated else None
        chosen[q] = PredicateMapping(q, p, tuple(order), negated, guard, n)
        used.add((p, negated))
    ties: dict[str, list[PredicateMapping]] = {}
    for q, m in chosen.items():
        if m.evidence == 0 or m.identity:   # the same name with the most evidence: no doubt
            continue
        others = [PredicateMapping(q, p, tuple(order), negated,
                                   _guard(ref, p) if negated else None, n)
                  for (q2, p, order, negated), n in ranked
                  if q2 == q and n == m.evidence and (p, tuple(order), negated)
                  != (m.reference, m.order, m.negated)]
        same = (q, q, tuple(range(len(m.order))), False)
        if same in score and all(not o.identity for o in others[:MAX_TIES - 2]):
            # the same name, outvoted by the literals, is still a reading worth trying by
            # behaviour: measured on Qwen2.5-Coder 1.5B's learned CoinCollector domain, whose
            # open-door and close-door also need (connected ...), the literals read its
            # connected as door-open, and every move through a doorway disagreed
            others = others[:MAX_TIES - 2] + [PredicateMapping(q, q, same[2], False, None,
                                                               score[same])]
        if others:
            ties[q] = [m] + others[:MAX_TIES - 1]
    return [chosen[q] for q in sorted(chosen)], ties


#: at most this many equally supported definitions of one predicate are tried by behaviour,
#: and at most :data:`MAX_COMBINATIONS` combinations of them
MAX_TIES = 3
MAX_COMBINATIONS = 27


def predicate_arities(domain: Domain) -> dict[str, int]:
    """Declared predicates, and those only used in actions (a model often forgets to declare
    them; the reader accepts that and ``check`` reports it), with their arity."""
    out = {p.name: p.arity for p in domain.predicates}
    for a in domain.actions:
        for lit in action_literals(a):
            if lit.predicate != "=":
                out.setdefault(lit.predicate, len(lit.args))
    return out


def _guard(ref: Domain, predicate: str) -> Optional[str]:
    """The positive precondition literal over the same arguments that most often sits beside
    ``(not (predicate ...))`` in the reference's actions (``has-door`` beside ``(not
    (door-open ...))``), or None."""
    votes: Counter = Counter()
    for a in ref.actions:
        pre = [x for x in action_literals(a) if x.section == PRE]
        for x in pre:
            if x.predicate == predicate and not x.positive:
                for y in pre:
                    if y.positive and y.args == x.args and y.predicate != predicate:
                        votes[y.predicate] += 1
    if not votes:
        return None
    return max(sorted(votes), key=lambda g: votes[g])


def _translate(lit: _Lit, mappings: dict[str, list[PredicateMapping]]) -> list[_Lit]:
    if lit.predicate == "=":
        return [lit]
    out = []
    for m in mappings.get(lit.predicate, ()):
        positive = lit.positive != m.negated
        out.append(_Lit(lit.section, positive, m.candidate, tuple(lit.args[i] for i in m.order)))
    return out


def compare_actions(a: Optional[Action], b: Optional[Action],
                    mappings: dict[str, list[PredicateMapping]]) -> ActionComparison:
    """Literal matching of one action pair under the predicate mappings (a guard literal
    counts as matched when the negated literal it guards is)."""
    lr = list(dict.fromkeys(action_literals(a))) if a is not None else []
    lc = list(dict.fromkeys(action_literals(b))) if b is not None else []
    cand_set = set(lc)
    matched_r: set = set()
    matched_c: set = set()
    guards: set = set()
    for x in lr:
        for y in _translate(x, mappings):
            if y in cand_set:
                matched_r.add(x)
                matched_c.add(y)
                m = next(m for m in mappings.get(x.predicate, ()) if m.candidate == y.predicate) \
                    if x.predicate != "=" else None
                if m is not None and m.negated and m.guard:
                    guards.add(_Lit(x.section, True, m.guard, x.args))
    matched_r |= {x for x in lr if x in guards}
    pr = [p.name for p in a.parameters] if a is not None else []
    pc = [p.name for p in b.parameters] if b is not None else []
    missing = [x for x in lr if x not in matched_r]
    extra = [y for y in lc if y not in matched_c]
    return ActionComparison(
        reference=a.name if a is not None else None,
        candidate=b.name if b is not None else None,
        matched_preconditions=sum(1 for x in matched_r if x.section == PRE),
        matched_effects=sum(1 for x in matched_r if x.section == EFF),
        reference_literals=len(lr), candidate_literals=len(lc),
        matched_reference=len(matched_r), matched_candidate=len(matched_c),
        missing_preconditions=tuple(x.text(pr) for x in missing if x.section == PRE),
        extra_preconditions=tuple(y.text(pc) for y in extra if y.section == PRE),
        missing_effects=tuple(x.text(pr) for x in missing if x.section == EFF),
        extra_effects=tuple(y.text(pc) for y in extra if y.section == EFF))


# ---------------------------------------------------------------------------- behaviour


class _Translator:
    """Reference states in the candidate's vocabulary, for one reference problem."""

    def __init__(self, ref_world: World, cand: Domain, mappings: list[PredicateMapping],
                 type_mapping: dict[str, str], votes: Optional[dict] = None):
        self.ref_world = ref_world
        self.mappings = mappings
        self.votes = votes or {}
        constants = {c.name for c in cand.constants}
        declared = {t.name for t in cand.types} | {"object"}
        objects = []
        for name, types in ref_world.object_types.items():
            if name in constants:
                continue
            mapped = tuple(dict.fromkeys(
                x for t in types for x in (self.votes.get(t)
                                           or (type_mapping.get(t, t if t in declared
                                                                else "object"),))))
            objects.append(TypedName(name, mapped))
        problem = Problem(name=ref_world.problem.name, domain_name=cand.name,
                          objects=tuple(objects))
        self.world = World(cand, problem)
        self._tuples: dict[str, list[tuple]] = {}
        self.mapped = frozenset(m.candidate for m in mappings)

    def _all_tuples(self, predicate: str) -> list[tuple]:
        if predicate not in self._tuples:
            decl = self.ref_world.domain.predicate_map.get(predicate)
            params = decl.parameters if decl is not None else ()
            self._tuples[predicate] = [tuple(b[p.name] for p in params)
                                       for b in self.ref_world.bindings(params)]
        return self._tuples[predicate]

    def __call__(self, state: State) -> State:
        atoms = set()
        by = state.by_predicate
        for m in self.mappings:
            if not m.negated:
                for atom in by.get(m.reference, ()):
                    args = atom[1:]
                    if len(args) == len(m.order):
                        atoms.add((m.candidate, *(args[i] for i in m.order)))
                continue
            source = [a[1:] for a in by.get(m.guard, ())] if m.guard else \
                self._all_tuples(m.reference)
            for args in source:
                if len(args) == len(m.order) and (m.reference, *args) not in state.atoms:
                    atoms.add((m.candidate, *(args[i] for i in m.order)))
        return self.world.with_derived(State(frozenset(atoms), state.fluents))


def applicable_groundings(action: Action, state: State, world: World
                          ) -> dict[tuple, GroundAction]:
    """Every grounding of ``action`` applicable in ``state``, by its arguments (in the
    action's parameter order)."""
    out = {}
    for b in candidate_bindings(action.parameters, action.precondition, state, {}, world):
        if len(b) != len(action.parameters):
            continue
        if holds(action.precondition, state, b, world):
            args = tuple(b[p.name] for p in action.parameters)
            out[args] = ground(action, args)
    return out


def _false_parts(action: Action, binding: dict, state: State, world: World
                 ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Why ``action`` does not apply under ``binding``: parameters whose type the object
    lacks (``patio - location``), then the top-level conjuncts of its precondition that are
    false: (ground, lifted)."""
    pre = action.precondition
    parts = pre.parts if isinstance(pre, And) else (pre,)
    ground_out, lifted = [], []
    for p in action.parameters:   # an object the action's parameter types do not admit
        value = binding.get(p.name)
        if value is not None and not world.is_of_type(value, p.types):
            kinds = " or ".join(p.types)
            ground_out.append(f"{value} - {kinds}")
            lifted.append(f"{p.name} - {kinds}")
    for p in parts:
        if not holds(p, state, binding, world):
            ground_out.append(ground_text(p, binding))
            lifted.append(" ".join(write_formula(p).split()))
    return tuple(ground_out), tuple(lifted)


def _lift_effect(atom: tuple, args: tuple, patterns: list, binding: dict) -> str:
    """``atom`` over the action's parameters: the first effect literal (the reference's,
    renamed, then the candidate's) that grounds to it, written with its own quantified
    variables; else each object that one parameter alone has is replaced by it."""
    bound: dict = {}
    for lit, names in patterns:
        if lit.predicate != atom[0] or len(lit.args) != len(atom) - 1:
            continue
        shown = []
        for term, value in zip(lit.args, atom[1:]):
            if term.startswith("#"):
                if args[int(term[1:])] != value:
                    break
                shown.append(names[int(term[1:])])
            elif term.startswith("?"):
                if bound.setdefault(term, value) != value:
                    break
                shown.append(term)
            elif term != value:
                break
            else:
                shown.append(value)
        else:
            return format_atom((atom[0], *shown))
        bound.clear()
    return _lift(atom, binding)


def _lift(atom: tuple, binding: dict) -> str:
    inverse: dict = {}
    for var, value in binding.items():
        inverse.setdefault(value, []).append(var)
    shown = [inverse[a][0] if len(inverse.get(a, ())) == 1 else a for a in atom[1:]]
    return format_atom((atom[0], *shown))


StateLike = Union[State, Iterable]


def compare_domains(reference: DomainLike, candidate: DomainLike,
                    problems: Sequence[ProblemLike] = (), *,
                    states: Optional[Sequence[tuple]] = None,
                    transitions: int = 200, seed: int = 0, depth: int = 25,
                    max_examples: int = 50) -> DomainComparison:
    """Compare a candidate domain with the reference, literal by literal and by behaviour.

    Literals: actions are paired by name (``open_door`` ~ ``open-door``; then a close name of
    the same arity; then, for the actions left, by literals under the predicate renaming:
    ``stack`` ~ ``put-on``, :func:`pair_actions`, reported as ``action_mapping``), parameters
    by position; the candidate's predicates are defined from the
    reference's (:func:`map_predicates`, reported as ``predicate_mapping``), and each
    action's precondition atoms (with polarity) and effect literals are matched under that
    renaming; precision is the share of the candidate's literals matched, recall the share
    of the reference's. When the literals support several definitions of a predicate equally
    (``door-at`` beside both ``connected`` and ``has-door``) and states can be sampled, each
    combination (at most :data:`MAX_COMBINATIONS`) is tried on a shorter sample and the one
    whose transitions agree most is used: the most favourable reading of the candidate, so
    what still disagrees is the candidate's, not the renaming's; a note says so.

    Behaviour: from ``states`` (pairs of a reference problem and a state of it, as a State
    or atoms like ``("at", "kitchen")``; a triple adds the ground action taken there,
    ``"(move kitchen corridor east)"``, and only that action is compared at that state: the
    transitions an agent took, read back from a run), or else from random walks of up to
    ``depth`` steps from the initial states of ``problems`` (reference problems, in the
    reference's vocabulary; ``seed`` fixes the walks), every paired action is grounded in
    both domains at each state reached until ``transitions`` (state, action) pairs where at
    least one domain applies the action have been compared: applicable in both or neither,
    and if both, the same successor on the candidate's mapped predicates (the reference's
    successor is translated with the renaming; candidate predicates with no definition are
    false in every translated state and not compared after); an action with no counterpart
    makes a transition wherever it applies (the reference's in the reference state, the
    candidate's in the translated one), and it disagrees. Numeric fluents are carried over and not
    compared. The first disagreement is named (action, state, literal), and every one is
    counted by action, kind and lifted literal.

    Inputs are models, PDDL text or paths; one that cannot be read raises
    :class:`~pddlkit.compare.inputs.CompareInputError` naming it.
    """
    ref = load_domain(reference, "reference")
    cand = load_domain(candidate, "candidate")
    pairs, action_mapping = pair_actions(ref, cand)
    type_mapping = map_types(pairs, ref, cand)
    mappings, ties = _rank_predicates(pairs, ref, cand)
    notes = []
    if ties and (states is not None or problems):
        mappings, tried = _break_ties(ref, cand, pairs, mappings, ties, type_mapping, problems,
                                      states, min(transitions, 100), seed, depth)
        if tried > 1:
            notes.append(f"{tried} equally supported predicate renamings were tried; the one "
                         "whose sampled transitions agree most is used")
    by_ref = _by_reference(mappings)
    actions = [compare_actions(a, b, by_ref) for a, b in pairs]
    action_mapping = [dataclasses.replace(m, agreement=round(_literal_agreement(c), 3))
                      for m, c in zip(action_mapping, actions)]
    paired_r = {a.name for a, _ in pairs}
    paired_c = {b.name for _, b in pairs}
    missing = tuple(a.name for a in ref.actions if a.name not in paired_r)
    extra = tuple(b.name for b in cand.actions if b.name not in paired_c)
    actions += [compare_actions(ref.action(n), None, by_ref) for n in missing]
    actions += [compare_actions(None, cand.action(n), by_ref) for n in extra]
    unmapped_r = tuple(sorted(p for p in predicate_arities(ref) if p not in by_ref))
    unmapped_c = tuple(sorted(p for p in predicate_arities(cand)
                              if p not in {m.candidate for m in mappings}))
    for name in missing:
        other = next((b for b in cand.actions if _norm(b.name) == _norm(name)
                      and b.name not in paired_c), None)
        if other is not None:
            notes.append(f"{name}: the candidate's has {other.arity} parameter(s), the "
                         f"reference's {ref.action(name).arity}; actions are compared by "
                         "parameter position, so these two are not paired")
    behaviour = None
    if states is not None or problems:
        behaviour = _behaviour(ref, cand, pairs, mappings, type_mapping, problems, states,
                               transitions, seed, depth, max_examples)
    structural = all(a.exact for a in actions)
    if behaviour is not None and behaviour.transitions:
        agree = behaviour.disagreeing == 0
    else:
        agree = structural
        if behaviour is not None:
            notes.append("no transition was sampled: the verdict is by literals alone")
    return DomainComparison(
        equivalent=not missing and not extra and agree,
        predicate_mapping=tuple(mappings), type_mapping=type_mapping,
        actions=tuple(actions), missing_actions=missing, extra_actions=extra,
        unmapped_reference=unmapped_r, unmapped_candidate=unmapped_c, behaviour=behaviour,
        notes=tuple(notes), reference_name=ref.name, candidate_name=cand.name,
        action_mapping=tuple(action_mapping))


def _break_ties(ref, cand, pairs, mappings, ties, type_mapping, problems, states,
                transitions: int, seed: int, depth: int) -> tuple[list, int]:
    """The combination of tied definitions whose sampled transitions agree most (on equal
    agreement, the one that reads more predicates by their own name, then the first: the
    literal ranking's choice)."""
    names = sorted(ties)
    combos = list(itertools.islice(itertools.product(*(ties[q] for q in names)),
                                   MAX_COMBINATIONS))
    best, best_score = mappings, (-1.0, 0)
    for combo in combos:
        choice = {m.candidate: m for m in mappings}
        choice.update({m.candidate: m for m in combo})
        trial = [choice[q] for q in sorted(choice)]
        b = _behaviour(ref, cand, pairs, trial, type_mapping, problems, states, transitions,
                       seed, depth, 1)
        score = (b.agreement if b.transitions else 0.0, sum(m.identity for m in trial))
        if score > best_score:
            best, best_score = trial, score
    return best, len(combos)


def _taken(action: str) -> tuple[str, tuple[str, ...]]:
    """A ground action's text, ``"(move kitchen corridor east)"``, as (name, args), lower
    case, as the groundings are keyed."""
    words = action.strip().strip("()").lower().split()
    if not words:
        from ..diagnostics import Diagnostic, Severity

        diag = Diagnostic("unreadable-input", Severity.ERROR,
                          f"the action taken at a state is empty: {action!r}",
                          hint='give it as PDDL: "(move kitchen corridor east)"')
        raise CompareInputError([diag], "a state's action taken cannot be read", "states")
    return words[0], tuple(words[1:])


def _as_state(world: World, atoms: StateLike) -> State:
    if isinstance(atoms, State):
        return world.with_derived(atoms)
    out = set()
    for a in atoms:
        if isinstance(a, str):
            a = tuple(a.strip().strip("()").lower().split())
        out.add(tuple(a))
    return world.with_derived(State(frozenset(out)))


def _behaviour(ref: Domain, cand: Domain, pairs, mappings, type_mapping, problems, states,
               transitions: int, seed: int, depth: int, max_examples: int
               ) -> BehaviourComparison:
    rng = random.Random(seed)
    worlds: list[tuple[World, _Translator]] = []
    starts: list[list[State]] = []
    for p in problems:
        problem = load_problem(p, "reference problem")
        w = World(ref, problem)
        worlds.append((w, _Translator(w, cand, mappings, type_mapping, type_votes(pairs))))
        starts.append([w.initial_state])
    only: list[Optional[tuple]] = [None] * len(worlds)   # the action taken, when given
    if states is not None:
        for p, atoms, *taken in states:
            problem = load_problem(p, "reference problem")
            w = World(ref, problem)
            worlds.append((w, _Translator(w, cand, mappings, type_mapping, type_votes(pairs))))
            starts.append([_as_state(w, atoms)])
            only.append(_taken(taken[0]) if taken else None)
    counts = {"transitions": 0, "agreeing": 0}
    seen: set = set()
    examples: dict = {}
    first: list = []
    by_action: dict = defaultdict(Counter)
    tally: Counter = Counter()
    notes: list[str] = []
    fixed = states is not None and not problems

    by_ref = _by_reference(mappings)
    alone_r = [a for a in ref.actions if a.name not in {x.name for x, _ in pairs}]
    alone_c = [b for b in cand.actions if b.name not in {y.name for _, y in pairs}]
    patterns = {}
    for a, b in pairs:
        names = [p.name for p in a.parameters]
        own = [t for x in action_literals(a, keep_names=True) if x.section == EFF
               for t in _translate(x, by_ref)]
        theirs = [y for y in action_literals(b, keep_names=True) if y.section == EFF]
        patterns[a.name] = [(lit, names) for lit in own + theirs]

    def disagree(d: Disagreement) -> None:
        if not first:
            first.append(d)
        key = (d.schema, d.kind)
        if key not in examples and len(examples) < max_examples:
            examples[key] = d
        by_action[d.schema][d.kind] += 1
        for lit in d.lifted or ("",):
            tally[(d.schema, d.kind, lit)] += 1

    def check(wi: int, state: State) -> list[GroundAction]:
        world, tr = worlds[wi]
        cstate = tr(state)
        app = {a.name: applicable_groundings(a, state, world) for a in ref.actions}
        walk_next = [found[args] for found in app.values() for args in sorted(found)]
        atoms = tuple(format_atom(x) for x in sorted(state.atoms))
        taken = only[wi]
        for a, b in pairs:
            if taken is not None and taken[0] != a.name.lower():
                continue
            app_r = app[a.name]
            app_c = applicable_groundings(b, cstate, tr.world)
            grounded = set(app_r) | set(app_c) if taken is None else {taken[1]}
            for args in sorted(grounded):
                if counts["transitions"] >= transitions:
                    return walk_next
                counts["transitions"] += 1
                gr, gc = app_r.get(args), app_c.get(args)
                action_text = "(" + " ".join((a.name, *args)) + ")"
                if gr is None and gc is None:   # a step taken that neither allows: alike
                    counts["agreeing"] += 1
                    continue
                if gr is not None and gc is not None:
                    after_r = tr(gr.apply(state, world))
                    after_c = gc.apply(cstate, tr.world)
                    keep = tr.mapped
                    want = {x for x in after_r.atoms if x[0] in keep}
                    got = {x for x in after_c.atoms if x[0] in keep}
                    if want == got:
                        counts["agreeing"] += 1
                        continue
                    diff = [("missing", x) for x in sorted(want - got)] + \
                           [("extra", x) for x in sorted(got - want)]
                    literals = tuple(f"{k} {format_atom(x)}" for k, x in diff)
                    lifted = tuple(f"{k} {_lift_effect(x, args, patterns[a.name], gc.binding)}"
                                   for k, x in diff)
                    kind = SUCCESSOR
                elif gc is not None:
                    g = ground(a, args)
                    literals, lifted = _false_parts(a, g.binding, state, world)
                    kind = ONLY_CANDIDATE
                else:
                    g = ground(b, args)
                    literals, lifted = _false_parts(b, g.binding, cstate, tr.world)
                    kind = ONLY_REFERENCE
                disagree(Disagreement(kind, action_text, a.name, world.problem.name, atoms,
                                      literals, lifted))
        alone = [(NO_COUNTERPART, a.name, sorted(app[a.name])) for a in alone_r]
        alone += [(CANDIDATE_ONLY_ACTION, b.name,
                   sorted(applicable_groundings(b, cstate, tr.world))) for b in alone_c]
        for kind, name, grounded in alone:
            if taken is not None:
                grounded = [args for args in grounded if (name.lower(), args) == taken]
            for args in grounded:
                if counts["transitions"] >= transitions:
                    return walk_next
                counts["transitions"] += 1
                disagree(Disagreement(kind, "(" + " ".join((name, *args)) + ")", name,
                                      world.problem.name, atoms, (), ()))
        return walk_next

    stale = 0
    walk = 0
    while counts["transitions"] < transitions and worlds and stale < 20:
        wi = walk % len(worlds)
        walk += 1
        state = starts[wi][0]
        new = False
        for _ in range(depth if not fixed else 1):
            key = (wi, state)
            if key not in seen:
                seen.add(key)
                new = True
                nexts = check(wi, state)
            else:
                world = worlds[wi][0]
                nexts = []
                for a in ref.actions:
                    found = applicable_groundings(a, state, world)
                    nexts += [found[args] for args in sorted(found)]
            if counts["transitions"] >= transitions or not nexts:
                break
            state = rng.choice(nexts).apply(state, worlds[wi][0])
        stale = 0 if new else stale + 1
        if fixed and walk >= len(worlds):
            break
    if counts["transitions"] < transitions and worlds:
        notes.append(f"only {counts['transitions']} transitions found in the states reached "
                     f"({len(seen)} states; asked for {transitions})")
    return BehaviourComparison(
        transitions=counts["transitions"], agreeing=counts["agreeing"], states=len(seen),
        problems=tuple(dict.fromkeys(w.problem.name for w, _ in worlds)),
        first=first[0] if first else None, examples=tuple(examples.values()),
        by_action={k: dict(v) for k, v in sorted(by_action.items())},
        tally=tuple((a, k, lit, n) for (a, k, lit), n in
                    sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))),
        notes=tuple(notes))
