"""Observation -> PDDL (``pddlkit.formalizers``): the PDDLego+ loop and its formalizers.

``formalize_and_plan`` (one step), ``run_episode`` (a whole episode with both refine loops),
``LLMFormalizer`` (the paper's prompts), ``ObservationFormalizer`` and ``NoisyFormalizer``
(offline stand-ins), ``PlanGen`` (the LLM-as-planner baseline), ``DomainLibrary``.
"""

from .answer import AnswerError, Files, parse_answer
from .api import FormalizeResult, formalize_and_plan, make_formalizer
from .base import Context, Formalizer, Memory
from .loop import EpisodeResult, Limits, Metrics, run_episode

__all__ = ["AnswerError", "Files", "parse_answer", "FormalizeResult", "formalize_and_plan",
           "make_formalizer", "Context", "Formalizer", "Memory", "EpisodeResult", "Limits",
           "Metrics", "run_episode"]
