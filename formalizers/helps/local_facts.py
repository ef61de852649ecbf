"""``local_facts``: while the model reads one sentence, the known facts whose names it is
offered are those of single-valued slots only (where the agent is, what it holds), not every
place it knows. Why: with every known place offered, Qwen2.5-Coder 1.5B wrote a sentence's
facts over places the sentence does not name (CoinCollector, dev seeds)."""

from __future__ import annotations

from pddlkit.pddl.model import Atom


def facts(formalizer, known: list[Atom]) -> list[Atom]:
    single = formalizer._single_valued()
    return [f for f in known if f.predicate in single]
