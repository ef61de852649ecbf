"""The noisy formalizer: the observation formalizer plus seeded errors from PDDLego+'s taxonomy.

It stands in for an imperfect LLM when none is reachable, so the refine loops can be tested
and measured. When it writes files for a new step (initial or update), it makes one mistake
with probability ``rate``, drawn from the paper's error analysis:

* ``syntax``: a parenthesis slip (the problem file does not parse);
* ``undeclared``: a predicate used but never declared (``door-closed``, ``isopen``);
* ``missing-precondition``: ``move`` forgets that a closed door blocks the way; in the
  household, ``pickupobject`` forgets that the agent must be where the object is;
* ``missing-effect``: ``move`` forgets to add ``(at ?to)`` (``gotolocation``, ``(atlocation ?to)``);
* ``hallucinated-fact``: an exit that was never observed; in the household, an object of the
  task's class in a place already looked into, where there is none;
* ``impossible-goal``: a goal on a room (an object) that was never seen;
* ``forgotten-facts``: the connections of a visited room (the contents of a receptacle) are
  dropped.

Each environment has its own way of making each mistake (:class:`CoinMistakes`,
:class:`HouseholdMistakes`); the choice of when, and the rule for repairing, are shared.

A mistake is repaired only when the feedback identifies it, as a good LLM would: the
diagnostic or the environment's message must name what is wrong (the undeclared name, the
closed door, the missing exit, the unreachable atom). Otherwise the same mistake is made
again, and the loop's retry limit decides. Mistakes that cause no error (a missing precondition
on a path without doors) stay until they do.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
import re
from dataclasses import dataclass
from typing import Optional

from .answer import Files
from .base import INITIAL, UPDATE, Context
from .household_reader import STATE_WORDS, kind_of, task_goal
from .observation import ObservationFormalizer

KINDS = ("syntax", "undeclared", "missing-precondition", "missing-effect", "hallucinated-fact",
         "impossible-goal", "forgotten-facts")
MOVE_GUARD = "(or (not (has-door ?from ?to ?dir)) (door-open ?from ?to ?dir))"
MOVE_EFFECT = "(and (not (at ?from)) (at ?to) (visited ?to))"


@dataclass
class Mistake:
    kind: str
    detail: str  # the name the feedback must mention for the mistake to be recognised


class NoisyFormalizer(ObservationFormalizer):
    name = "noisy"

    def __init__(self, env_id: str = "coin-collector", rate: float = 0.3, seed: int = 0,
                 kinds: tuple[str, ...] = KINDS) -> None:
        super().__init__(env_id)
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown error kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
        self.rate = rate
        self.rng = random.Random(seed)
        self.kinds = kinds
        self.mistakes = MISTAKES[env_id]()
        self.active: Optional[Mistake] = None
        self.injected: list[str] = []
        self.repaired: list[str] = []

    def propose(self, context: Context) -> Files:
        known = self.world(context)
        if context.kind in (INITIAL, UPDATE):
            if self.active is None and self.rng.random() < self.rate:
                self.active = self.mistakes.choose(self.rng.choice(self.kinds), known, self.rng)
                if self.active is not None:
                    self.injected.append(self.active.kind)
        elif self.active is not None and identified(self.active, context.error or ""):
            self.repaired.append(self.active.kind)
            self.active = None
        domain, problem = self.domain, self.problem(known)
        if self.active is not None:
            domain, problem = self.mistakes.apply(self.active, domain, problem, known)
        return Files(domain, problem)


def identified(mistake: Mistake, feedback: str) -> bool:
    """Whether the feedback names the mistake (what a careful reader would act on)."""
    text = feedback.lower()
    if mistake.kind == "syntax":
        return "error[" in text and ("paren" in text or "unbalanced" in text
                                     or "unclosed" in text or "expected" in text
                                     or "end of" in text)
    if mistake.kind == "forgotten-facts":
        return mistake.detail in text or "unreachable" in text or "never" in text
    return any(d.lower() in text for d in mistake.detail.split("|"))


def _set_goal(problem: str, goal: str) -> str:
    return re.sub(r"\(:goal .*\)\)\s*$", f"(:goal {goal}))\n", problem, flags=re.S)


def _forget_last_paren(problem: str) -> str:
    return problem.rstrip()[:-1]


class Mistakes(ABC):
    """How one environment's files go wrong. Subclasses give ``DETAILS`` (what the feedback
    must name, per kind), ``choose_in_world`` for the kinds that depend on what has been seen,
    and ``apply_in_model`` for the kinds that edit the model."""

    DETAILS: dict = {}

    def choose(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        if kind in ("hallucinated-fact", "forgotten-facts"):
            return self.choose_in_world(kind, known, rng)
        return Mistake(kind, self.DETAILS[kind])

    def apply(self, mistake: Mistake, domain: str, problem: str, known) -> tuple[str, str]:
        if mistake.kind == "syntax":
            return domain, _forget_last_paren(problem)
        if mistake.kind == "undeclared":
            return domain, problem.replace("(:init ", f"(:init ({mistake.detail} {known.here}) ", 1)
        return self.apply_in_model(mistake, domain, problem, known)

    @abstractmethod
    def choose_in_world(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        """A hallucinated-fact or forgotten-facts mistake fitting what has been seen."""

    @abstractmethod
    def apply_in_model(self, mistake: Mistake, domain: str, problem: str,
                       known) -> tuple[str, str]:
        """The files with a model-level mistake (a goal, a fact, an action) made."""


class CoinMistakes(Mistakes):
    """PDDLego+'s mistakes as an LLM makes them in CoinCollector."""

    DETAILS = {"syntax": "syntax", "undeclared": "door-closed", "missing-precondition": "closed",
               "missing-effect": "(at ", "impossible-goal": "treasure_room"}

    def choose_in_world(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        if kind == "hallucinated-fact":
            free = [d for d in ("north", "south", "east", "west")
                    if (known.here, d) not in known.links]
            if not free:
                return None
            d = rng.choice(free)
            return Mistake(kind, f"move {d}|secret_room")
        rooms = sorted(r for r in known.visited if r != known.here)
        return Mistake(kind, rng.choice(rooms)) if rooms else None

    def apply_in_model(self, mistake: Mistake, domain: str, problem: str,
                       known) -> tuple[str, str]:
        kind, detail = mistake.kind, mistake.detail
        if kind == "missing-precondition":
            domain = domain.replace(MOVE_GUARD, "")
        elif kind == "missing-effect":
            domain = domain.replace(MOVE_EFFECT, "(and (not (at ?from)) (visited ?to))")
        elif kind == "hallucinated-fact":
            direction = detail.split("|")[0].split()[-1]
            problem = problem.replace("(:init ", f"(:init (connected {known.here} secret_room "
                                                 f"{direction}) ", 1)
            problem = problem.replace(" - room ", " secret_room - room ", 1)
            problem = _set_goal(problem, "(at secret_room)")
        elif kind == "impossible-goal":
            problem = problem.replace(" - room ", " treasure_room - room ", 1)
            problem = _set_goal(problem, "(at treasure_room)")
        elif kind == "forgotten-facts":
            problem = re.sub(rf"\(connected {detail} \S+ \w+\)|\(connected \S+ {detail} \w+\)"
                             rf"|\(has-door {detail} \S+ \w+\)|\(has-door \S+ {detail} \w+\)"
                             rf"|\(door-open {detail} \S+ \w+\)|\(door-open \S+ {detail} \w+\)",
                             "", problem)
        return domain, problem


TAKE_GUARD = "(and (atlocation ?r) (or (not (openable ?r)) (opened ?r))"
GO_EFFECT = "(and (not (atlocation ?from)) (atlocation ?to))"


class HouseholdMistakes(Mistakes):
    """The same mistakes as an LLM makes them in the household."""

    DETAILS = {"syntax": "syntax", "undeclared": "isopen", "missing-precondition": "not at",
               "missing-effect": "atlocation", "impossible-goal": "unicorn_1"}

    def choose_in_world(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        if kind == "hallucinated-fact":
            places = sorted(r for r in known.looked if r in known.contents
                            and kind_of(r) != known.goal.receptacle)
            if not places:
                return None
            fake = f"{known.goal.target}_99"
            return Mistake(kind, f"{fake.replace('_', ' ')}|{fake}|{rng.choice(places)}")
        places = sorted(r for r in known.contents if known.contents[r])
        needed = [r for r in places
                  if any(kind_of(o) == known.goal.target for o in known.contents[r])]
        return Mistake(kind, rng.choice(needed or places)) if places else None

    def apply_in_model(self, mistake: Mistake, domain: str, problem: str,
                       known) -> tuple[str, str]:
        kind, detail = mistake.kind, mistake.detail
        if kind == "missing-precondition":
            domain = domain.replace(TAKE_GUARD, "(and (or (not (openable ?r)) (opened ?r))")
        elif kind == "missing-effect":
            domain = domain.replace(GO_EFFECT, "(not (atlocation ?from))")
        elif kind == "hallucinated-fact":
            _shown, fake, place = detail.split("|")
            problem = problem.replace(" - receptacle\n", f" - receptacle\n            {fake} - obj\n", 1)
            problem = problem.replace("(:init ", f"(:init (inreceptacle {fake} {place}) "
                                                 f"(objecttype {fake} {known.goal.target}) ", 1)
            if known.goal.state:
                problem = problem.replace("(:init ", f"(:init ({STATE_WORDS[known.goal.state][0]}"
                                                     f" {fake}) ", 1)
            if not known.ready():  # believing the object is there, it goes for the task
                saved = known.contents.get(place)
                known.contents[place] = set(saved or ()) | {fake}
                try:
                    problem = _set_goal(problem, task_goal(known))
                finally:
                    known.contents[place] = saved
        elif kind == "impossible-goal":
            problem = problem.replace(" - receptacle\n", " - receptacle\n            unicorn_1 - obj\n", 1)
            problem = _set_goal(problem, "(holds unicorn_1)")
        elif kind == "forgotten-facts":
            problem = re.sub(rf"\(inreceptacle \S+ {detail}\)", "", problem)
        return domain, problem


MISTAKES = {"coin-collector": CoinMistakes, "household": HouseholdMistakes,
            "alfworld": HouseholdMistakes}
