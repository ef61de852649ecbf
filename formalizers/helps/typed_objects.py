"""``typed_objects``: every name the model typed with a domain type is declared as an object,
even one no fact names (a receptacle seen but not described can be gone to).

Measured with Qwen2.5-Coder 1.5B on the household (dev seeds): 5 and 2 of the 8 receptacles
were named by a fact; the agent went back and forth between those, and the others could not
be a goal. A name the world then says is not there, which no fact names, is withdrawn (the
formalizer's ``_not_there``: measured, "open" of "You open the cabinet 1." typed as a
receptacle and gone to).

A strategy of the modular formalizer (its ``strategy`` hook): one object per episode, which
keeps the names it declared, so each is counted once.
"""

from __future__ import annotations

import re

from pddlkit.formalizers.modular.parts import _reserved


class TypedObjects:
    """The names declared so far in this episode."""

    def __init__(self) -> None:
        self.declared: set[str] = set()

    def objects(self, formalizer, named: set[str], count: bool = True) -> list[str]:
        """``name - type`` for each name the types part gave a domain type that ``named``
        (the names of the facts and the goal, lower case) does not hold; the names used are declared by
        :func:`pddlkit.formalizers.objects.declare_objects`, typed by the predicates they
        fill. Names that are the domain's own words (a type, a predicate, an action) are
        left out. With ``count``, a name declared for the first time is counted as acting
        and added to the formalizer's ``typed_declared`` (the loop's record)."""
        dom = formalizer._domain_model()
        if dom is None:
            return []
        types = {t.name.lower() for t in dom.types}
        reserved = _reserved(dom)
        out = []
        for word, kind in formalizer.name_types.items():
            if kind == "NONE" or kind.lower() not in types or word in named \
                    or word in reserved or not re.fullmatch(r"[a-z][a-z0-9_\-]*", word):
                continue
            out.append(f"{word} - {kind}")
            if count and word not in self.declared:
                self.declared.add(word)
                formalizer.acted["typed-objects"] += 1
                formalizer.typed_declared.append(f"{word} - {kind}")
        return out

    def absent(self, formalizer, name: str, gone: list, typed: bool) -> bool:
        """The world said ``name`` is not there: withdrawn when the model typed it and no
        fact names it (declared only because it was typed; measured: "open" of "You open
        the cabinet 1" typed as a receptacle and gone to)."""
        return typed and not gone

    def withdrawn(self, name: str) -> None:
        """The world said ``name`` is not there: declared again (and counted) only once a
        sentence types it again."""
        self.declared.discard(name)
