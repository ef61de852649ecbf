"""States: immutable sets of ground atoms, plus numeric fluent values.

A ground atom is a tuple ``("at", "truck1", "depot")``: cheap to hash and compare, which
matters because planners' checks and environment simulators create many states.
"""

from __future__ import annotations

from typing import Iterable, Mapping

GroundAtom = tuple


class State:
    """An immutable world state. Equal states hash equal; fluents default to absent."""

    __slots__ = ("atoms", "_fluents", "_hash", "_index", "_arg_index")

    def __init__(self, atoms: Iterable[GroundAtom], fluents: Mapping[tuple, float] | None = None):
        self.atoms: frozenset = atoms if isinstance(atoms, frozenset) else frozenset(atoms)
        self._fluents: dict = dict(fluents or {})
        self._hash = None
        self._index = None
        self._arg_index = None

    @property
    def by_predicate(self) -> dict:
        """Atoms grouped by predicate name (built on first use)."""
        if self._index is None:
            index: dict = {}
            for a in self.atoms:
                index.setdefault(a[0], []).append(a)
            self._index = index
        return self._index

    def atoms_with(self, predicate: str, position: int, value: str) -> list:
        """Atoms of ``predicate`` whose argument ``position`` (1-based) is ``value``.

        Indexed on first use per (predicate, position): joins in quantifiers and derived
        rules look atoms up by a bound argument instead of scanning the predicate.
        """
        if self._arg_index is None:
            self._arg_index = {}
        table = self._arg_index.get((predicate, position))
        if table is None:
            table = self._arg_index[(predicate, position)] = argument_table(
                self.by_predicate.get(predicate, ()), position)
        return table.get(value, ())

    @property
    def fluents(self) -> Mapping[tuple, float]:
        return dict(self._fluents)

    def value(self, key: tuple) -> float | None:
        return self._fluents.get(key)

    def __contains__(self, atom: GroundAtom) -> bool:
        return atom in self.atoms

    def __iter__(self):
        return iter(self.atoms)

    def __len__(self) -> int:
        return len(self.atoms)

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.atoms == other.atoms and self._fluents == other._fluents

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.atoms, frozenset(self._fluents.items())))
        return self._hash

    def __repr__(self) -> str:
        shown = sorted(self.atoms)[:6]
        more = f", ... {len(self.atoms) - 6} more" if len(self.atoms) > 6 else ""
        return f"State({', '.join(format_atom(a) for a in shown)}{more})"

    def with_changes(self, adds: Iterable[GroundAtom], deletes: Iterable[GroundAtom],
                     fluents: Mapping[tuple, float] | None = None) -> "State":
        """PDDL semantics: deletes first, then adds (an atom both added and deleted stays)."""
        deletes, adds = frozenset(deletes), frozenset(adds)
        atoms = (self.atoms - deletes) | adds
        merged = self._fluents if not fluents else {**self._fluents, **fluents}
        state = State(atoms, merged)
        if self._index is not None:
            # the successor's index by predicate: the parent's, with only the changed
            # predicates' lists rebuilt (a step changes a few atoms of a large state)
            index = dict(self._index)
            for name in {a[0] for a in deletes | adds}:
                kept = [a for a in index.get(name, ()) if a in atoms]
                kept += [a for a in adds if a[0] == name and a not in self.atoms]
                if kept:
                    index[name] = kept
                else:
                    index.pop(name, None)
            state._index = index
        return state


def argument_table(atoms: Iterable[GroundAtom], position: int) -> dict:
    """``atoms`` grouped by their argument at ``position`` (1-based)."""
    table: dict = {}
    for a in atoms:
        if len(a) > position:
            table.setdefault(a[position], []).append(a)
    return table


def format_atom(atom: GroundAtom) -> str:
    return "(" + " ".join(atom) + ")"
