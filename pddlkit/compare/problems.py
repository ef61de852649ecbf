"""Is a problem the reference problem under other names? And if not, how far from it is it?

A success rate says whether a formalizer's problem file led to a plan; it does not say
whether the file was *right*: a problem can be solvable and describe another world (a
hallucinated door, a forgotten room, the wrong goal). :func:`compare_problems` answers the
question Planetarium (Zuo et al., NAACL 2025) asks, for any domain: is the candidate the
reference up to a renaming of objects, and if not, which facts are missing or invented under
the renaming that explains it best.

That verdict is strict: a goal is compared as written. Planetarium also calls two goals the
same when one only adds facts the rest implies (``(clear a) (ontable c)`` beside ``(on a b)
(on b c)`` with three blocks), by completing each goal with what every goal state has. Its
oracle is written by hand per domain; ``complete_goals`` finds the same facts for any domain
by exploring the states reachable from each problem's init (:func:`complete_goal`, bounded by
a state count it reports hitting), and gives that verdict beside the strict one.
"""

from __future__ import annotations

import dataclasses
import heapq
from dataclasses import dataclass, field
from typing import Optional

from ..pddl.model import (
    And, Atom, BinaryOp, Comparison, Domain, Exists, Forall, Formula, FunctionTerm, Imply,
    Not, Number, NumericExpr, Or, Problem, iter_effect_literals,
)
from ..diagnostics import Diagnostic, Severity
from ..semantics.formulas import holds
from ..semantics.world import World
from .domains import applicable_groundings, header_names
from .inputs import CompareInputError, DomainLike, ProblemLike, load_domain, load_problem
from .matching import Structure, match

# fact labels (the first element of a matched fact)
INIT, NUMERIC, GOAL, GOAL_NOT, GOAL_FORMULA, METRIC = (
    "init", "numeric", "goal", "goal-not", "goal-formula", "metric")
_GOAL_KINDS = (GOAL, GOAL_NOT, GOAL_FORMULA, METRIC)


@dataclass(frozen=True)
class FactDifference:
    """One fact (or goal literal) on one side only. ``fact`` is written in the names of the
    problem it belongs to (the reference's for what is missing, the candidate's for what is
    extra); ``renamed`` is the same fact in the other problem's names under the renaming,
    when every object in it has a counterpart (what to add to, or look for in, the other
    file)."""

    fact: str
    renamed: Optional[str] = None

    def format(self) -> str:
        return self.fact if self.renamed in (None, self.fact) else f"{self.fact}  [= {self.renamed}]"

    def to_dict(self) -> dict:
        return {"fact": self.fact, "renamed": self.renamed}


@dataclass(frozen=True)
class CompletedGoal:
    """One problem's goal completed (:func:`complete_goal`): ``added`` are the atoms that hold
    in every goal state reached from its init and that the goal does not say (static and
    derived atoms left out: the init fixes the first, the rest imply the second).
    ``goal_states`` of the ``states`` explored satisfy the goal; ``bounded`` is True when the
    exploration stopped at the state cap, so a state not reached might lack an atom added."""

    added: tuple[str, ...]
    states: int
    goal_states: int
    bounded: bool

    def to_dict(self) -> dict:
        return {"added": list(self.added), "states": self.states,
                "goal_states": self.goal_states, "bounded": self.bounded}


@dataclass(frozen=True)
class GoalCompletion:
    """The Planetarium-style verdict: the two problems compared again with both goals
    completed. ``comparison`` is that comparison (its ``equivalent`` is the verdict)."""

    comparison: "ProblemComparison"
    reference: CompletedGoal
    candidate: CompletedGoal
    max_states: int

    @property
    def equivalent(self) -> bool:
        return self.comparison.equivalent

    def notes(self) -> list[str]:
        """What limits the verdict: a state cap hit, a goal no explored state satisfies."""
        out = []
        for role, done in (("reference", self.reference), ("candidate", self.candidate)):
            if done.bounded:
                out.append(f"the {role}'s exploration stopped at the cap of {self.max_states} "
                           f"states ({done.goal_states} goal states found): an atom added may "
                           "not hold in a goal state not reached (raise the cap: "
                           "--completion-states N, completion_states=N)")
            if not done.goal_states:
                out.append(f"no state reached from the {role}'s init satisfies its goal: "
                           "nothing was added to it")
        return out

    def format(self, limit: int = 20) -> list[str]:
        """The verdict's lines, to follow the strict verdict's."""
        c = self.comparison
        lines = ["with goals completed (Planetarium-style: the atoms every reachable goal "
                 "state has added to each goal): "
                 + ("EQUIVALENT" if c.equivalent else f"NOT EQUIVALENT, {c.differences} "
                    "difference(s)")]
        for role, done in (("reference", self.reference), ("candidate", self.candidate)):
            shown = " ".join(done.added[:limit]) or "nothing"
            more = f" (and {len(done.added) - limit} more)" if len(done.added) > limit else ""
            lines.append(f"  added to the {role}'s goal: {shown}{more} ({done.goal_states} "
                         f"goal state(s) of {done.states} explored)")
        if not c.equivalent:
            lines.extend("  " + line for line in c.difference_lines(limit))
        lines.extend(f"  note: {n}" for n in self.notes())
        return lines

    def to_dict(self) -> dict:
        return {"equivalent": self.equivalent, "max_states": self.max_states,
                "reference": self.reference.to_dict(), "candidate": self.candidate.to_dict(),
                "comparison": self.comparison.to_dict(), "notes": self.notes()}


@dataclass(frozen=True)
class ProblemComparison:
    """The outcome of :func:`compare_problems` (see its docstring for the definition).

    ``renaming`` maps reference objects to candidate objects (domain constants map to
    themselves and are left out); it is an isomorphism when ``equivalent``, else the best
    renaming found, under which the differences are listed. Precision is the share of the
    candidate's facts (goal literals) that the reference has, recall the share of the
    reference's that the candidate has; both are 1.0 for two empty sets.
    """

    equivalent: bool
    renaming: dict[str, str]
    missing_facts: tuple[FactDifference, ...] = ()
    extra_facts: tuple[FactDifference, ...] = ()
    missing_goals: tuple[FactDifference, ...] = ()
    extra_goals: tuple[FactDifference, ...] = ()
    unmatched_reference: tuple[str, ...] = ()
    unmatched_candidate: tuple[str, ...] = ()
    reference_facts: int = 0
    candidate_facts: int = 0
    matched_facts: int = 0
    reference_goals: int = 0
    candidate_goals: int = 0
    matched_goals: int = 0
    ignored_goals: tuple[str, ...] = ()
    decided: bool = True
    notes: tuple[str, ...] = ()
    reference_name: str = ""
    candidate_name: str = ""
    #: the Planetarium-style verdict (``complete_goals``), or None when not asked for
    completion: Optional[GoalCompletion] = None

    @property
    def fact_precision(self) -> float:
        return _ratio(self.matched_facts, self.candidate_facts)

    @property
    def fact_recall(self) -> float:
        return _ratio(self.matched_facts, self.reference_facts)

    @property
    def goal_precision(self) -> float:
        return _ratio(self.matched_goals, self.candidate_goals)

    @property
    def goal_recall(self) -> float:
        return _ratio(self.matched_goals, self.reference_goals)

    @property
    def differences(self) -> int:
        """Facts and goal literals on one side only, plus objects with no counterpart."""
        return (len(self.missing_facts) + len(self.extra_facts) + len(self.missing_goals)
                + len(self.extra_goals) + len(self.unmatched_reference)
                + len(self.unmatched_candidate))

    def format(self, limit: int = 20) -> str:
        """A report for a person or an LLM: the verdict, then each difference under the
        renaming, what to add or remove named in the candidate's own names."""
        names = header_names(self.reference_name, self.candidate_name)
        if self.equivalent:
            head = f"EQUIVALENT{names}: the candidate is the reference problem up to a renaming " \
                   f"of {len(self.renaming)} object(s)"
        else:
            head = f"NOT EQUIVALENT{names}: {self.differences} difference(s) under the best " \
                   "renaming found"
        if self.completion is not None:
            head += ("; with goals completed (Planetarium-style): "
                     + ("EQUIVALENT" if self.completion.equivalent else "NOT EQUIVALENT"))
        lines = [head]
        renamed = {a: b for a, b in self.renaming.items() if a != b}
        if renamed:
            shown = ", ".join(f"{a}->{b}" for a, b in sorted(renamed.items())[:limit])
            more = f" (and {len(renamed) - limit} more)" if len(renamed) > limit else ""
            lines.append(f"renaming (reference->candidate): {shown}{more}")
        lines.append(f"init facts: precision {self.fact_precision:.3f} "
                     f"({self.matched_facts}/{self.candidate_facts}), recall "
                     f"{self.fact_recall:.3f} ({self.matched_facts}/{self.reference_facts})")
        lines.append(f"goal literals: precision {self.goal_precision:.3f} "
                     f"({self.matched_goals}/{self.candidate_goals}), recall "
                     f"{self.goal_recall:.3f} ({self.matched_goals}/{self.reference_goals})")
        lines.extend(self.difference_lines(limit))
        if self.ignored_goals:
            lines.append("goal literals not compared (static, already fixed by the init): "
                         + ", ".join(self.ignored_goals[:limit]))
        lines.extend(f"note: {n}" for n in self.notes)
        if self.completion is not None:
            lines.extend(self.completion.format(limit))
        return "\n".join(lines)

    def difference_lines(self, limit: int = 20) -> list[str]:
        """The facts, goal literals and objects on one side only, a section each."""
        lines: list[str] = []
        sections = (
            ("init facts the candidate is missing (reference names [= candidate names])",
             self.missing_facts),
            ("init facts only the candidate has (candidate names [= reference names])",
             self.extra_facts),
            ("goal literals the candidate is missing", self.missing_goals),
            ("goal literals only the candidate has", self.extra_goals),
        )
        for title, items in sections:
            if items:
                lines.append(f"{title}: {len(items)}")
                lines.extend("  " + d.format() for d in items[:limit])
                if len(items) > limit:
                    lines.append(f"  ... and {len(items) - limit} more")
        if self.unmatched_reference:
            lines.append("reference objects with no counterpart: "
                         + ", ".join(self.unmatched_reference[:limit]))
        if self.unmatched_candidate:
            lines.append("candidate objects with no counterpart: "
                         + ", ".join(self.unmatched_candidate[:limit]))
        return lines

    def to_dict(self) -> dict:
        return {
            "kind": "problem",
            "equivalent": self.equivalent,
            "decided": self.decided,
            "reference": self.reference_name,
            "candidate": self.candidate_name,
            "renaming": dict(sorted(self.renaming.items())),
            "fact_precision": self.fact_precision,
            "fact_recall": self.fact_recall,
            "goal_precision": self.goal_precision,
            "goal_recall": self.goal_recall,
            "counts": {"reference_facts": self.reference_facts,
                       "candidate_facts": self.candidate_facts,
                       "matched_facts": self.matched_facts,
                       "reference_goals": self.reference_goals,
                       "candidate_goals": self.candidate_goals,
                       "matched_goals": self.matched_goals},
            "missing_facts": [d.to_dict() for d in self.missing_facts],
            "extra_facts": [d.to_dict() for d in self.extra_facts],
            "missing_goals": [d.to_dict() for d in self.missing_goals],
            "extra_goals": [d.to_dict() for d in self.extra_goals],
            "unmatched_reference": list(self.unmatched_reference),
            "unmatched_candidate": list(self.unmatched_candidate),
            "ignored_goals": list(self.ignored_goals),
            "notes": list(self.notes),
            "goal_completion": self.completion.to_dict() if self.completion else None,
        }


def _ratio(a: int, b: int) -> float:
    return a / b if b else 1.0


# ---------------------------------------------------------------------------- facts


@dataclass
class _Facts:
    """One problem as the matcher sees it, plus what was left out."""

    objects: dict[str, tuple]           # name -> initial colour key
    types: dict[str, tuple[str, ...]]   # declared (renamable) objects and their types
    facts: set = field(default_factory=set)
    ignored: list[str] = field(default_factory=list)


def static_predicates(domain: Optional[Domain]) -> frozenset:
    """Predicates no action adds or deletes, and that no rule derives: their atoms keep the
    value the init gives them in every reachable state."""
    if domain is None:
        return frozenset()
    changed = {lit.atom.predicate for a in domain.actions for lit in iter_effect_literals(a.effects)}
    derived = {d.predicate.name for d in domain.derived}
    return frozenset(p.name for p in domain.predicates) - changed - derived


def problem_facts(problem: Problem, domain: Optional[Domain]) -> _Facts:
    """The labelled facts :func:`compare_problems` matches: init atoms, numeric init values,
    the goal's conjuncts (without the static ones the init fixes), the metric."""
    constants = {c.name for c in domain.constants} if domain is not None else set()
    types: dict[str, tuple[str, ...]] = {}
    for o in problem.objects:
        if o.name not in constants:
            types.setdefault(o.name, tuple(sorted(set(o.types))))
    objects: dict[str, tuple] = {o: ("type", t) for o, t in types.items()}
    out = _Facts(objects, types)

    used: set = set()
    init = set()
    for atom in problem.init:
        init.add((atom.predicate, *atom.args))
        used.update(atom.args)
        out.facts.add(((INIT, atom.predicate), atom.args))
    for term, value in problem.numeric_init:
        used.update(term.args)
        out.facts.add(((NUMERIC, term.name, float(value)), term.args))
    static = static_predicates(domain) | {"="}
    parts = _conjuncts(without_double_negation(problem.goal))
    for part in parts:
        literal = _literal(part)
        if literal is not None:
            positive, atom = literal
            if atom.predicate in static:
                if atom.predicate == "=":
                    true = len(atom.args) == 2 and atom.args[0] == atom.args[1]
                else:
                    true = (atom.predicate, *atom.args) in init
                if true == positive:
                    out.ignored.append(_write_literal(positive, atom.predicate, atom.args))
                    continue
            used.update(atom.args)
            out.facts.add(((GOAL if positive else GOAL_NOT, atom.predicate), atom.args))
            continue
        shape, args = canonical_formula(part, set(types))
        used.update(args)
        out.facts.add(((GOAL_FORMULA, shape), tuple(args)))
    if problem.metric is not None:
        text, args = _canon_expr(problem.metric.expression, set(types), {})
        shape, args = _number(text, args)
        out.facts.add(((METRIC, problem.metric.direction + " " + shape), tuple(args)))
        used.update(args)
    for name in used:
        if name not in objects:   # a constant, declared or not: it maps to itself
            objects[name] = ("const", name)
    return out


def without_double_negation(f: Formula) -> Formula:
    """``f`` with every ``(not (not X))`` read as ``X``, at any depth: the two say the same,
    so a goal written either way is one goal (``(not (not (on a b)))`` is ``(on a b)``, and
    ``(not (not (and ...)))`` splits into its conjuncts)."""
    if isinstance(f, Not):
        if isinstance(f.formula, Not):
            return without_double_negation(f.formula.formula)
        return dataclasses.replace(f, formula=without_double_negation(f.formula))
    if isinstance(f, (And, Or)):
        return dataclasses.replace(f, parts=tuple(without_double_negation(p) for p in f.parts))
    if isinstance(f, Imply):
        return dataclasses.replace(f, condition=without_double_negation(f.condition),
                                   consequence=without_double_negation(f.consequence))
    if isinstance(f, (Exists, Forall)):
        return dataclasses.replace(f, body=without_double_negation(f.body))
    return f


def _conjuncts(f: Formula) -> list[Formula]:
    if isinstance(f, And):
        out: list[Formula] = []
        for p in f.parts:
            out.extend(_conjuncts(p))
        return out
    return [f]


def _literal(f: Formula) -> Optional[tuple[bool, Atom]]:
    if isinstance(f, Atom):
        return True, f
    if isinstance(f, Not) and isinstance(f.formula, Atom):
        return False, f.formula
    return None


def _write_literal(positive: bool, predicate: str, args: tuple) -> str:
    atom = "(" + " ".join((predicate, *args)) + ")"
    return atom if positive else f"(not {atom})"


_HOLE = "\x00"


def canonical_formula(f: Formula, objects: set) -> tuple[str, list[str]]:
    """``f`` as a shape and its objects: ``(or (at #0 #1) (at #2 #1))`` and ``[a, x, b]``.
    Quantified variables are renamed ``?v0``, ``?v1``... in binding order and the parts of
    ``and``/``or`` are sorted by their text with objects blanked, so two formulas that differ
    only in object names, variable names or part order get the same shape (parts that differ
    only in their objects keep the order written)."""
    text, args = _canon(f, objects, {}, [0])
    return _number(text, args)


def _number(text: str, args: list[str]) -> tuple[str, list[str]]:
    order = list(dict.fromkeys(args))
    pieces = text.split(_HOLE)
    out = [pieces[0]]
    for arg, piece in zip(args, pieces[1:]):
        out.append(f"#{order.index(arg)}")
        out.append(piece)
    return "".join(out), order


def _canon_term(t: str, objects: set, variables: dict, args: list) -> str:
    if t in variables:
        return variables[t]
    if t in objects:
        args.append(t)
        return _HOLE
    return t


def _canon(f: Formula, objects: set, variables: dict, counter: list) -> tuple[str, list[str]]:
    if isinstance(f, Atom):
        args: list[str] = []
        terms = [_canon_term(t, objects, variables, args) for t in f.args]
        return "(" + " ".join((f.predicate, *terms)) + ")", args
    if isinstance(f, Not):
        text, args = _canon(f.formula, objects, variables, counter)
        return f"(not {text})", args
    if isinstance(f, (And, Or)):
        parts = sorted((_canon(p, objects, variables, counter) for p in f.parts),
                       key=lambda ta: ta[0])
        word = "and" if isinstance(f, And) else "or"
        return (f"({word} " + " ".join(t for t, _ in parts) + ")",
                [a for _, args in parts for a in args])
    if isinstance(f, Imply):
        a, aa = _canon(f.condition, objects, variables, counter)
        b, ba = _canon(f.consequence, objects, variables, counter)
        return f"(imply {a} {b})", aa + ba
    if isinstance(f, (Exists, Forall)):
        inner = dict(variables)
        decl = []
        for v in f.variables:
            inner[v.name] = f"?v{counter[0]}"
            counter[0] += 1
            decl.append(f"{inner[v.name]} - {'/'.join(sorted(v.types))}")
        text, args = _canon(f.body, objects, inner, counter)
        word = "exists" if isinstance(f, Exists) else "forall"
        return f"({word} ({' '.join(decl)}) {text})", args
    if isinstance(f, Comparison):
        a, aa = _canon_expr(f.left, objects, variables)
        b, ba = _canon_expr(f.right, objects, variables)
        return f"({f.op} {a} {b})", aa + ba
    raise TypeError(f"not a formula: {f!r}")


def _canon_expr(e: NumericExpr, objects: set, variables: dict) -> tuple[str, list[str]]:
    if isinstance(e, Number):
        return f"{e.value:g}", []
    if isinstance(e, FunctionTerm):
        args: list[str] = []
        terms = [_canon_term(t, objects, variables, args) for t in e.args]
        return "(" + " ".join((e.name, *terms)) + ")", args
    if isinstance(e, BinaryOp):
        a, aa = _canon_expr(e.left, objects, variables)
        b, ba = _canon_expr(e.right, objects, variables)
        return f"({e.op} {a} {b})", aa + ba
    raise TypeError(f"not a numeric expression: {e!r}")


def write_fact(label: tuple, args: tuple) -> str:
    """A matched fact as PDDL text."""
    kind = label[0]
    if kind in (INIT, GOAL):
        return _write_literal(True, label[1], args)
    if kind == GOAL_NOT:
        return _write_literal(False, label[1], args)
    if kind == NUMERIC:
        return f"(= {_write_literal(True, label[1], args)} {label[2]:g})"
    shape = label[1]
    for i in range(len(args) - 1, -1, -1):   # #10 before #1
        shape = shape.replace(f"#{i}", args[i])
    return f"(:metric {shape})" if kind == METRIC else shape


# ---------------------------------------------------------------------------- comparing


#: the most states :func:`complete_goal` explores from one init by default
COMPLETION_STATES = 10_000


def compare_problems(reference: ProblemLike, candidate: ProblemLike,
                     domain: Optional[DomainLike] = None, *,
                     budget: int = 2000, complete_goals: bool = False,
                     completion_states: int = COMPLETION_STATES) -> ProblemComparison:
    """Compare a candidate problem with the reference, up to a renaming of objects.

    Definition. Two problems of one domain are *equivalent* when a bijection σ between their
    objects exists that keeps each object's declared type(s) (exactly: ``- room`` never maps
    to ``- location``), leaves the domain's constants (and any name used but not declared as
    an object, which is treated as a constant) as they are, and maps
      * the init facts (atoms, duplicates ignored, and numeric values) onto the candidate's,
      * the goal onto the candidate's goal: the goal is split into its top-level conjuncts;
        a literal over a *static* predicate (one no action changes and no rule derives, and
        ``=``) that the init already makes true is dropped from it, as Planetarium drops what
        the initial scene fixes, so writing or omitting ``(connected a b)`` in a goal changes
        nothing when the init says it; a conjunct that is not a literal (``or``, ``forall``,
        ``imply``...) is compared as a whole, by its shape (variables renamed, ``and``/``or``
        parts sorted) and the objects in it,
      * the metric onto the candidate's metric.
    A goal's double negations are dropped first (``(not (not X))`` is ``X``). Without
    ``domain`` no predicate is known to be static and there are no constants but the
    undeclared names. This verdict is strict: two goals that differ only in facts the rest
    implies are different. ``complete_goals`` (it needs ``domain``) adds Planetarium's verdict
    as ``completion``: each goal completed with the atoms every goal state reachable from its
    own init has (:func:`complete_goal`, at most ``completion_states`` states explored per
    problem; a cap hit is said), and the two completed problems compared as above.

    The decision is exact (colour refinement, then individualization with backtracking:
    :mod:`pddlkit.compare.matching`) unless ``budget`` search nodes run out, which the result
    says (``decided`` False). When the problems are not equivalent the result lists the
    differences under the best renaming found: the exact one when one edit (a fact dropped,
    added, or one argument changed) explains the difference, else the heuristic's, which maps
    as many facts as it can (a local optimum; see :mod:`pddlkit.compare.matching`):
    init facts missing from the candidate and extra in it, goal literals missing and extra,
    objects with no counterpart (different counts, or types); precision and recall count init
    facts (and, separately, goal literals) mapped onto the other side.

    ``reference``, ``candidate`` and ``domain`` are parsed models, PDDL text or paths; one
    that cannot be read raises :class:`~pddlkit.compare.inputs.CompareInputError` naming it.
    """
    dom = load_domain(domain, "domain") if domain is not None else None
    ref = load_problem(reference, "reference")
    cand = load_problem(candidate, "candidate")
    if complete_goals and dom is None:
        raise CompareInputError([Diagnostic(
            "compare-usage", Severity.ERROR, "completing the goals explores the states "
            "reachable in the domain, and no domain was given",
            hint="give the problems' domain (--domain D), or leave out --complete-goals")],
            "goal completion needs the domain", "domain")
    result = _compare(ref, cand, dom, budget)
    if not complete_goals:
        return result
    done_r, ref_goal = complete_goal(dom, ref, completion_states)
    done_c, cand_goal = complete_goal(dom, cand, completion_states)
    completed = _compare(dataclasses.replace(ref, goal=ref_goal),
                         dataclasses.replace(cand, goal=cand_goal), dom, budget)
    return dataclasses.replace(result, completion=GoalCompletion(
        completed, done_r, done_c, completion_states))


def complete_goal(domain: Domain, problem: Problem, max_states: int = COMPLETION_STATES
                  ) -> tuple[CompletedGoal, Formula]:
    """``problem``'s goal completed as Planetarium completes it: with the atoms that hold in
    every state reachable from its init that satisfies the goal.

    The reachable states are explored up to ``max_states`` of them, those nearest the goal
    first (fewest of its conjuncts false, then fewest steps), so that when the space is
    larger than the cap the states explored are the goal states and their neighbours, the
    ones the answer depends on; the result says when the cap stopped it, since an atom every
    goal state reached has may be missing from one not reached. Below the cap the answer is
    exact. Static and derived atoms are not added (the init fixes the first, the others
    imply the second), nor numeric values. Returns what was added and the completed goal: the
    goal's conjuncts (double negations dropped), then the atoms added; a goal no explored
    state satisfies is left as it is."""
    world = World(domain, problem)
    skip = static_predicates(domain) | {d.predicate.name for d in domain.derived} | {"="}
    parts = _conjuncts(without_double_negation(problem.goal))

    def unmet(state) -> int:
        return sum(not holds(p, state, {}, world) for p in parts)

    start = world.initial_state
    seen = {start}
    queue = [(unmet(start), 0, 0, start)]
    common: Optional[frozenset] = None
    goal_states = 0
    bounded = False
    pushed = 0
    while queue:
        false_parts, depth, _, state = heapq.heappop(queue)
        if not false_parts:
            goal_states += 1
            common = state.atoms if common is None else common & state.atoms
        for action in domain.actions:
            for step in applicable_groundings(action, state, world).values():
                after = step.apply(state, world)
                if after in seen:
                    continue
                if len(seen) >= max_states:
                    bounded = True
                    continue
                seen.add(after)
                pushed += 1
                heapq.heappush(queue, (unmet(after), depth + 1, pushed, after))
    said = {(p.predicate, *p.args) for p in parts if isinstance(p, Atom)}
    added = sorted(a for a in common or () if a[0] not in skip and a not in said)
    goal = And(tuple(parts) + tuple(Atom(a[0], tuple(a[1:])) for a in added))
    return CompletedGoal(tuple(_write_literal(True, a[0], a[1:]) for a in added), len(seen),
                         goal_states, bounded), goal


def _compare(ref: Problem, cand: Problem, dom: Optional[Domain], budget: int
             ) -> ProblemComparison:
    """:func:`compare_problems`'s strict verdict on two read problems."""
    fr, fc = problem_facts(ref, dom), problem_facts(cand, dom)
    notes: list[str] = []
    if dom is None:
        notes.append("no domain given: no predicate is known to be static, so goal literals the "
                     "init already fixes are compared too")
    # constants present on one side only cannot map: give each side's constants the
    # other's too, so every name has a node (an unused constant has no facts)
    for name, key in list(fr.objects.items()):
        if key[0] == "const":
            fc.objects.setdefault(name, key)
    for name, key in list(fc.objects.items()):
        if key[0] == "const":
            fr.objects.setdefault(name, key)
    found = match(Structure(fr.objects, frozenset(fr.facts)),
                  Structure(fc.objects, frozenset(fc.facts)), budget=budget)
    notes.extend(found.notes)
    sigma = found.mapping
    inverse = {b: a for a, b in sigma.items()}
    image = set()
    missing_f, extra_f, missing_g, extra_g = [], [], [], []
    matched_f = matched_g = 0
    unmapped_ref = []
    for fact in fr.facts:
        label, args = fact
        try:
            mapped = (label, tuple([sigma[a] for a in args]))
        except KeyError:
            unmapped_ref.append((fact, None))
            continue
        if mapped in fc.facts:
            image.add(mapped)
            if label[0] in _GOAL_KINDS:
                matched_g += 1
            else:
                matched_f += 1
        else:
            unmapped_ref.append((fact, mapped[1]))
    for (label, args), mapped in sorted(unmapped_ref, key=lambda fm: _fact_key(fm[0])):
        diff = FactDifference(write_fact(label, args),
                              write_fact(label, mapped) if mapped is not None else None)
        (missing_g if label[0] in _GOAL_KINDS else missing_f).append(diff)
    for label, args in sorted((f for f in fc.facts if f not in image), key=_fact_key):
        back = tuple(inverse[a] for a in args) if all(a in inverse for a in args) else None
        diff = FactDifference(write_fact(label, args),
                              write_fact(label, back) if back is not None else None)
        (extra_g if label[0] in _GOAL_KINDS else extra_f).append(diff)
    renaming = {a: b for a, b in sigma.items() if a in fr.types}
    unmatched_r = tuple(f"{o} - {'/'.join(fr.types[o])}" for o in sorted(fr.types)
                        if o not in sigma)
    unmatched_c = tuple(f"{o} - {'/'.join(fc.types[o])}" for o in sorted(fc.types)
                        if o not in inverse)
    n_goal_r = sum(1 for label, _ in fr.facts if label[0] in _GOAL_KINDS)
    n_goal_c = sum(1 for label, _ in fc.facts if label[0] in _GOAL_KINDS)
    equivalent = found.isomorphic
    ignored = tuple(sorted(set(fr.ignored))) + tuple(
        f"{x} (candidate)" for x in sorted(set(fc.ignored) - set(fr.ignored)))
    return ProblemComparison(
        equivalent=equivalent, renaming=renaming,
        missing_facts=tuple(missing_f), extra_facts=tuple(extra_f),
        missing_goals=tuple(missing_g), extra_goals=tuple(extra_g),
        unmatched_reference=unmatched_r, unmatched_candidate=unmatched_c,
        reference_facts=len(fr.facts) - n_goal_r, candidate_facts=len(fc.facts) - n_goal_c,
        matched_facts=matched_f, reference_goals=n_goal_r, candidate_goals=n_goal_c,
        matched_goals=matched_g, ignored_goals=ignored, decided=found.decided,
        notes=tuple(notes), reference_name=ref.name, candidate_name=cand.name)


def _fact_key(fact: tuple) -> tuple:
    label, args = fact
    return (tuple(str(x) for x in label), args)
