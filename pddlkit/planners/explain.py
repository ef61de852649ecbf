"""Why is there no plan? Delete-relaxed reachability, in sentences an LLM can act on.

Ignoring delete effects (and assuming negative conditions can always be met) over-approximates
what can ever become true, so an atom unreachable here is unreachable for real: the report
never blames something that could have been achieved. From that analysis it names

* the goal atoms that no sequence of actions can make true,
* the predicates no action adds (true only where ``:init`` says so),
* the actions that can never fire, each with the precondition atom that blocks it.

PDDLego+ found impossible or empty goals behind most solver failures of LLM-written PDDL;
these three facts are what the LLM needs to fix the model (add the missing effect, the missing
object or init fact, or drop the impossible goal).

When every goal atom is reachable in the relaxation, the failure comes from interactions
(deletes, negative preconditions). For small tasks the real state space is then searched
(bounded) to name goal atoms that are unreachable for real, or goal atoms that can each be
reached but never together.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Optional

from ..pddl.model import (
    And, Atom, Comparison, Domain, Exists, Forall, ForallEffect, Formula, Imply, Literal, Not,
    Or, Problem, When, iter_atoms, iter_effect_literals,
)
from ..semantics.formulas import bind_arguments, candidate_bindings, ground_text, holds
from ..semantics.grounding import GroundAction, ground_actions
from ..semantics.state import State, format_atom
from ..semantics.world import World, LiveView

#: work budget of the exact fallback search: states expanded times ground actions tried
EXACT_BUDGET = 1_000_000
#: states explored by the exact fallback search at most
MAX_STATES = 20_000


@dataclass(frozen=True)
class BlockedAction:
    action: str  # "(move ?from ?to)"
    blocker: str  # the precondition atom that is never true, "(connected ?from ?to)"
    reason: str  # a sentence


@dataclass(frozen=True)
class NoPlanExplanation:
    unreachable_goals: tuple[str, ...] = ()
    never_added: tuple[str, ...] = ()
    blocked_actions: tuple[BlockedAction, ...] = ()
    #: goal literals each reachable alone but never all together (exact search only)
    not_together: tuple[str, ...] = ()
    sentences: tuple[str, ...] = ()
    #: "relaxed" (delete relaxation), "exact" (state space searched), or "none"
    method: str = "relaxed"
    proven: bool = False  # the analysis alone shows there is no plan

    def text(self) -> str:
        if not self.sentences:
            return "why no plan: no explanation found"
        return "why no plan:\n" + "\n".join("  - " + s for s in self.sentences)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "NoPlanExplanation":
        data = dict(data)
        data["blocked_actions"] = tuple(BlockedAction(**b) for b in data.get("blocked_actions", ()))
        for key in ("unreachable_goals", "never_added", "not_together", "sentences"):
            data[key] = tuple(data.get(key, ()))
        return cls(**data)


# --------------------------------------------------------------------------- relaxed evaluation


class RelaxedFacts(set):
    """The atoms that can ever be true, plus ``fixed``: atoms that can never become false.

    ``fixed`` holds the initial atoms whose predicate no action deletes; ``(not p)`` on one of
    them can never hold. Every other negative condition is assumed satisfiable at some point,
    which keeps the analysis an over-approximation of what can happen.
    """

    fixed: frozenset = frozenset()

    def copy(self) -> "RelaxedFacts":
        out = RelaxedFacts(self)
        out.fixed = self.fixed
        return out


def relaxed_holds(f: Formula, reached, binding: dict, world: World) -> bool:
    """Can ``f`` hold, given that only ``reached`` atoms can ever be true? (over-approximation)"""
    if isinstance(f, Atom):
        args = bind_arguments(f.args, binding)
        if f.predicate == "=":
            return len(args) == 2 and args[0] == args[1]
        return (f.predicate, *args) in reached
    if isinstance(f, Not):
        inner = f.formula
        if isinstance(inner, Atom) and inner.predicate == "=":
            args = bind_arguments(inner.args, binding)
            return not (len(args) == 2 and args[0] == args[1])
        if isinstance(inner, Atom):
            fixed = getattr(reached, "fixed", ())
            return not fixed or (inner.predicate, *bind_arguments(inner.args, binding)) not in fixed
        return True  # other negative conditions may be made true at some point
    if isinstance(f, And):
        return all(relaxed_holds(p, reached, binding, world) for p in f.parts)
    if isinstance(f, Or):
        return any(relaxed_holds(p, reached, binding, world) for p in f.parts)
    if isinstance(f, Imply):
        return True
    if isinstance(f, Exists):
        return any(relaxed_holds(f.body, reached, {**binding, **b}, world)
                   for b in world.bindings(f.variables))
    if isinstance(f, Forall):
        return all(relaxed_holds(f.body, reached, {**binding, **b}, world)
                   for b in world.bindings(f.variables))
    if isinstance(f, Comparison):
        return True
    return True


def _relaxed_adds(effects, reached, binding: dict, world: World, out: set) -> None:
    for e in effects:
        if isinstance(e, Literal):
            if e.positive:
                out.add((e.atom.predicate, *bind_arguments(e.atom.args, binding)))
        elif isinstance(e, When):
            if relaxed_holds(e.condition, reached, binding, world):
                _relaxed_adds(e.effects, reached, binding, world, out)
        elif isinstance(e, ForallEffect):
            for b in world.bindings(e.variables):
                _relaxed_adds(e.effects, reached, {**binding, **b}, world, out)


@dataclass
class Reachability:
    reached: set
    fired: set  # names of the action schemas that can fire
    rounds: int = 0
    by_pred: dict = field(default_factory=dict)  # reached atoms grouped by predicate


def _unify_args(pattern: tuple, values: tuple, params: dict, world: World,
                binding: dict) -> Optional[dict]:
    """``binding`` extended so that ``pattern`` (names and ?variables) equals ``values``,
    respecting the types in ``params``; None when they cannot match."""
    if len(pattern) != len(values):
        return None
    b = binding
    for arg, val in zip(pattern, values):
        if arg.startswith("?"):
            bound = b.get(arg)
            if bound is None:
                if arg in params and not world.is_of_type(val, params[arg]):
                    return None
                b = {**b, arg: val}
            elif bound != val:
                return None
        elif arg != val:
            return None
    return b


def _join(atoms: list[Atom], params: dict, by_pred: dict, world: World, binding: dict):
    """Bindings under which every atom in ``atoms`` is in ``by_pred`` (a nested-loop join)."""
    if not atoms:
        yield binding
        return
    # the atom with the most bound arguments first: it narrows the join fastest
    atom = max(atoms, key=lambda a: sum(1 for x in a.args if x in binding or not x.startswith("?")))
    rest = [a for a in atoms if a is not atom]
    for fact in by_pred.get(atom.predicate, ()):
        b = _unify_args(atom.args, fact[1:], params, world, binding)
        if b is not None:
            yield from _join(rest, params, by_pred, world, b)


def action_bindings(action, reached: set, by_pred: dict, world: World, skip: int = -1,
                    start: Optional[dict] = None, check: bool = True):
    """Bindings of ``action``'s parameters whose precondition can hold in the relaxation.

    Lifted: positive precondition atoms are joined against the reached facts, and only the
    parameters they leave open are enumerated over their types, so nothing is grounded up front.
    ``skip`` leaves one precondition atom out of the join (to find what blocks an action);
    with ``skip`` or without ``check`` the rest of the precondition (negated atoms, other
    conditions) is not checked.
    """
    params = {p.name: p.types for p in action.parameters}
    atoms = _precondition_atoms(action.precondition)
    if skip >= 0:
        atoms = atoms[:skip] + atoms[skip + 1:]
    for b in _join(atoms, params, by_pred, world, dict(start or {})):
        free = [p for p in action.parameters if p.name not in b]
        for extra in (world.bindings(free) if free else ({},)):
            full = {**b, **extra}
            if skip >= 0 or not check or relaxed_holds(action.precondition, reached, full, world):
                yield full


def relaxed_reachability(world: World, max_rounds: int = 10_000) -> Reachability:
    """Atoms reachable when deletes are ignored, and the action schemas that can fire."""
    reached = RelaxedFacts(world.initial_state.atoms)
    deleted = _deleters(world.domain)
    derived_names = {r.predicate.name for r in world.domain.derived}
    reached.fixed = frozenset(a for a in reached if a[0] not in deleted and a[0] not in derived_names)
    # grouped in sorted order, not the sets' (string hashes vary per process): which binding
    # is found first, so the "closest" instance a why-no-plan names, is the same every run
    by_pred: dict = {}
    for a in sorted(reached):
        by_pred.setdefault(a[0], []).append(a)
    fired: set = set()
    rules = world.domain.derived
    rounds = 0
    while rounds < max_rounds:
        rounds += 1
        new: set = set()
        for action in world.domain.actions:
            for b in action_bindings(action, reached, by_pred, world):
                fired.add(action.name)
                adds: set = set()
                _relaxed_adds(action.effects, reached, b, world, adds)
                new |= adds - reached
        if rules:
            reached_now = reached.copy()
            reached_now |= new
            new |= _relaxed_derived(world, reached_now) - reached
        if not new:
            break
        reached |= new
        for a in sorted(new):
            by_pred.setdefault(a[0], []).append(a)
    return Reachability(reached, fired, rounds, by_pred)


def _relaxed_derived(world: World, reached: set) -> set:
    reached = reached.copy()
    added: set = set()
    view = LiveView(reached, State(()))
    changed = True
    while changed:
        changed = False
        for rule in world.domain.derived:
            params = rule.predicate.parameters
            for b in candidate_bindings(params, rule.condition, view, {}, world):
                head = (rule.predicate.name, *[b[p.name] for p in params])
                if head not in reached and relaxed_holds(rule.condition, reached, b, world):
                    view.add(head)
                    added.add(head)
                    changed = True
    return added


# --------------------------------------------------------------------------- the explanation


def _goal_literals(goal: Formula, world: World) -> tuple[list[tuple], list[tuple], bool]:
    """(positive goal atoms, negated goal atoms, goal is a plain conjunction)."""
    parts = goal.parts if isinstance(goal, And) else (goal,)
    pos, neg, plain = [], [], True
    for p in parts:
        if isinstance(p, Atom) and p.predicate != "=":
            pos.append((p.predicate, *p.args))
        elif isinstance(p, Not) and isinstance(p.formula, Atom) and p.formula.predicate != "=":
            neg.append((p.formula.predicate, *p.formula.args))
        else:
            plain = False
    return pos, neg, plain


def _schema_text(action) -> str:
    return "(" + " ".join([action.name] + [p.name for p in action.parameters]) + ")"


def _atom_text(atom: Atom) -> str:
    return "(" + " ".join((atom.predicate, *atom.args)) + ")"


def _adders(domain: Domain) -> dict[str, list]:
    table: dict[str, list] = {}
    for a in domain.actions:
        for lit in iter_effect_literals(a.effects):
            if lit.positive and a not in table.setdefault(lit.atom.predicate, []):
                table[lit.atom.predicate].append(a)
    return table


def _deleters(domain: Domain) -> set:
    return {lit.atom.predicate for a in domain.actions for lit in iter_effect_literals(a.effects)
            if not lit.positive}


def _matches(pattern: Atom, params: dict, atoms_by_pred: dict, world: World) -> bool:
    return any(_unify_args(pattern.args, fact[1:], params, world, {}) is not None
               for fact in atoms_by_pred.get(pattern.predicate, ()))


def _precondition_atoms(f: Formula) -> list[Atom]:
    parts = f.parts if isinstance(f, And) else (f,)
    return [p for p in parts if isinstance(p, Atom) and p.predicate != "="]


def _blocked(world: World, reach: Reachability, adders: dict) -> list[BlockedAction]:
    by_pred = reach.by_pred
    derived = {r.predicate.name for r in world.domain.derived}
    out = []
    for action in world.domain.actions:
        if action.name in reach.fired:
            continue
        schema = _schema_text(action)
        params = {p.name: p.types for p in action.parameters}
        empty = [p for p in action.parameters if not world.objects_of(p.types)]
        if empty:
            p = empty[0]
            out.append(BlockedAction(schema, f"{p.name} - {' '.join(p.types)}",
                                     f"{schema} can never fire: no object has type "
                                     f"{'/'.join(p.types)} (for parameter {p.name}); declare one "
                                     f"in :objects or fix the parameter's type"))
            continue
        atoms = _precondition_atoms(action.precondition)
        blocker = next((a for a in atoms if not _matches(a, params, by_pred, world)), None)
        if blocker is not None:
            text = _atom_text(blocker)
            if blocker.predicate in derived:
                why = "its derived rule never holds"
            elif blocker.predicate not in adders:
                why = f"no action adds {blocker.predicate} and :init has no matching fact"
            else:
                names = ", ".join(a.name for a in adders[blocker.predicate])
                why = (f"no reachable state has a matching fact (the actions that add "
                       f"{blocker.predicate}, {names}, never produce one that fits)")
            out.append(BlockedAction(schema, text, f"{schema} can never fire: its precondition "
                                                   f"{text} is never true: {why}"))
            continue
        found = _closest_failing(action, reach.reached, by_pred, world, {})
        if found:
            part, text, _ground, b = found
            instance = "(" + " ".join([action.name] + [b.get(p.name, p.name)
                                                       for p in action.parameters]) + ")"
            reason = text if ", but " in text else f"{text}, which is never reachable"
            out.append(BlockedAction(schema, _literal_text(part, {}),
                                     f"{schema} can never fire: no objects make its preconditions "
                                     f"true together; the closest, {instance}, also needs "
                                     f"{reason}"))
        else:
            out.append(BlockedAction(schema, "", f"{schema} can never fire: its precondition "
                                                 f"is never satisfied"))
    return out


def never_firing(world: World) -> tuple[BlockedAction, ...]:
    """The actions that can never fire from ``world``'s initial state, each with why (the
    lines a why-no-plan gives them), whatever the goal: for a caller with no goal yet."""
    return tuple(_blocked(world, relaxed_reachability(world), _adders(world.domain)))


def _conjuncts(f: Formula) -> tuple:
    return f.parts if isinstance(f, And) else (f,)


def _literal_text(f: Formula, binding: dict) -> str:
    if isinstance(f, Atom):
        return format_atom((f.predicate, *bind_arguments(f.args, binding)))
    if isinstance(f, Not) and isinstance(f.formula, Atom):
        return f"(not {_literal_text(f.formula, binding)})"
    return ground_text(f, binding)


def _failing_text(part: Formula, b: dict) -> str:
    """A precondition part that cannot hold under ``b``, as the why-no-plan names it; a
    negated atom says why it never holds (it holds initially and nothing deletes it)."""
    if isinstance(part, Not) and isinstance(part.formula, Atom):
        g = (part.formula.predicate, *bind_arguments(part.formula.args, b))
        return (f"{_literal_text(part, b)}, but {format_atom(g)} holds initially "
                f"and no action deletes {g[0]}")
    return _literal_text(part, b)


def _closest_failing(action, reached, by_pred: dict, world: World, start: dict):
    """(the precondition part, its text, its ground atom or None, the binding) of the
    closest instance of ``action`` that cannot fire: the first binding under which every
    positive precondition atom is reached, and the part that still fails there (a negated
    atom that holds initially and nothing deletes, or another condition); else, leaving one
    atom out of the join, the first binding that completes the rest and the atom left out.
    None when there is no such binding.

    Why the joint binding first: with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev
    seed 1 at 1e00f75), move needed ``(not (closed-door ?from ?to ?dir))``, which held
    initially and no schema deleted; every positive atom was reached, so leaving the first
    one out "found" a binding and the why-no-plan blamed ``(player pantry)``, true in
    ``:init``, and the model was asked to rewrite move's precondition for it."""
    atoms = _precondition_atoms(action.precondition)
    full = next(action_bindings(action, reached, by_pred, world, start=start, check=False),
                None)   # every atom joined, the rest not checked
    if full is not None:
        part = next((p for p in _conjuncts(action.precondition)
                     if not relaxed_holds(p, reached, full, world)), None)
        if part is not None:
            ground = (part.predicate, *bind_arguments(part.args, full)) \
                if isinstance(part, Atom) else None
            return part, _failing_text(part, full), ground, full
    for i, atom in enumerate(atoms):   # each part can hold on its own: name the one left out
        full = next(action_bindings(action, reached, by_pred, world, skip=i, start=start),
                    None)
        if full is not None:
            ground = (atom.predicate, *bind_arguments(atom.args, full))
            if ground not in reached:
                return atom, format_atom(ground), ground, full
    return None


class _AtomExplainer:
    """Why a ground atom is never reachable, following the chain of missing preconditions.

    "(contains bathtub1 cloth1) is added only by (putobject cloth1 bathtub1), which needs
    (at bathtub1); that is added only by (gotolocation ?from bathtub1), which needs (not
    (visited bathtub1)), but (visited bathtub1) holds initially and no action deletes visited."
    """

    def __init__(self, world: World, reach: Reachability, adders: dict, max_depth: int = 3):
        self.world, self.reach, self.adders = world, reach, adders
        self.max_depth = max_depth
        self.by_pred = reach.by_pred
        self.derived = {r.predicate.name for r in world.domain.derived}

    def why(self, atom: tuple, depth: int = 0, seen: Optional[set] = None) -> str:
        seen = set() if seen is None else seen
        seen.add(atom)
        pred = atom[0]
        if pred in self.derived:
            return "it is derived and its rule can never hold"
        if pred not in self.adders:
            return (f"no action adds {pred} and :init does not contain it; add an action effect "
                    f"that makes it true, add it to :init, or drop it from the goal")
        reasons = []
        for action in self.adders[pred]:
            for b in self._unify(action, atom):
                blocker, ground, b = self._blocker(action, b)
                if blocker is None:
                    continue
                instance = "(" + " ".join([action.name] + [b.get(p.name, p.name)
                                                           for p in action.parameters]) + ")"
                text = f"{instance}, which needs {blocker}"
                if ground is not None and ground not in seen and depth + 1 < self.max_depth:
                    text += ", which can never be reached: " + self.why(ground, depth + 1, seen)
                reasons.append(text)
                break
        if not reasons:
            names = ", ".join(a.name for a in self.adders[pred])
            return (f"the actions that add {pred} ({names}) never add it with these arguments "
                    f"(check the parameter types and the objects)")
        head = "it is added only by " if len(reasons) == 1 else "the actions that could add it: "
        return head + "; ".join(reasons)

    def _unify(self, action, atom: tuple):
        params = {p.name: p.types for p in action.parameters}
        for lit in iter_effect_literals(action.effects):
            if lit.positive and lit.atom.predicate == atom[0]:
                b = _unify_args(lit.atom.args, atom[1:], params, self.world, {})
                if b is not None:
                    yield b

    def _blocker(self, action, b: dict):
        """(text of a precondition part that cannot hold under ``b``, that part as a ground
        atom when it is one, the binding used)."""
        reached = self.reach.reached
        params = {p.name: p.types for p in action.parameters}
        for part in _conjuncts(action.precondition):
            free = [a for a in dict.fromkeys(_free_vars(part)) if a in params and a not in b]
            if not free:
                if not relaxed_holds(part, reached, b, self.world):
                    if isinstance(part, Atom):
                        ground = (part.predicate, *bind_arguments(part.args, b))
                        return _literal_text(part, b), ground, b
                    return _failing_text(part, b), None, b
            elif isinstance(part, Atom):
                pattern = Atom(part.predicate, bind_arguments(part.args, b))
                if not _matches(pattern, params, self.by_pred, self.world):
                    return _literal_text(part, b) + " (for any " + ", ".join(free) + ")", None, b
        if next(action_bindings(action, reached, self.by_pred, self.world, start=b), None) is not None:
            return None, None, b
        found = _closest_failing(action, reached, self.by_pred, self.world, b)
        if found:
            _part, text, ground, full = found
            return text, ground, full
        return "preconditions that never hold together", None, b


def _free_vars(f: Formula) -> list[str]:
    return [a for atom in iter_atoms(f) for a in atom.args if a.startswith("?")]


def why_no_plan(domain: Domain, problem: Problem, world: Optional[World] = None,
                max_states: int = MAX_STATES) -> NoPlanExplanation:
    """Explain why ``problem`` has no plan (or cannot be shown to have one)."""
    world = world or World(domain, problem)
    reach = relaxed_reachability(world)
    adders = _adders(domain)
    deleters = _deleters(domain)
    derived = {r.predicate.name for r in domain.derived}
    pos, neg, plain = _goal_literals(problem.goal, world)
    sentences: list[str] = []
    unreachable: list[str] = []
    never_added: list[str] = []

    def note_never_added(pred: str) -> None:
        if pred not in adders and pred not in derived and pred not in never_added:
            never_added.append(pred)

    explainer = _AtomExplainer(world, reach, adders)
    for atom in pos:
        if atom in reach.reached:
            continue
        text = format_atom(atom)
        unreachable.append(text)
        note_never_added(atom[0])
        sentences.append(f"goal {text} can never be reached: {explainer.why(atom)}")
    for part in _conjuncts(problem.goal):
        if isinstance(part, Exists) and not relaxed_holds(part, reach.reached, {}, world):
            params = {v.name: v.types for v in part.variables}
            for atom in _precondition_atoms(part.body):
                if not _matches(atom, params, explainer.by_pred, world):
                    text = _atom_text(atom)
                    unreachable.append(text)
                    note_never_added(atom.predicate)
                    sentences.append(
                        f"goal {ground_text(part, {})} can never hold: no reachable fact "
                        f"matches {text} for any " + ", ".join(
                            f"{v.name} - {'/'.join(v.types)}" for v in part.variables
                            if v.name in atom.args)
                        + ("" if atom.predicate in adders else
                           f" (no action adds {atom.predicate})"))
                    break
            else:
                # every atom can match on its own: name the condition that fails each binding
                failing: dict[str, int] = {}
                for b in itertools.islice(_join(_precondition_atoms(part.body), params,
                                                explainer.by_pred, world, {}), 2000):
                    for c in _conjuncts(part.body):
                        if not relaxed_holds(c, reach.reached, b, world):
                            key = _literal_text(c, {})
                            failing[key] = failing.get(key, 0) + 1
                            break
                if failing:
                    text = max(failing, key=failing.get)
                    unreachable.append(text)
                    sentences.append(
                        f"goal {ground_text(part, {})} can never hold: whenever its other "
                        f"conditions can hold, {text} cannot (a negative condition on a fact "
                        f"that is true initially and never deleted, or a fact never reached)")
    for atom in neg:
        if atom in world.initial_state.atoms and atom[0] not in deleters:
            text = f"(not {format_atom(atom)})"
            unreachable.append(text)
            sentences.append(f"goal {text} can never be reached: {format_atom(atom)} is true "
                             f"initially and no action deletes {atom[0]}")
    comparisons = _goal_comparisons(problem.goal)
    if comparisons:   # numbers: the interval relaxation proves what no search needs to
        from .intervals import can_hold, numeric_reachability, why_comparison_fails

        found = numeric_reachability(world, reach, action_bindings)
        for comparison in comparisons if not found.capped else ():
            if not can_hold(comparison, found.bounds, {}):
                text = ground_text(comparison, {})
                unreachable.append(text)
                sentences.append(f"goal {text} can never hold, even in the interval relaxation "
                                 f"(every action repeatable, deletes ignored): "
                                 f"{why_comparison_fails(comparison, world, found)}")
    if not plain and not relaxed_holds(problem.goal, reach.reached, {}, world):
        sentences.append("the goal formula can never be satisfied, even ignoring delete effects")
    blocked = _blocked(world, reach, adders)
    relevant = {atom[0] for atom in pos} | {b.blocker.strip("(").split()[0] for b in blocked
                                             if b.blocker.startswith("(")}
    for pred in sorted(relevant):
        note_never_added(pred)
    for b in blocked:
        sentences.append(b.reason)
    proven = bool(unreachable) or (not plain and not relaxed_holds(problem.goal, reach.reached,
                                                                   {}, world))
    method = "relaxed"
    together: list[str] = []
    if not proven:
        exact = _exact(world, pos, neg, problem.goal, max_states)
        if exact is not None:
            method = "exact"
            more, together, extra = exact
            unreachable.extend(more)
            sentences = extra + sentences
            proven = bool(more) or bool(extra)
        elif not sentences:
            sentences.append("every goal atom is reachable when delete effects are ignored, so "
                             "the problem lies in interactions: an action deletes a fact another "
                             "one needs, or a negative precondition cannot be met")
    return NoPlanExplanation(tuple(unreachable), tuple(never_added), tuple(blocked),
                             tuple(together), tuple(sentences), method, proven)


def _alternatives(f: Formula, binding: dict, world: World, cap: int = 64):
    """The goal as ground alternatives (a DNF over literals), or None past ``cap`` of them.

    Each alternative is a list of (ground atom, positive); quantifiers are expanded over the
    objects. Comparisons and other parts that are not literals are left out.
    """
    if isinstance(f, Atom):
        if f.predicate == "=":
            args = bind_arguments(f.args, binding)
            return [[]] if args[0] == args[1] else []
        return [[((f.predicate, *bind_arguments(f.args, binding)), True)]]
    if isinstance(f, Not) and isinstance(f.formula, Atom):
        if f.formula.predicate == "=":
            args = bind_arguments(f.formula.args, binding)
            return [] if args[0] == args[1] else [[]]
        return [[((f.formula.predicate, *bind_arguments(f.formula.args, binding)), False)]]
    if isinstance(f, Or):
        out: list = []
        for p in f.parts:
            alts = _alternatives(p, binding, world, cap)
            if alts is None or len(out) + len(alts) > cap:
                return None
            out.extend(alts)
        return out
    if isinstance(f, Exists):
        out = []
        for b in world.bindings(f.variables):
            alts = _alternatives(f.body, {**binding, **b}, world, cap)
            if alts is None or len(out) + len(alts) > cap:
                return None
            out.extend(alts)
        return out
    if isinstance(f, And):
        out = [[]]
        for p in f.parts:
            alts = _alternatives(p, binding, world, cap)
            if alts is None or len(out) * len(alts) > cap:
                return None
            out = [x + y for x in out for y in alts]
        return out
    return [[]]


def _exact(world: World, pos: list, neg: list, goal: Formula, max_states: int):
    """Search the real state space (bounded): goal atoms never true, or never true together.

    Returns (goal atoms never true, goal literals never true together, sentences), or None
    when the space is too large to search within the work budget.
    """
    actions = list(itertools.islice(ground_actions(world), 5001))
    if len(actions) > 5000:
        return None
    # index each ground action by one positive precondition atom: per state, only actions
    # whose key atom holds are tried
    keyed: dict[tuple, list[GroundAction]] = {}
    unkeyed: list[GroundAction] = []
    for ga in actions:
        atoms = _precondition_atoms(ga.action.precondition)
        if atoms:
            key = (atoms[0].predicate, *bind_arguments(atoms[0].args, ga.binding))
            keyed.setdefault(key, []).append(ga)
        else:
            unkeyed.append(ga)
    start = world.initial_state
    seen = {start}
    queue = deque([start])
    ever: set = set(start.atoms)
    always: set = set(start.atoms)
    # one literal list per disjunct of the goal (a plain conjunction is one disjunct)
    lit_lists = _alternatives(goal, {}, world) or [[]]
    best = [(-1, start) for _ in lit_lists]
    # numeric goal conditions: whether each ever holds, and the range of each term it reads
    numeric = _goal_comparisons(goal)
    ranges: dict = {}
    held: set = set()
    work = 0
    while queue:
        state = queue.popleft()
        _numeric_seen(numeric, state, world, ranges, held)
        for i, lits in enumerate(lit_lists):
            count = sum(1 for a, positive in lits if (a in state.atoms) == positive)
            if count > best[i][0]:
                best[i] = (count, state)
        if holds(goal, state, {}, world):
            return [], [], []  # reachable after all (the planner gave up): nothing to blame
        tried = list(unkeyed)
        for atom in state.atoms:
            tried.extend(keyed.get(atom, ()))
        work += len(tried) + 1
        if work > EXACT_BUDGET:
            return None
        for ga in tried:
            if ga.applicable(state, world):
                nxt = ga.apply(state, world)
                if nxt not in seen:
                    if len(seen) >= max_states:
                        return None
                    seen.add(nxt)
                    ever |= nxt.atoms
                    always &= nxt.atoms
                    queue.append(nxt)
    n = len(seen)
    unreachable: list[str] = []
    together: list[str] = []
    sentences: list[str] = []
    for lits, (count, state) in zip(lit_lists, best):
        never = [format_atom(a) for a, positive in lits if positive and a not in ever]
        never += [f"(not {format_atom(a)})" for a, positive in lits if not positive and a in always]
        prefix = "" if len(lit_lists) == 1 else "in the goal's alternative with " + ", ".join(
            (format_atom(a) if p else f"(not {format_atom(a)})") for a, p in lits[:3]) + ": "
        if never:
            unreachable.extend(t for t in never if t not in unreachable)
            sentences.extend(f"{prefix}goal {t} can never be reached: no sequence of actions makes "
                             f"it true (all {n} reachable states were searched)" for t in never)
        elif lits:
            missing = [(f"(not {format_atom(a)})" if not positive else format_atom(a))
                       for a, positive in lits if (a in state.atoms) != positive]
            together.extend(t for t in missing[:5] if t not in together)
            sentences.append(
                f"{prefix}each goal literal can be reached on its own, but not all together: in "
                f"the {n} reachable states, at best {count} of {len(lits)} hold at once; still "
                f"false then: {', '.join(missing[:5])}")
    for k, comparison in enumerate(numeric):
        if k in held:
            continue
        shown = ground_text(comparison, {})
        unreachable.append(shown)
        spans = "; ".join(f"{name} ranges from {lo:g} to {hi:g}" if lo != hi else
                          f"{name} is always {lo:g}" for name, (lo, hi) in
                          sorted(ranges.get(k, {}).items()))
        sentences.append(f"goal {shown} never holds: in all {n} reachable states "
                         + (spans or "it is false"))
    if not sentences:
        sentences.append(f"no reachable state satisfies the goal (all {n} were searched)")
    return unreachable, together, sentences


def _goal_comparisons(goal: Formula) -> list:
    """The numeric conditions of a conjunctive goal (``(>= (level b) 5)``)."""
    if isinstance(goal, Comparison):
        return [goal]
    if isinstance(goal, And):
        return [c for part in goal.parts for c in _goal_comparisons(part)]
    return []


def _numeric_seen(comparisons: list, state: State, world: World, ranges: dict,
                  held: set) -> None:
    """Record, for each goal comparison, whether it holds in ``state`` and the values its
    function terms take (the ranges name what a goal needs more of than any state has)."""
    from ..pddl.model import iter_numeric_terms

    for k, comparison in enumerate(comparisons):
        if holds(comparison, state, {}, world):
            held.add(k)
        seen = ranges.setdefault(k, {})
        for e in (comparison.left, comparison.right):
            for t in iter_numeric_terms(e):
                value = state.value((t.name, *t.args))
                if value is None:
                    continue
                name = "(" + " ".join((t.name, *t.args)) + ")"
                lo, hi = seen.get(name, (value, value))
                seen[name] = (min(lo, value), max(hi, value))
