"""The observation formalizer's reader for the ALFWorld-style household.

It reads the same text an LLM is shown: the opening listing of receptacles, "You arrive at
the cabinet 1. The cabinet 1 is closed.", "You open the fridge 1. ... In it, you see an apple
1.", the outcome of each take, move, heat, cool, clean, slice and use, and the task sentence.
What it adds is the common sense an LLM brings and the observations do not state: which
receptacle classes open (cabinet, drawer, fridge, microwave, safe), that a microwave heats, a
fridge cools and a sinkbasin washes, that knives cut and a desklamp is a lamp, and that the
object class the task names can take the state the task asks for ("put a hot apple ..." means
apples heat).

The problem file's goal is the task itself once every object it needs has been seen;
until then it is a sub-goal that looks somewhere new: open the closed receptacle the agent
faces, else visit (and open, if it opens) the first receptacle not yet looked into.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pddlkit.domains import path as domain_path
from pddlkit.envs.household_tasks import OPENABLE, ROLES, read_task_sentence

from .answer import AnswerError

START = "middle_of_room"
OPENS = OPENABLE   # the household's knowledge, one table (pddlkit.envs.household_tasks)
CUTS = frozenset({"knife", "butterknife"})
LAMPS = frozenset({"desklamp", "floorlamp"})
STATE_WORDS = {"hot": ("heatable", "ishot"), "cool": ("coolable", "iscool"),
               "clean": ("cleanable", "isclean"), "sliced": ("sliceable", "issliced")}

_ITEM = re.compile(r"\ban? ([a-z]+ \d+)")
# The household says "You arrive at the fridge 1."; ALFWorld "You arrive at fridge 1."
_ARRIVE = re.compile(r"(?:You arrive at|You are facing) (?:the )?([a-z]+ \d+)\.")
_THING = r"([a-z]+ \d+)"
#: the sentences that change what is known, in the order they are read (a receptacle said
#: closed and then open is open), each with whether every one counts or the first, and read
#: by the ``HouseholdMap`` method named after it with the sentence's groups
SENTENCES = tuple((name, re.compile(pattern.replace("THING", _THING)), every) for name,
                  pattern, every in (
    ("closed", r"The THING is closed\.", True),
    ("open_in", r"The THING is open\. In it, you see (.*?)\.(?:\s|$)", True),
    ("on", r"On the THING, you see (.*?)\.(?:\s|$)", True),
    ("opened", r"You open the THING\.", False),
    ("close", r"You close the THING\.", False),
    ("pick", r"You pick up the THING from the THING\.", False),
    ("move", r"You move the THING to the THING\.", False),
    ("treat", r"You (heat|cool|clean) the THING using the THING\.", False),
    ("slice", r"You slice the THING with the THING\.", False),
    ("examine", r"You examine the THING in its light\.", False)))
_TREATED = {"heat": ("ishot", "iscool"), "cool": ("iscool", "ishot"), "clean": ("isclean", None)}


def pddl(shown: str) -> str:
    return "_".join(shown.split())


def kind_of(name: str) -> str:
    """'cabinet_2' -> 'cabinet'."""
    return name.rsplit("_", 1)[0]


@dataclass
class Goal:
    """What the task sentence asks for."""

    kind: str  # place / two / look
    target: str  # object class
    receptacle: Optional[str] = None  # receptacle class
    state: Optional[str] = None  # hot / cool / clean / sliced


def read_task(task: str) -> Goal:
    """The goal of a task sentence, read by the household's one reader
    (:func:`pddlkit.envs.household_tasks.read_task_sentence`); an AnswerError when it is
    none of the known wordings."""
    try:
        t = read_task_sentence(task)
    except ValueError:
        raise AnswerError(f"cannot read the task {task!r}") from None
    kind = {"look_at_obj_in_light": "look", "pick_two_obj_and_place": "two"}.get(
        t.task_type, "place")
    return Goal(kind, t.target, None if kind == "look" else t.receptacle, t.state)


@dataclass
class HouseholdMap:
    """What the observations say about the room."""

    goal: Goal
    receptacles: list = field(default_factory=list)  # in the order first listed
    here: str = START
    looked: set = field(default_factory=set)  # receptacles whose contents were seen
    visited: set = field(default_factory=set)
    closed: set = field(default_factory=set)
    opened: set = field(default_factory=set)
    contents: dict = field(default_factory=dict)  # receptacle -> set of objects
    holding: Optional[str] = None
    states: set = field(default_factory=set)  # (predicate, object)
    spots: set = field(default_factory=set)  # frozensets of receptacles at one spot (ALFWorld)

    def read(self, action: str, observation: str) -> None:
        if "Looking quickly around you" in observation:
            for shown in _ITEM.findall(observation.split("Your task is")[0]):
                if pddl(shown) not in self.receptacles:
                    self.receptacles.append(pddl(shown))
        m = _ARRIVE.search(observation)
        if m:
            self.here = pddl(m.group(1))
            self.visited.add(self.here)
        elif "You are in the middle of a room" in observation:
            self.here = START
        for name, pattern, every in SENTENCES:
            for found in pattern.finditer(observation):
                getattr(self, "_" + name)(*found.groups())
                if not every:
                    break

    def _closed(self, shown: str) -> None:
        self.closed.add(pddl(shown))
        self.opened.discard(pddl(shown))

    def _open_in(self, shown: str, items: str) -> None:
        r = pddl(shown)
        self.opened.add(r)
        self.closed.discard(r)
        self._see(r, items)

    def _on(self, shown: str, items: str) -> None:
        self._see(pddl(shown), items)

    def _opened(self, shown: str) -> None:
        self.opened.add(pddl(shown))

    def _close(self, shown: str) -> None:
        self.opened.discard(pddl(shown))
        self.closed.add(pddl(shown))

    def _pick(self, thing: str, place: str) -> None:
        self.contents.setdefault(pddl(place), set()).discard(pddl(thing))
        self.holding = pddl(thing)

    def _move(self, thing: str, place: str) -> None:
        self.contents.setdefault(pddl(place), set()).add(pddl(thing))
        self.holding = None

    def _treat(self, how: str, thing: str, _tool: str) -> None:
        add, remove = _TREATED[how]
        self.states.add((add, pddl(thing)))
        self.states.discard((remove, pddl(thing)))

    def _slice(self, thing: str, _tool: str) -> None:
        self.states.add(("issliced", pddl(thing)))

    def _examine(self, thing: str) -> None:
        self.states.add(("examined", pddl(thing)))

    def _see(self, receptacle: str, items: str) -> None:
        self.looked.add(receptacle)
        self.contents[receptacle] = {pddl(s) for s in _ITEM.findall(items)}

    def objects(self) -> list[str]:
        seen = set().union(*self.contents.values()) if self.contents else set()
        if self.holding:
            seen.add(self.holding)
        return sorted(seen)

    def ready(self) -> bool:
        """Whether every object the task needs has been seen."""
        objs = self.objects()
        have = sum(1 for o in objs if kind_of(o) == self.goal.target)
        if have < (2 if self.goal.kind == "two" else 1):
            return False
        if self.goal.state == "sliced" and not any(kind_of(o) in CUTS for o in objs):
            return False
        if self.goal.kind == "look" and not any(kind_of(o) in LAMPS for o in objs):
            return False
        return True

    def next_look(self) -> Optional[str]:
        """The goal atom of the next look-around, or None when every place has been seen."""
        if self.here in self.closed and self.here not in self.looked:
            return f"(opened {self.here})"
        for r in self.receptacles:
            if r in self.looked:
                continue
            if kind_of(r) in OPENS or r in self.closed:
                return f"(opened {r})"
            if r not in self.visited:
                return f"(atlocation {r})"
        return None


class HouseholdReader:
    """Writes the household domain and a problem file from a :class:`HouseholdMap`."""

    env_id = "household"

    def __init__(self) -> None:
        self.domain = domain_path("household/domain.pddl").read_text()

    def read(self, task: str, history, failures=()) -> HouseholdMap:
        """Replay the observations; each failure (``Memory.failures``) is read at the point of
        the history where it happened, since what it teaches may depend on where the agent was."""
        known = HouseholdMap(read_task(task))
        pending = sorted(failures, key=lambda f: f[0])
        for i, item in enumerate(list(history) + [None]):
            while pending and pending[0][0] <= i:
                _, done, command, message = pending.pop(0)
                self._learn(known, done, command, message)
            if item is not None:
                known.read(*item)
        return known

    def _learn(self, known: HouseholdMap, done, command: str, message: str) -> None:
        """What a rolled-back failure teaches: nothing in the native household, whose failure
        messages only restate what the observations already show."""

    def problem(self, known: HouseholdMap) -> str:
        if not known.receptacles:
            raise AnswerError("no observation lists the receptacles in the room")
        g = known.goal
        recs = [START] + known.receptacles
        objs = known.objects()
        init = [f"(atlocation {known.here})",
                f"(holds {known.holding})" if known.holding else "(handempty)"]
        for r in known.receptacles:
            init.append(f"(receptacletype {r} {kind_of(r)})")
            if kind_of(r) in OPENS or r in known.closed or r in known.opened:
                init.append(f"(openable {r})")
            if r in known.opened:
                init.append(f"(opened {r})")
            if kind_of(r) in ROLES:
                init.append(f"({ROLES[kind_of(r)]} {r})")
        for r in sorted(known.contents):
            init += [f"(inreceptacle {o} {r})" for o in sorted(known.contents[r])]
        for o in objs:
            init.append(f"(objecttype {o} {kind_of(o)})")
            if kind_of(o) in CUTS:
                init.append(f"(sharp {o})")
            if kind_of(o) in LAMPS:
                init.append(f"(lamp {o})")
            if g.state and kind_of(o) == g.target:
                init.append(f"({STATE_WORDS[g.state][0]} {o})")
        init += [f"({p} {o})" for p, o in sorted(known.states)]
        otypes = sorted({kind_of(o) for o in objs} | {g.target})
        rtypes = sorted({kind_of(r) for r in known.receptacles} | (
            {g.receptacle} if g.receptacle else set()))
        goal = task_goal(known)
        return (f"(define (problem household-task) (:domain household)\n"
                f"  (:objects {' '.join(recs)} - receptacle\n"
                + (f"            {' '.join(objs)} - obj\n" if objs else "")
                + f"            {' '.join(otypes)} - otype {' '.join(rtypes)} - rtype)\n"
                f"  (:init {' '.join(init)})\n  (:goal {goal}))\n")


def task_goal(known: HouseholdMap) -> str:
    """The problem's goal: the task once its objects have been seen, else the next look."""
    look = None if known.ready() else known.next_look()
    if look is not None:
        return look
    g = known.goal
    if g.kind == "look":
        return f"(exists (?o - obj) (and (objecttype ?o {g.target}) (examined ?o)))"
    if g.kind == "two":
        return (f"(exists (?o - obj ?p - obj ?r - receptacle) (and (objecttype ?o {g.target}) "
                f"(objecttype ?p {g.target}) (not (= ?o ?p)) (receptacletype ?r "
                f"{g.receptacle}) (inreceptacle ?o ?r) (inreceptacle ?p ?r)))")
    state = f"({STATE_WORDS[g.state][1]} ?o) " if g.state else ""
    return (f"(exists (?o - obj ?r - receptacle) (and (objecttype ?o {g.target}) {state}"
            f"(receptacletype ?r {g.receptacle}) (inreceptacle ?o ?r)))")


# ALFWorld's gotolocation: arriving at a receptacle puts the agent at every receptacle that
# shares its spot, and leaving leaves them all (see ALFWorldReader).
_SPOT_PREDICATE = "    (samespot ?a - receptacle ?b - receptacle)\n"
_SPOT_GOTO = """  (:action gotolocation
    :parameters (?from - receptacle ?to - receptacle)
    :precondition (and (atlocation ?from) (not (= ?from ?to)) (not (atlocation ?to)))
    :effect (and (forall (?r - receptacle) (when (atlocation ?r) (not (atlocation ?r))))
                 (atlocation ?to)
                 (forall (?r - receptacle) (when (samespot ?to ?r) (atlocation ?r)))))
"""


class ALFWorldReader(HouseholdReader):
    """The household reader on real ALFWorld games (:mod:`pddlkit.envs.alfworld_adapter`).

    ALFWorld words things a little differently (handled by the shared patterns), and it has one
    rule the native household lacks: receptacles can share a spot (drawer 1 above drawer 2), and
    "go to drawer 2" from drawer 1 answers "Nothing happens.". That failure is the only sign of
    it, and the loop rolls the command back, so the reader learns it from
    ``Memory.failures``: the receptacle the agent stood at and the one it tried to reach share
    a spot. Its domain says so (``samespot``): arriving at one is arriving at both. A receptacle
    that shares a spot and cannot be opened never shows its contents to these actions (ALFWorld
    would need "examine"), so it counts as looked into.
    """

    env_id = "alfworld"

    def __init__(self) -> None:
        super().__init__()
        start = self.domain.index("  (:action gotolocation")
        end = self.domain.index("  (:action", start + 1)
        self.domain = (self.domain[:start] + _SPOT_GOTO + "\n" + self.domain[end:]).replace(
            "    (examined ?o - obj))", "    (examined ?o - obj)\n" + _SPOT_PREDICATE + "  )", 1)

    def _learn(self, known: HouseholdMap, done, command: str, message: str) -> None:
        if not (command.startswith("go to ") and message.strip() == "Nothing happens."):
            return
        where = known.here
        for step in done:
            if step.startswith("go to "):
                where = pddl(step[len("go to "):])
        target = pddl(command[len("go to "):])
        if where == START or where == target:
            return
        known.spots.add(frozenset((where, target)))
        if kind_of(target) not in OPENS and target not in known.closed:
            known.looked.add(target)
            known.visited.add(target)

    def problem(self, known: HouseholdMap) -> str:
        text = super().problem(known)
        facts = []
        for pair in sorted(sorted(p) for p in known.spots):
            a, b = pair
            facts += [f"(samespot {a} {b})", f"(samespot {b} {a})"]
            if known.here in pair:
                facts.append(f"(atlocation {b if known.here == a else a})")
        return text.replace("(:init ", "(:init " + " ".join(facts) + " ", 1) if facts else text
