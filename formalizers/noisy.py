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

A mistake is repaired only when the feedback identifies it, as a good LLM would: each
mistake carries its *evidence*, patterns that the diagnostic or the environment's message must
all match, naming the symptom of that very mistake (``error[undeclared-predicate]`` with the
name used; "The door to the west is closed."; "no action adds at"; "You can't move north"
for the exit made up; the never-reachable goal atom; the forgotten room or object class in a
never-reachable goal). Feedback about anything else leaves it in place, and the loop's retry
limit decides. A mistake that would change nothing in this environment's files (ALFWorld's
domain has no ``(atlocation ?to)`` effect of the household's shape) is not made at all, and
environments leave out kinds their worlds cannot show (TextWorld's coin games have no doors).
Mistakes that cause no error yet (a missing precondition on a path without doors) stay until
they do.
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
TAKE_GUARD = "(and (atlocation ?r) (or (not (openable ?r)) (opened ?r))"
GO_EFFECT = "(and (not (atlocation ?from)) (atlocation ?to))"
#: the mistakes that edit the domain, per environment side by side: (the text of the right
#: domain, what the mistake writes in its place)
DOMAIN_EDITS = {
    "missing-precondition": {"coin-collector": (MOVE_GUARD, ""),
                             "household": (TAKE_GUARD, "(and (or (not (openable ?r)) "
                                                       "(opened ?r))")},
    "missing-effect": {"coin-collector": (MOVE_EFFECT, "(and (not (at ?from)) (visited ?to))"),
                       "household": (GO_EFFECT, "(not (atlocation ?from))")},
}


@dataclass
class Mistake:
    kind: str
    detail: str  # what was made up, dropped or misnamed (a name, a room, a direction)
    #: regular expressions (case-insensitive) the feedback must all match to identify it
    evidence: tuple[str, ...] = ()


class NoisyFormalizer(ObservationFormalizer):
    name = "noisy"

    def __init__(self, env_id: str = "coin-collector", rate: float = 0.3, seed: int = 0,
                 kinds: tuple[str, ...] = KINDS) -> None:
        super().__init__(env_id)
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown error kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must be a probability from 0 to 1, got {rate!r}")
        if env_id not in MISTAKES:
            raise ValueError(f"the noisy formalizer knows the mistakes of {', '.join(MISTAKES)}; "
                             f"{env_id!r} is not one of them")
        self.rate = rate
        self.rng = random.Random(seed)
        self.mistakes = MISTAKES[env_id]()
        self.kinds = tuple(k for k in kinds if k in self.mistakes.KINDS)
        self.active: Optional[Mistake] = None
        self.injected: list[str] = []
        self.repaired: list[str] = []
        #: the mistake in the files the last proposal returned (None: they are the reader's)
        self.last_mistake: Optional[Mistake] = None

    def propose(self, context: Context) -> Files:
        known = self.world(context)
        if context.kind in (INITIAL, UPDATE):
            if self.active is None and self.kinds and self.rng.random() < self.rate:
                chosen = self.mistakes.choose(self.rng.choice(self.kinds), known, self.rng)
                if chosen is not None and self._changes_files(chosen, known):
                    self.active = chosen
                    self.injected.append(chosen.kind)
        elif self.active is not None and identified(self.active, context.error or ""):
            self.repaired.append(self.active.kind)
            self.active = None
        domain, problem = self.domain, self.problem(known)
        if self.active is not None:
            domain, problem = self.mistakes.apply(self.active, domain, problem, known)
        self.last_mistake = self.active
        return Files(domain, problem)

    def _changes_files(self, mistake: Mistake, known) -> bool:
        """Whether making ``mistake`` changes the files at all (an inert one is not made)."""
        domain, problem = self.domain, self.problem(known)
        return self.mistakes.apply(mistake, domain, problem, known) != (domain, problem)


def identified(mistake: Mistake, feedback: str) -> bool:
    """Whether the feedback shows this mistake's symptom (what a careful reader acts on)."""
    return bool(mistake.evidence) and all(re.search(p, feedback, re.I)
                                          for p in mistake.evidence)


def _set_goal(problem: str, goal: str) -> str:
    return re.sub(r"\(:goal .*\)\)\s*$", f"(:goal {goal}))\n", problem, flags=re.S)


def _forget_last_paren(problem: str) -> str:
    return problem.rstrip()[:-1]


class Mistakes(ABC):
    """How one environment's files go wrong. Subclasses give ``ENV`` (their column of
    :data:`FIXED`: what the feedback must name, per kind, and its evidence),
    ``choose_in_world`` for the kinds that depend on what has been seen, and
    ``apply_in_model`` for the kinds that edit the model."""

    ENV: str = ""
    KINDS: tuple[str, ...] = KINDS

    def choose(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        if kind in ("hallucinated-fact", "forgotten-facts"):
            return self.choose_in_world(kind, known, rng)
        detail, evidence = FIXED[kind][self.ENV]
        return Mistake(kind, detail, evidence)

    def apply(self, mistake: Mistake, domain: str, problem: str, known) -> tuple[str, str]:
        if mistake.kind == "syntax":
            return domain, _forget_last_paren(problem)
        if mistake.kind == "undeclared":
            return domain, problem.replace("(:init ", f"(:init ({mistake.detail} {known.here}) ", 1)
        if mistake.kind in DOMAIN_EDITS:
            right, wrong = DOMAIN_EDITS[mistake.kind][self.ENV]
            return domain.replace(right, wrong), problem
        return self.apply_in_model(mistake, domain, problem, known)

    @abstractmethod
    def choose_in_world(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        """A hallucinated-fact or forgotten-facts mistake fitting what has been seen."""

    @abstractmethod
    def apply_in_model(self, mistake: Mistake, domain: str, problem: str,
                       known) -> tuple[str, str]:
        """The files with a mistake of the goal, a fact or the objects made (the domain's are
        :data:`DOMAIN_EDITS`)."""


SYNTAX_EVIDENCE = (r"error\[(unclosed|unexpected-close)-paren\]",)
NEVER = r"can never (be reached|hold)"
#: the kinds whose symptom is fixed, per environment side by side: (what the feedback must
#: name, the patterns of the feedback that show it). The others' depend on the world.
FIXED = {
    "syntax": {"coin-collector": ("syntax", SYNTAX_EVIDENCE),
               "household": ("syntax", SYNTAX_EVIDENCE)},
    "undeclared": {"coin-collector": ("door-closed", (r"error\[undeclared-predicate\]",
                                                      r"'door-closed'")),
                   "household": ("isopen", (r"error\[undeclared-predicate\]", r"'isopen'"))},
    "missing-precondition": {
        "coin-collector": ("closed", (r"the door to the \w+ is closed",)),
        "household": ("not at", (r"you are not at the [\w ]+; go to it first",))},
    "missing-effect": {
        "coin-collector": ("at", (r"no action adds at\b",)),
        "household": ("atlocation", (r"(no action adds atlocation\b|\(atlocation \w+\), "
                                     r"which is never reachable)",))},
    "impossible-goal": {
        "coin-collector": ("treasure_room", (r"\(at treasure_room\) can never be reached",)),
        "household": ("unicorn_1", (r"\(holds unicorn_1\) can never be reached",))},
}


class CoinMistakes(Mistakes):
    """PDDLego+'s mistakes as an LLM makes them in CoinCollector."""

    ENV = "coin-collector"
    #: what the environment answers to a move through a wall
    NO_EXIT = r"can't move {d}\b"

    def choose_in_world(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        if kind == "hallucinated-fact":
            free = [d for d in ("north", "south", "east", "west")
                    if (known.here, d) not in known.links]
            if not free:
                return None
            d = rng.choice(free)
            return Mistake(kind, f"move {d}|secret_room", (self.NO_EXIT.format(d=d),))
        rooms = sorted(r for r in known.visited if r != known.here)
        if not rooms:
            return None
        room = rng.choice(rooms)
        # its connections are gone: the explanation names it or a room it was linked to
        near = sorted({room} | {b for (a, _), b in known.links.items() if a == room and b}
                      | {a for (a, _), b in known.links.items() if b == room})
        # (a placeholder for an unexplored exit counts: unknown_west_of_kitchen names kitchen)
        return Mistake(kind, room, (NEVER, r"(?<![a-z0-9])(" + "|".join(map(re.escape, near))
                                    + r")(?![a-z0-9])"))

    def apply_in_model(self, mistake: Mistake, domain: str, problem: str,
                       known) -> tuple[str, str]:
        kind, detail = mistake.kind, mistake.detail
        if kind == "hallucinated-fact":
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




class HouseholdMistakes(Mistakes):
    """The same mistakes as an LLM makes them in the household."""

    ENV = "household"

    def choose_in_world(self, kind: str, known, rng: random.Random) -> Optional[Mistake]:
        if kind == "hallucinated-fact":
            places = sorted(r for r in known.looked if r in known.contents
                            and kind_of(r) != known.goal.receptacle)
            if not places:
                return None
            fake = f"{known.goal.target}_99"
            shown = fake.replace("_", " ")
            return Mistake(kind, f"{shown}|{fake}|{rng.choice(places)}",
                           (rf"(don't see any {shown}\b|{fake}\b.*{NEVER}|{NEVER}.*{fake}\b)",))
        places = sorted(r for r in known.contents if known.contents[r])
        needed = [r for r in places
                  if any(kind_of(o) == known.goal.target for o in known.contents[r])]
        if not places:
            return None
        place = rng.choice(needed or places)
        # the goal that cannot hold names the receptacle or the class of what it held
        held = sorted({kind_of(o) for o in known.contents[place]})
        names = "|".join(re.escape(n) for n in [place, *held])
        return Mistake(kind, place, (NEVER, rf"\b({names})\b"))

    def apply_in_model(self, mistake: Mistake, domain: str, problem: str,
                       known) -> tuple[str, str]:
        kind, detail = mistake.kind, mistake.detail
        if kind == "hallucinated-fact":
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


class TextWorldMistakes(CoinMistakes):
    """CoinCollector's mistakes in TextWorld's coin games: no doors there, so no door
    mistakes, and TextWorld's own answer to a move through a wall."""

    KINDS = tuple(k for k in KINDS if k != "missing-precondition")
    NO_EXIT = r"you can't go that way"


MISTAKES = {"coin-collector": CoinMistakes, "household": HouseholdMistakes,
            "alfworld": HouseholdMistakes, "textworld": TextWorldMistakes}
