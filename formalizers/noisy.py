"""The noisy formalizer: the observation formalizer plus seeded errors from PDDLego+'s taxonomy.

It stands in for an imperfect LLM when none is reachable, so the refine loops can be tested
and measured. When it writes files for a new step (initial or update), it makes one mistake
with probability ``rate``, drawn from the paper's error analysis:

* ``syntax``: a parenthesis slip (the problem file does not parse);
* ``undeclared``: a predicate used but never declared (``door-closed``);
* ``missing-precondition``: ``move`` forgets that a closed door blocks the way;
* ``missing-effect``: ``move`` forgets to add ``(at ?to)``;
* ``hallucinated-fact``: an exit that was never observed;
* ``impossible-goal``: a goal on a room that was never seen;
* ``forgotten-facts``: the connections of a visited room are dropped.

A mistake is repaired only when the feedback identifies it, as a good LLM would: the
diagnostic or the environment's message must name what is wrong (the undeclared name, the
closed door, the missing exit, the unreachable atom). Otherwise the same mistake is made
again, and the loop's retry limit decides. Mistakes that cause no error (a missing precondition
on a path without doors) stay until they do.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Optional

from .answer import Files
from .base import INITIAL, UPDATE, Context
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
        self.active: Optional[Mistake] = None
        self.injected: list[str] = []
        self.repaired: list[str] = []

    def propose(self, context: Context) -> Files:
        known = self.world(context)
        if context.kind in (INITIAL, UPDATE):
            if self.active is None and self.rng.random() < self.rate:
                self.active = self._choose(known)
                if self.active is not None:
                    self.injected.append(self.active.kind)
        elif self.active is not None and self._identified(self.active, context.error or ""):
            self.repaired.append(self.active.kind)
            self.active = None
        domain, problem = self.domain, self.problem(known)
        if self.active is not None:
            domain, problem = self._apply(self.active, domain, problem, known)
        return Files(domain, problem)

    # ------------------------------------------------------------------ making mistakes

    def _choose(self, known) -> Optional[Mistake]:
        kind = self.rng.choice(self.kinds)
        if kind == "hallucinated-fact":
            free = [d for d in ("north", "south", "east", "west")
                    if (known.here, d) not in known.links]
            if not free:
                return None
            return Mistake(kind, self.rng.choice(free))
        if kind == "forgotten-facts":
            rooms = sorted(r for r in known.visited if r != known.here)
            if not rooms:
                return None
            return Mistake(kind, self.rng.choice(rooms))
        detail = {"syntax": "syntax", "undeclared": "door-closed",
                  "missing-precondition": "closed", "missing-effect": "(at ",
                  "impossible-goal": "treasure_room"}[kind]
        return Mistake(kind, detail)

    def _apply(self, mistake: Mistake, domain: str, problem: str, known) -> tuple[str, str]:
        kind, detail = mistake.kind, mistake.detail
        if kind == "syntax":
            problem = problem.rstrip()[:-1]  # the last ')' forgotten
        elif kind == "undeclared":
            problem = problem.replace("(:init ", f"(:init (door-closed {known.here}) ", 1)
        elif kind == "missing-precondition":
            domain = domain.replace(MOVE_GUARD, "")
        elif kind == "missing-effect":
            domain = domain.replace(MOVE_EFFECT, "(and (not (at ?from)) (visited ?to))")
        elif kind == "hallucinated-fact":
            problem = problem.replace("(:init ", f"(:init (connected {known.here} secret_room "
                                                 f"{detail}) ", 1)
            problem = problem.replace(" - room ", " secret_room - room ", 1)
            problem = re.sub(r"\(:goal .*\)\)\s*$", "(:goal (at secret_room)))\n", problem)
        elif kind == "impossible-goal":
            problem = problem.replace(" - room ", " treasure_room - room ", 1)
            problem = re.sub(r"\(:goal .*\)\)\s*$", "(:goal (at treasure_room)))\n", problem)
        elif kind == "forgotten-facts":
            problem = re.sub(rf"\(connected {detail} \S+ \w+\)|\(connected \S+ {detail} \w+\)"
                             rf"|\(has-door {detail} \S+ \w+\)|\(has-door \S+ {detail} \w+\)"
                             rf"|\(door-open {detail} \S+ \w+\)|\(door-open \S+ {detail} \w+\)",
                             "", problem)
        return domain, problem

    def _identified(self, mistake: Mistake, feedback: str) -> bool:
        """Whether the feedback names the mistake (what a careful reader would act on)."""
        text = feedback.lower()
        if mistake.kind == "syntax":
            return "error[" in text and ("paren" in text or "unbalanced" in text
                                         or "unclosed" in text or "expected" in text
                                         or "end of" in text)
        if mistake.kind == "hallucinated-fact":
            return f"move {mistake.detail}" in text or "secret_room" in text
        if mistake.kind == "forgotten-facts":
            return mistake.detail in text or "unreachable" in text or "never" in text
        return mistake.detail.lower() in text
