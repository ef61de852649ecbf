"""The points at which the modular formalizer asks its strategy helps, one protocol each
(issue 74: reached by what they do, not by their names).

A help with a ``strategy`` hook (:data:`pddlkit.formalizers.help_table.STRATEGY`) is one
object an episode. At each point below, the formalizer asks every strategy that is on and
plays that role (``isinstance`` of the ``runtime_checkable`` protocol, as
:mod:`pddlkit.planners.protocol` does for planners), in the table's order:

* :class:`AsksForMissing`: a predicate to ask for alone, after the planner's why-no-plan and
  before a goal when the agent is stalled; the first strategy that names one wins
  (``ask_missing``).
* :class:`CorrectsFromRefusal`: hears what the world said of a refused command and corrects
  the known facts in code; every strategy hears, and the facts were corrected when any
  corrected them (``world_literals``).
* :class:`HearsAbsence`: the world said a name is not there; the first strategy that says the
  name is withdrawn (typed NONE, no longer declared) decides (``typed_objects``: a name
  only the model's typing declared; ``world_literals``: the model's facts about it go).
* :class:`DeclaresNames`: objects declared besides the names the facts and the goal use; the
  lists are joined (``typed_objects``).
* :class:`ReadsCommands`: what the environment's valid commands say (names, their types, the
  types whose every name they list), read in code (``command_facts``).
* :class:`PinsSentenceFacts`: a sentence's facts pinned to where the agent is
  (``here_facts``); the first strategy with pins reads them.
* :class:`GuardsPlans`: the files the planner is given, the model's files guarded in code
  (``refused_steps``: a command the world refused from the facts the plan starts from, or
  one a complete list leaves out, is not its first step); each strategy guards what the
  one before it returned.
* :class:`ShortensPlans`: the plan for those files, less the steps it does not need
  (``refused_steps``, over a learned entry reused); each strategy shortens what the one
  before it returned.

So a new strategy that acts at one of these points is one file (its class, with the
protocol's methods) and one table line; one that needs a new point also needs that point
here and the formalizer's call of it. The formalizer's :meth:`_roles` lists the strategies
for a role; which help plays which role is read from the classes, never written down by
name.
"""

from __future__ import annotations

from typing import Optional, Protocol, runtime_checkable


@runtime_checkable
class AsksForMissing(Protocol):
    """A predicate the planner needs and no known fact holds, to ask for alone."""

    def after_no_plan(self, formalizer, error: str) -> Optional[str]:
        """After the planner's why-no-plan ``error``: the predicate, or None."""

    def when_stalled(self, formalizer) -> Optional[str]:
        """Before a goal, with no place left to go: the predicate, or None."""


@runtime_checkable
class CorrectsFromRefusal(Protocol):
    """What the world said of a refused command (``info["failed"]``), applied in code."""

    def heard(self, failed: dict) -> None:
        """The world's ``info["failed"]`` for the failed step (``{}`` when it said none)."""

    def apply(self, formalizer) -> bool:
        """Correct the known facts from what was heard; True when something changed."""


@runtime_checkable
class HearsAbsence(Protocol):
    """The world said a name is not there ("You don't see any middle here.")."""

    def absent(self, formalizer, name: str, gone: list, typed: bool) -> bool:
        """``gone``: the known facts naming ``name``; ``typed``: whether the model gave it
        a domain type. True when the name is to be withdrawn (typed NONE)."""


@runtime_checkable
class DeclaresNames(Protocol):
    """Objects declared besides the names the facts and the goal use."""

    def objects(self, formalizer, named: set, count: bool = True) -> list[str]:
        """``name - type`` for each name to declare that ``named`` does not hold."""

    def withdrawn(self, name: str) -> None:
        """The world said ``name`` is not there: it is declared again only once typed
        again."""


@runtime_checkable
class ReadsCommands(Protocol):
    """What the environment's valid commands say, read through the action templates."""

    names: set
    typed: dict
    closed: set

    def new_request(self) -> None:
        """A new request of the loop."""

    def read(self, formalizer, context, signatures: dict) -> None:
        """Read the valid commands of ``context`` into the facts and the types."""

    def untype(self, formalizer, signatures: dict) -> None:
        """While the model writes the domain: the commands' own words typed NONE."""

    def close_type(self, formalizer, name: str, gone: list) -> bool:
        """The world has no ``name``, typed as a kind the commands fill: True when it is to
        be typed again (the kind was wrong, not the name)."""


@runtime_checkable
class PinsSentenceFacts(Protocol):
    """A sentence's facts, pinned to where the agent is."""

    def pins(self, formalizer) -> Optional[dict]:
        """predicate -> {argument: where the agent is}, or None."""

    def away(self, formalizer, predicate: str, args: list, pins: dict) -> Optional[str]:
        """The fact a sentence's ``(predicate *args)`` is read as, under ``pins``; None
        when it is not kept."""


@runtime_checkable
class GuardsPlans(Protocol):
    """The files the planner is given: the model's, guarded in code (never recorded)."""

    def guard(self, formalizer, domain_text: str, problem_text: str, context
              ) -> tuple[str, str, list[str]]:
        """(domain, problem, what the guard names as kept out), ``context`` the request's
        (its listed commands); the files unchanged when nothing is guarded."""


@runtime_checkable
class ShortensPlans(Protocol):
    """The plan the planner gave for the guarded files, with needless steps taken out."""

    def shorten(self, formalizer, domain_text: str, problem_text: str, plan):
        """(the plan to run, what was left out, as a line): ``plan`` and "" when nothing
        is."""


#: every role, for the test that each strategy of the table plays at least one
ROLES = (AsksForMissing, CorrectsFromRefusal, HearsAbsence, DeclaresNames, ReadsCommands,
         PinsSentenceFacts, GuardsPlans, ShortensPlans)
