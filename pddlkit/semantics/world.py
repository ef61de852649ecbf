"""A domain and a problem together: typed objects, the initial state, derived predicates.

``World`` answers the questions every semantic operation asks: which objects have a type
(through the type hierarchy and ``either``), what holds initially, and what derived predicates
hold in a state (stratified fixpoint, so negated derived predicates are evaluated after the
predicates they depend on are complete).
"""

from __future__ import annotations

import itertools
from functools import cached_property
from typing import Iterator

from ..pddl.model import (
    And, Atom, DerivedPredicate, Domain, Exists, Forall, Imply, Not, Or, Problem,
    iter_effect_literals,
)
from .formulas import candidate_bindings, holds
from .state import State, argument_table


class World:
    def __init__(self, domain: Domain, problem: Problem):
        self.domain = domain
        self.problem = problem
        self.object_types: dict[str, tuple[str, ...]] = {}
        for tn in domain.constants + problem.objects:
            self.object_types.setdefault(tn.name, tn.types)

    # ------------------------------------------------------------------ types

    @cached_property
    def ancestors(self) -> dict[str, frozenset]:
        """Each type to itself plus all its supertypes (always including 'object')."""
        parents = self.domain.type_parents
        out: dict[str, frozenset] = {}

        def up(t: str, seen: frozenset) -> frozenset:
            if t in out:
                return out[t]
            acc = {t, "object"}
            for p in parents.get(t, ("object",) if t != "object" else ()):
                if p not in seen:
                    acc |= up(p, seen | {t})
            return frozenset(acc)

        for t in list(parents) + [t for ts in self.object_types.values() for t in ts]:
            out[t] = up(t, frozenset())
        return out

    def is_of_type(self, obj: str, types: tuple[str, ...]) -> bool:
        mine = self.object_types.get(obj)
        if mine is None:
            return False
        for t in mine:
            anc = self.ancestors.get(t) or frozenset({t, "object"})
            if any(x in anc for x in types):
                return True
        return False

    @cached_property
    def _by_type(self) -> dict[str, tuple[str, ...]]:
        table: dict[str, list[str]] = {}
        for obj, types in self.object_types.items():
            seen: set = set()
            for t in types:
                seen |= self.ancestors.get(t) or {t, "object"}
            for t in seen:
                table.setdefault(t, []).append(obj)
        return {t: tuple(v) for t, v in table.items()}

    def objects_of(self, types: tuple[str, ...]) -> tuple[str, ...]:
        if len(types) == 1:
            return self._by_type.get(types[0], ())
        return tuple(dict.fromkeys(o for t in types for o in self._by_type.get(t, ())))

    def bindings(self, variables) -> Iterator[dict]:
        names = [v.name for v in variables]
        for values in itertools.product(*(self.objects_of(v.types) for v in variables)):
            yield dict(zip(names, values))

    # ------------------------------------------------------------------ states

    @cached_property
    def initial_state(self) -> State:
        atoms = frozenset(a.ground({}) for a in self.problem.init)
        fluents = {(t.name, *t.args): v for t, v in self.problem.numeric_init}
        return self.with_derived(State(atoms, fluents))

    @cached_property
    def fluent_predicates(self) -> frozenset:
        """Predicates some action changes (the others are static)."""
        names = set()
        for a in self.domain.actions:
            for lit in iter_effect_literals(a.effects):
                names.add(lit.atom.predicate)
        return frozenset(names)

    @cached_property
    def derived_strata(self) -> list[list[DerivedPredicate]]:
        rules = self.domain.derived
        if not rules:
            return []
        derived_names = {r.predicate.name for r in rules}
        deps: dict[str, set[tuple[str, bool]]] = {n: set() for n in derived_names}
        for r in rules:
            _collect_deps(r.condition, True, deps[r.predicate.name], derived_names)
        level = {n: 0 for n in derived_names}
        for _ in range(len(derived_names) + 1):
            changed = False
            for n, ds in deps.items():
                for d, positive in ds:
                    need = level[d] + (0 if positive else 1)
                    if need > level[n]:
                        level[n] = need
                        changed = True
            if not changed:
                break
        strata: dict[int, list] = {}
        for r in rules:
            strata.setdefault(level[r.predicate.name], []).append(r)
        return [strata[k] for k in sorted(strata)]

    def with_derived(self, state: State) -> State:
        """``state`` plus the derived atoms that hold in it (any old derived atoms dropped).

        Semi-naive evaluation per stratum: the first round tries every rule's candidate
        heads; each later round only tries the heads that a rule can derive through an atom
        that the round before added (its *delta*): the delta atom is matched against each
        positive occurrence of the stratum's predicates in the rule's condition, which binds
        some head parameters and the existential variables around the occurrence, and the
        conjunction around it narrows the rest. A head not derived in round k whose condition
        holds after round k must use an atom added in round k, so nothing is missed; every
        head is still checked against the whole condition, so nothing wrong is added. Rules
        whose stratum predicates occur under ``forall`` or negation, or whose existential
        variables shadow a parameter, are tried in full each round, as before.
        """
        if not self.domain.derived:
            return state

        derived_names = {r.predicate.name for r in self.domain.derived}
        atoms = {a for a in state.atoms if a[0] not in derived_names}
        # Evaluate against the growing set itself: within a stratum derived predicates occur
        # only positively, so seeing new atoms early is sound and needs far fewer passes.
        view = LiveView(atoms, state)
        for stratum, occurrences in zip(self.derived_strata, self._stratum_occurrences):
            delta: dict[str, list] = {}
            for rule in stratum:
                params = rule.predicate.parameters
                name = rule.predicate.name
                for b in candidate_bindings(params, rule.condition, view, {}, self):
                    head = (name, *[b[p.name] for p in params])
                    if head not in atoms and holds(rule.condition, view, b, self):
                        view.add(head)
                        delta.setdefault(name, []).append(head)
            while delta:
                added: dict[str, list] = {}
                for rule, occs in zip(stratum, occurrences):
                    for head, b in self._delta_heads(rule, occs, delta, view, atoms):
                        if head not in atoms and holds(rule.condition, view, b, self):
                            view.add(head)
                            added.setdefault(rule.predicate.name, []).append(head)
                delta = added
        return State(frozenset(atoms), state.fluents)

    @cached_property
    def _stratum_occurrences(self) -> list[list]:
        """Per stratum, per rule: its positive occurrences of the stratum's predicates as
        ``(atom, context, local variables)``, or None when the rule must be tried in full."""
        out = []
        for stratum in self.derived_strata:
            same = {r.predicate.name for r in stratum}
            rules = []
            for rule in stratum:
                found: list = []
                ok = _occurrences(rule.condition, same, frozenset(), None, found)
                params = {p.name for p in rule.predicate.parameters}
                if ok and any(local & params for _, _, local in found):
                    ok = False
                rules.append(found if ok else None)
            out.append(rules)
        return out

    def _delta_heads(self, rule, occurrences, delta: dict, view, atoms: set):
        """(head, binding) pairs that ``rule`` may derive through an atom of ``delta``."""

        params = rule.predicate.parameters
        name = rule.predicate.name
        if occurrences is None:  # tried in full
            for b in candidate_bindings(params, rule.condition, view, {}, self):
                yield (name, *[b[p.name] for p in params]), b
            return
        seen: set = set()
        for occ, context, local in occurrences:
            for d in delta.get(occ.predicate, ()):
                if len(d) != len(occ.args) + 1:
                    continue
                beta: dict = {}
                for a, v in zip(occ.args, d[1:]):
                    if a.startswith("?") and beta.setdefault(a, v) == v:
                        continue
                    if a != v:
                        break
                else:
                    head_bound = {p.name: beta[p.name] for p in params if p.name in beta}
                    if not all(self.is_of_type(head_bound[p.name], p.types)
                               for p in params if p.name in head_bound):
                        continue
                    rest = [p for p in params if p.name not in head_bound]
                    extras = candidate_bindings(rest, context, view, beta, self) if rest \
                        else ({},)
                    for extra in extras:
                        b = {**head_bound, **{p.name: extra[p.name] for p in rest}}
                        head = (name, *[b[p.name] for p in params])
                        if head not in atoms and head not in seen:
                            seen.add(head)
                            yield head, b


def _occurrences(f, same: set, local: frozenset, context, out: list) -> bool:
    """Collect the positive occurrences of ``same`` in ``f`` (see
    :attr:`World._stratum_occurrences`); False when one sits where delta matching does not
    apply (under negation, an implication's condition, or ``forall``)."""
    if isinstance(f, Atom):
        if f.predicate in same:
            out.append((f, context if context is not None else f, local))
        return True
    if isinstance(f, And):
        return all(_occurrences(p, same, local, f, out) for p in f.parts)
    if isinstance(f, Or):
        return all(_occurrences(p, same, local, None, out) for p in f.parts)
    if isinstance(f, Exists):
        return _occurrences(f.body, same, local | {v.name for v in f.variables}, None, out)
    if isinstance(f, Imply):
        return (not _mentions(f.condition, same)
                and _occurrences(f.consequence, same, local, None, out))
    if isinstance(f, (Not, Forall)):
        return not _mentions(f, same)
    return True


def _mentions(f, names: set) -> bool:
    deps: set = set()
    _collect_deps(f, True, deps, names)
    return bool(deps)


class LiveView:
    """Quacks like a State over a set that grows during the derived-predicate fixpoint."""

    __slots__ = ("atoms", "_state", "by_predicate", "_arg_index")

    def __init__(self, atoms: set, state: State):
        self.atoms = atoms
        self._state = state
        self.by_predicate: dict = {}
        self._arg_index: dict = {}
        for a in atoms:
            self.by_predicate.setdefault(a[0], []).append(a)

    def add(self, atom: tuple) -> None:
        self.atoms.add(atom)
        self.by_predicate.setdefault(atom[0], []).append(atom)
        for position in range(1, len(atom)):
            table = self._arg_index.get((atom[0], position))
            if table is not None:
                table.setdefault(atom[position], []).append(atom)

    def atoms_with(self, predicate: str, position: int, value: str) -> list:
        table = self._arg_index.get((predicate, position))
        if table is None:
            table = self._arg_index[(predicate, position)] = argument_table(
                self.by_predicate.get(predicate, ()), position)
        return table.get(value, ())

    def value(self, key: tuple):
        return self._state.value(key)


def _collect_deps(f, positive: bool, out: set, derived: set) -> None:
    if isinstance(f, Atom):
        if f.predicate in derived:
            out.add((f.predicate, positive))
    elif isinstance(f, Not):
        _collect_deps(f.formula, not positive, out, derived)
    elif isinstance(f, (And, Or)):
        for p in f.parts:
            _collect_deps(p, positive, out, derived)
    elif isinstance(f, Imply):
        _collect_deps(f.condition, not positive, out, derived)
        _collect_deps(f.consequence, positive, out, derived)
    elif isinstance(f, (Exists, Forall)):
        _collect_deps(f.body, positive, out, derived)
