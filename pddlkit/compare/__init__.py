"""Scoring what a model wrote against the truth.

:func:`compare_problems`: is a candidate problem the reference problem up to a renaming of
objects, and if not, which facts and goal literals differ under the best renaming.
:func:`compare_domains`: which precondition and effect literals of each action agree (after
renaming predicates), and whether the two domains behave alike on sampled transitions of
reference problems. Both return dataclasses with ``format()`` (for a person or an LLM) and
``to_dict()``; the command line is ``pddlkit compare REF CAND``.
"""

from __future__ import annotations

from .domains import (ActionComparison, BehaviourComparison, Disagreement, DomainComparison,
                      PredicateMapping, compare_domains)
from .inputs import CompareInputError, detect_kind, load_domain, load_problem
from .problems import FactDifference, ProblemComparison, compare_problems

__all__ = [
    "ActionComparison", "BehaviourComparison", "CompareInputError", "Disagreement",
    "DomainComparison", "FactDifference", "PredicateMapping", "ProblemComparison",
    "compare_domains", "compare_problems", "detect_kind", "load_domain", "load_problem",
]
