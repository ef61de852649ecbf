"""``task_goals``: the goals that name a thing the task names come first (stable: never
reached, then nearest, within each). Why: in the household the goal the task needs was
often far down a list of nearer, irrelevant atoms."""

from __future__ import annotations

from ..modular.parts import _kind_word
from ..atoms import atom_of


def offer(formalizer, reached: list) -> list:
    words = formalizer._task_words
    if not words:
        return reached
    return sorted(reached, key=lambda r: -sum(_kind_word(a) in words
                                              for a in atom_of(r[2]).args))
