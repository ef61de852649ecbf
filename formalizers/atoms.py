"""A fact's text and pddlkit's :class:`~pddlkit.pddl.model.Atom`, each read from the other in
one place (issue 74): ``atom_of("(at kitchen)")`` and ``fact_text(Atom("at", ("kitchen",)))``;
a predicate's declaration and its :class:`Signature` the same way.

The formalizers keep every fact they believe as an ``Atom`` (the modular formalizer's facts,
the loop's fact memory, the refuted facts) and write text only where text is read: the
problem file, a prompt, a record, a transition of the evidence (whose states are the record's
text). A goal stays text: it is a formula the model chose (``(not (closed drawer_1))`` too),
written into the problem as it is.

A module of its own, outside the modular formalizer's package, so the helps that keep atoms
(the fact memory, the refuted facts) and the domain-writing helps read facts without loading
that package (which imports them: a cycle otherwise).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from pddlkit.pddl.model import Atom

#: an atom as a model writes it in a line: ``(name arg ...)``, the name and the arguments' text
_ATOM = re.compile(r"\(\s*([A-Za-z][\w\-]*)((?:\s+[^\s()]+)*)\s*\)")


def _words(fact: str) -> list[str]:
    """The predicate and the names of a fact (or a goal), ``(at kitchen)`` -> at, kitchen."""
    return fact.replace("(", " ").replace(")", " ").split()


@lru_cache(maxsize=1 << 16)
def atom_of(fact: str) -> Atom:
    """A fact as the formalizer keeps it, ``(at kitchen)``, read as pddlkit's
    :class:`~pddlkit.pddl.model.Atom` (``at``; ``("kitchen",)``): the one place a fact is
    taken apart (issue 74: facts were split by hand in a dozen places). A text with no
    predicate reads as ``Atom("")``."""
    words = _words(fact)
    return Atom(words[0], tuple(words[1:])) if words else Atom("")


def fact_text(atom: Atom) -> str:
    """An atom as the formalizer keeps a fact: ``(at kitchen)``."""
    return "(" + " ".join([atom.predicate, *atom.args]) + ")"


def facts_text(atoms: Iterable[Atom], sep: str = " ") -> str:
    """Facts as a problem's ``:init`` or a prompt writes them, in their order."""
    return sep.join(fact_text(a) for a in atoms)


def ground_atom(ground: tuple) -> Atom:
    """A state's ground atom of pddlkit's semantics, ``("at", "kitchen")``, as an ``Atom``."""
    return Atom(ground[0], tuple(ground[1:]))


def names_of(atom: Atom) -> tuple[str, ...]:
    """The predicate and the names of a fact: what a name is looked for among."""
    return (atom.predicate, *atom.args)


def slot_of(atom: Atom) -> tuple:
    """What a single-valued fact holds one value of: its predicate, with its first argument
    when it has two or more (``(at kitchen)`` -> at; ``(inreceptacle x_1 desk_1)`` ->
    inreceptacle, x_1)."""
    return (atom.predicate, atom.args[0]) if len(atom.args) > 1 else \
        (atom.predicate,) if atom.predicate else ()


@dataclass(frozen=True)
class Signature:
    """A predicate's declaration as the modular formalizer keeps it (issue 74: structure as
    data): its name and each parameter with its type (None: untyped), read from its line once
    (:meth:`read`) and written back only where text is read, the domain file and the
    prompts (``str``: ``(at ?r - room)``, the line it was read from). The predicates the
    model wrote, and those of a frozen domain, are kept so; before, they were lines parsed
    again by every reader."""

    name: str
    params: tuple[tuple[str, Optional[str]], ...] = ()

    @classmethod
    def read(cls, line: str) -> "Signature":
        """``(at ?r - room)`` -> ``Signature("at", (("?r", "room"),))``; the name lower-case."""
        words = line.strip().strip("()").split()
        params, i = [], 1
        while i < len(words):
            if words[i].startswith("?"):
                kind = words[i + 2] if i + 2 < len(words) and words[i + 1] == "-" else None
                params.append((words[i], kind))
            i += 1
        return cls(words[0].lower() if words else "", tuple(params))

    @property
    def types(self) -> list[str]:
        """The parameters' types, the untyped ones left out."""
        return [t for _v, t in self.params if t]

    def __str__(self) -> str:
        return "(" + " ".join([self.name] + [f"{v} - {t}" if t else v
                                             for v, t in self.params]) + ")"
