"""The observation formalizer: PDDL written from the observation text alone, no LLM.

It reads exactly what an LLM is shown (the commands and the observations in the episode's
memory), never the simulator's state, and writes the reference domain with a problem file
holding every fact observed so far and a sub-goal chosen as the paper's detailed prompt asks:
the nearest place not visited yet, or the coin once it has been seen. A closed door hides the
room behind it, so that room gets a placeholder name until it is entered. Being rebuilt from
the whole memory each time, its problem file never forgets a fact.

The household has its own reader (:mod:`.household_reader`); :class:`ObservationFormalizer`
picks the reader for the environment. Used for tests, demos, and as the reference an LLM
formalizer is measured against.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from pddlkit.domains import path as domain_path

from .answer import AnswerError, Files
from .base import Context

OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
_HERE = re.compile(r"You are in the ([\w ]+?)\.")
_DOORWAY = re.compile(r"To the (\w+) you see the ([\w ]+?)\.")
_CLOSED = re.compile(r"To the (\w+) you see a closed ([\w ]+?)\.")
_OPEN = re.compile(r"To the (\w+) you see an open ([\w ]+?), leading to the ([\w ]+?)\.")
_REVEAL = re.compile(r"You open the ([\w ]+?), revealing the ([\w ]+?)\.")


def pddl(name: str) -> str:
    return "_".join(name.lower().split())


@dataclass
class CoinMap:
    """What the observations say about the house."""

    here: Optional[str] = None
    visited: set = field(default_factory=set)
    links: dict = field(default_factory=dict)  # (room, dir) -> room or None (behind a door)
    doors: dict = field(default_factory=dict)  # (room, dir) -> open?
    coin: Optional[str] = None
    holding: bool = False

    def read(self, action: str, observation: str) -> None:
        before = self.here
        m = _HERE.search(observation)
        if m:
            self.here = pddl(m.group(1))
            self.visited.add(self.here)
            if action.startswith("move ") and before and before != self.here:
                d = action.split()[-1]
                self._link(before, d, self.here)
            for d, room in _DOORWAY.findall(observation):
                self._link(self.here, d.lower(), pddl(room))
            for d, _kind in _CLOSED.findall(observation):
                d = d.lower()
                self.doors[(self.here, d)] = False
                self.links.setdefault((self.here, d), None)
            for d, _kind, room in _OPEN.findall(observation):
                d = d.lower()
                self.doors[(self.here, d)] = True
                self._link(self.here, d, pddl(room))
            if "You see a coin." in observation:
                self.coin = self.here
        r = _REVEAL.search(observation)
        if r and action.startswith("open door to ") and self.here:
            d = action.split()[-1]
            self.doors[(self.here, d)] = True
            self._link(self.here, d, pddl(r.group(2)))
        if action == "take coin" and observation.startswith("You take the coin"):
            self.holding, self.coin = True, None

    def _link(self, a: str, d: str, b: str) -> None:
        self.links[(a, d)] = b
        self.links.setdefault((b, OPPOSITE[d]), a)
        if self.links[(b, OPPOSITE[d])] is None:
            self.links[(b, OPPOSITE[d])] = a
        if (a, d) in self.doors:
            self.doors.setdefault((b, OPPOSITE[d]), self.doors[(a, d)])
            if self.doors[(a, d)]:
                self.doors[(b, OPPOSITE[d])] = True

    def target(self) -> Optional[str]:
        """The nearest room not visited (placeholders included), by known connections."""
        queue = deque([self.here])
        seen = {self.here}
        while queue:
            room = queue.popleft()
            for d in ("north", "south", "east", "west"):
                if (room, d) not in self.links:
                    continue
                nxt = self.links[(room, d)] or placeholder(room, d)
                if nxt in seen:
                    continue
                if nxt not in self.visited:
                    return nxt
                seen.add(nxt)
                queue.append(nxt)
        return None


def placeholder(room: str, direction: str) -> str:
    return f"unknown_{direction}_of_{room}"


class CoinReader:
    """Writes CoinCollector's domain and a problem file from a :class:`CoinMap`."""

    env_id = "coin-collector"

    def __init__(self) -> None:
        self.domain = domain_path("coin-collector/domain.pddl").read_text()

    def read(self, task: str, history, failures=()) -> CoinMap:
        """``failures`` (``Memory.failures``) teach nothing here: CoinCollector's and TextWorld's
        refusals restate what the observations already show."""
        known = CoinMap()
        for action, observation in history:
            known.read(action, observation)
        return known

    def problem(self, known: CoinMap) -> str:
        if known.here is None:
            raise AnswerError("no observation says where the agent is")
        rooms = set(known.visited)
        init = [f"(at {known.here})"] + [f"(visited {r})" for r in sorted(known.visited)]
        for (a, d), b in sorted(known.links.items(), key=lambda kv: kv[0]):
            b = b or placeholder(a, d)
            rooms |= {a, b}
            init.append(f"(connected {a} {b} {d})")
            if (a, d) in known.doors:
                init.append(f"(has-door {a} {b} {d})")
                if known.doors[(a, d)]:
                    init.append(f"(door-open {a} {b} {d})")
        if known.holding:
            init.append("(holding coin)")
        elif known.coin:
            init.append(f"(in coin {known.coin})")
        if known.holding or known.coin:
            goal = "(holding coin)"
        else:
            target = known.target()
            goal = f"(at {target})" if target else "(holding coin)"
            if target:
                rooms.add(target)
        return (f"(define (problem explore) (:domain coin-collector)\n"
                f"  (:objects {' '.join(sorted(rooms))} - room north south east west - direction"
                f" coin - item)\n"
                f"  (:init {' '.join(dict.fromkeys(init))})\n"
                f"  (:goal {goal}))\n")


_TW_ROOM = re.compile(r"^-= (.+?) =-\s*$", re.M)
_TW_DIRECTION = re.compile(r"\b(north|south|east|west)\b")


class TextWorldCoinReader(CoinReader):
    """TextWorld's coin games (``textworld`` with game="coin") in CoinCollector's terms.

    TextWorld words its rooms freely ("-= Studio =-", "You don't like doors? Why not try
    going west, that entranceway is unguarded."), so the reader takes the room from the
    header and an exit from every direction the description names; there are no doors. The
    domain and problem are CoinCollector's, and the environment maps ``move`` to "go {dir}".
    """

    env_id = "textworld"

    def read(self, task: str, history, failures=()) -> CoinMap:
        known = CoinMap()
        for action, observation in history:
            m = _TW_ROOM.search(observation)
            if m:
                before = known.here
                known.here = pddl(m.group(1).replace("-", " "))
                known.visited.add(known.here)
                if action.startswith("go ") and before and before != known.here:
                    known._link(before, action.split()[-1], known.here)
                description = observation[m.end():]
                for d in sorted(set(_TW_DIRECTION.findall(description.lower()))):
                    known.links.setdefault((known.here, d), None)
                if "There is a coin" in description:
                    known.coin = known.here
            if action == "take coin" and "You pick up the coin" in observation:
                known.holding, known.coin = True, None
        return known


def observation_readers() -> dict:
    from .household_reader import ALFWorldReader, HouseholdReader

    return {"coin-collector": CoinReader, "household": HouseholdReader, "alfworld": ALFWorldReader,
            "textworld": TextWorldCoinReader}


class ObservationFormalizer:
    """Offline formalizer for CoinCollector and the household (``env_id``)."""

    name = "observation"

    def __init__(self, env_id: str = "coin-collector") -> None:
        readers = observation_readers()
        if env_id not in readers:
            raise ValueError(f"the observation formalizer reads the observations of "
                             f"{', '.join(readers)}; {env_id!r} is not supported")
        self.env_id = env_id
        self.reader = readers[env_id]()
        self.domain = self.reader.domain

    def world(self, context: Context):
        memory = context.memory
        return self.reader.read(memory.task, memory.history, memory.failures)

    def propose(self, context: Context) -> Files:
        return Files(self.domain, self.problem(self.world(context)))

    def problem(self, known) -> str:
        return self.reader.problem(known)
