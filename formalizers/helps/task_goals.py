"""``task_goals``: the goals that name a thing the task names come first (stable: never
reached, then nearest, within each). Why: in the household the goal the task needs was
often far down a list of nearer, irrelevant atoms.

Among those naming as many of the task's things, a goal of a thing's other states (hot,
clean, turned on: the aspect ``predicate_slots`` asks for last) comes after the others
(where it is, what is held), while the model writes the domain with ``predicate_slots``:
whatever the task does with a thing, it is taken first. Why: measured with Qwen2.5-Coder
1.5B learning the household's domain (dev seed 0 at 12dad66, "put two creditcard on
countertop"), the goal chosen was ``(hot creditcard_2)`` at three steps in a row, each
plan a "clean creditcard 2 with cabinet 1" the world refused, where ``(holds
creditcard_2)`` was offered too; at 3e72055 seed 1 held the ladle and chased ``(hot
mug_1)``."""

from __future__ import annotations

from ..modular.parts import _kind_word
from ..atoms import atom_of


def offer(formalizer, reached: list) -> list:
    words = formalizer._task_words
    if not words:
        return reached
    from .predicate_slots import STATE_ASPECT

    aspects = getattr(formalizer, "predicate_aspects", {})

    def rank(r) -> tuple:
        atom = atom_of(r[2])
        return (-sum(_kind_word(a) in words for a in atom.args),
                aspects.get(atom.predicate) == STATE_ASPECT)
    return sorted(reached, key=rank)
