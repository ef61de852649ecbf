"""A fact's text and pddlkit's :class:`~pddlkit.pddl.model.Atom`, each read from the other in
one place (issue 74): ``atom_of("(at kitchen)")`` and ``fact_text(Atom("at", ("kitchen",)))``.

A module of its own, outside the modular formalizer's package, so the helps that keep atoms
(the fact memory, the refuted facts) and the domain-writing helps read facts without loading
that package (which imports them: a cycle otherwise).
"""

from __future__ import annotations

import re
from functools import lru_cache

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
    taken apart (issue 74: facts were split by hand in a dozen places). The loop's fact
    memory and the refuted facts keep atoms (:mod:`.helps.fact_memory`,
    :mod:`.helps.refuted_facts`); the modular formalizer's own facts are still kept as their
    text, which the schema check's states, the records, the prompts and the files share; a
    text with no predicate reads as ``Atom("")``."""
    words = _words(fact)
    return Atom(words[0], tuple(words[1:])) if words else Atom("")


def fact_text(atom: Atom) -> str:
    """An atom as the formalizer keeps a fact: ``(at kitchen)``."""
    return "(" + " ".join([atom.predicate, *atom.args]) + ")"
