"""What pddlkit knows of ALFWorld-style household tasks, in one place: the task types and the
PDDLego+ difficulty groups, ALFWorld's names for them, the task sentences (written and read),
which receptacles open and which appliance does what.

Why one module: the native household (:mod:`.household`), the PDDLego+ reader that turns its
observations into PDDL (:mod:`pddlkit.formalizers.household_reader`) and CoPiC's household
world (:mod:`pddlkit.programs.copic.household_world`) each kept a copy, and the copies had
drifted: CoPiC's sentence patterns had no "sliced" task, so the household's ``slice_and_place``
sentences could not be read there, and one list of openable receptacles had "box" (ALFWorld
has boxes; the native household has none). ``tests/test_household_tasks.py`` reads every
sentence the environment writes with the one reader.

Receptacles that open are ALFWorld's (with ``box``): the native household simply has none of
those it lacks. A task sentence is read in the household's wording ("put a hot apple in
fridge.") and ALFWorld's other ones ("heat some potato and put it in countertop.", "find two
cd and put them in shelf.", "look at bowl under the desklamp.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

#: the task types, by the CoPiC paper's method names (slice_and_place is PDDLego+'s "slice+")
TASK_TYPES = ("pick_and_place", "pick_two_obj_and_place", "look_at_obj_in_light",
              "pick_clean_then_place", "pick_heat_then_place", "pick_cool_then_place",
              "slice_and_place")
#: ALFWorld's six (no slicing), the ones CoPiC evolves a program for
ALFWORLD_TASK_TYPES = TASK_TYPES[:6]
#: PDDLego+'s difficulty groups
DIFFICULTIES = {
    "basic&use": ("pick_and_place", "pick_two_obj_and_place", "look_at_obj_in_light"),
    "clean": ("pick_clean_then_place",), "cool": ("pick_cool_then_place",),
    "heat": ("pick_heat_then_place",), "slice+": ("slice_and_place",),
}
#: ALFWorld's task-type names, full and short, -> the method names above
ALFWORLD_NAMES = {
    "pick_and_place_simple": "pick_and_place", "pick": "pick_and_place",
    "pick_two_obj_and_place": "pick_two_obj_and_place", "pick_two": "pick_two_obj_and_place",
    "look_at_obj_in_light": "look_at_obj_in_light", "look": "look_at_obj_in_light",
    "pick_clean_then_place_in_recep": "pick_clean_then_place", "clean": "pick_clean_then_place",
    "pick_heat_then_place_in_recep": "pick_heat_then_place", "heat": "pick_heat_then_place",
    "pick_cool_then_place_in_recep": "pick_cool_then_place", "cool": "pick_cool_then_place",
}

#: receptacle classes that open and close (ALFWorld's; the household has all but box)
OPENABLE = frozenset({"cabinet", "drawer", "fridge", "microwave", "safe", "box"})
#: receptacle class -> what it does to an object: heater, cooler, washer
ROLES = {"microwave": "heater", "fridge": "cooler", "sinkbasin": "washer"}
#: the state word of a task sentence -> the treatment, its task type and its appliance
STATES = {"hot": ("heat", "pick_heat_then_place", "microwave"),
          "cool": ("cool", "pick_cool_then_place", "fridge"),
          "clean": ("clean", "pick_clean_then_place", "sinkbasin"),
          "sliced": ("slice", "slice_and_place", None)}
#: where an object put "in" goes besides the openable ones
IN_NOT_ON = frozenset({"sinkbasin", "garbagecan"})


def preposition(receptacle: str) -> str:
    """"in" a fridge, a sink or a garbage can; "on" a countertop."""
    return "in" if receptacle in OPENABLE or receptacle in IN_NOT_ON else "on"


def task_sentence(task_type: str, obj: str, receptacle: str) -> str:
    """The household's task sentence: ``put a hot apple in fridge.``"""
    prep = preposition(receptacle)
    return {
        "pick_and_place": f"put some {obj} {prep} {receptacle}.",
        "pick_two_obj_and_place": f"put two {obj} {prep} {receptacle}.",
        "look_at_obj_in_light": f"examine the {obj} with the desklamp.",
        "pick_clean_then_place": f"put a clean {obj} {prep} {receptacle}.",
        "pick_heat_then_place": f"put a hot {obj} {prep} {receptacle}.",
        "pick_cool_then_place": f"put a cool {obj} {prep} {receptacle}.",
        "slice_and_place": f"put a sliced {obj} {prep} {receptacle}.",
    }[task_type]


@dataclass(frozen=True)
class Task:
    """What a task sentence asks: its type, the object class, the receptacle class (the lamp
    for a look task) and the state the object must be in (hot, cool, clean, sliced)."""

    task_type: str
    target: str
    receptacle: Optional[str] = None
    state: Optional[str] = None


_ARTICLE = r"(?:a |an |some |the )?"
_PLACE = r"(?:in|on|in/on) (?:the |a )?([a-z]+)"
_TREAT = {"clean": "clean", "heat": "hot", "cool": "cool", "slice": "sliced"}
_PATTERNS = (
    (re.compile(rf"(?:examine|look at) {_ARTICLE}([a-z]+) (?:with|under) (?:the |a )?"
                r"((?:desk|floor)lamp)"), "look"),
    (re.compile(rf"(clean|heat|cool|slice) {_ARTICLE}([a-z]+) and put it {_PLACE}"), "treat"),
    (re.compile(rf"(?:find|put) two ([a-z]+) (?:and put them )?{_PLACE}"), "two"),
    (re.compile(rf"put {_ARTICLE}(?:(hot|cool|clean|sliced) )?([a-z]+) {_PLACE}"), "put"),
)


def read_task_sentence(sentence: str) -> Task:
    """The :class:`Task` of a task sentence, in the household's wording or ALFWorld's
    (anything before "Your task is to:" is skipped); a ValueError naming an example when it
    is none of them."""
    text = " ".join(sentence.lower().split()).split("your task is to:")[-1].strip()
    for pattern, kind in _PATTERNS:
        m = pattern.search(text)
        if not m:
            continue
        if kind == "look":
            return Task("look_at_obj_in_light", m.group(1), m.group(2))
        if kind == "treat":
            state = _TREAT[m.group(1)]
            return Task(STATES[state][1], m.group(2), m.group(3), state)
        if kind == "two":
            return Task("pick_two_obj_and_place", m.group(1), m.group(2))
        state = m.group(1)
        return Task(STATES[state][1] if state else "pick_and_place", m.group(2), m.group(3),
                    state)
    raise ValueError(f"not a household task sentence: {sentence!r} (expected e.g. 'put a "
                     f"clean mug in cabinet.')")
