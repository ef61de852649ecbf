"""PLAP's skill plans: ``[Skill Name](params)`` lines between ``START OF SKILL_PLAN`` and ``END
OF SKILL_PLAN`` (seed 002, Fig. 3; PLAP's code used ``START OF TASK`` / ``END OF TASK``, also
read here).

Skills and parameters (Table I): ``[Deploy Unit](unit_type, (x, y))``, ``[Harvest Mineral](x,
y)``, ``[Build Building](building_type, (x, y))``, ``[Produce Unit](unit_type, direction)``,
``[Attack Enemy](unit_type, enemy_type)``; unit types worker, light, heavy, ranged; buildings
base, barracks (``barrack`` is read as barracks); directions north, east, south, west (or 0-3).
Coordinates are (x, y), as the battlefield text says.

A line that cannot be read (unknown skill, wrong parameters, no brackets) is dropped, as in the
paper, but with its reason kept in :attr:`ParsedSkillPlan.dropped`, so it can be shown to the
LLM and counted. An answer without the start marker is read whole (PLAP's code raised).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

SKILLS = ("Deploy Unit", "Harvest Mineral", "Build Building", "Produce Unit", "Attack Enemy")
UNIT_TYPES = ("worker", "light", "heavy", "ranged")
BUILDINGS = ("base", "barracks")
ENEMY_TYPES = UNIT_TYPES + BUILDINGS
DIRECTIONS = ("north", "east", "south", "west")
_LINE = re.compile(r"^\s*(?:\d+[.)]\s*)?\[([^\]]+)\]\s*\((.*)\)\s*$")
_START = re.compile(r"START OF (?:SKILL_PLAN|TASK)")
_END = re.compile(r"END OF (?:SKILL_PLAN|TASK)")


@dataclass(frozen=True)
class SkillLine:
    skill: str                 # one of SKILLS
    params: tuple              # normalized: ("worker", (1, 2)) / ((0, 0),) / ("worker", "north")
    text: str
    line: int

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class DroppedLine:
    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line} \"{self.text}\": {self.reason}"


@dataclass
class ParsedSkillPlan:
    lines: list[SkillLine] = field(default_factory=list)
    dropped: list[DroppedLine] = field(default_factory=list)


def _body(text: str) -> tuple[list[str], int]:
    start = _START.search(text)
    if not start:
        return text.splitlines(), 1
    rest = text[start.end():]
    end = _END.search(rest)
    body = rest[:end.start()] if end else rest
    first = text[:start.end()].count("\n") + 1
    return body.splitlines(), first


def _literal(args: str):
    quoted = re.sub(r"(?<!['\"\w])([A-Za-z_]\w*)(?!['\"\w])", r"'\1'", args)
    try:
        return ast.literal_eval(f"({quoted},)")
    except (ValueError, SyntaxError):
        raise ValueError("the parameters do not parse; write names and numbers, such as "
                         "(worker, (1, 2))") from None


def _type(value, allowed, what: str) -> str:
    name = str(value).strip().lower()
    if name == "barrack":
        name = "barracks"
    if name not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")
    return name


def _location(value) -> tuple[int, int]:
    if (isinstance(value, tuple) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        return value
    raise ValueError(f"a location must be (x, y) with whole numbers, got {value!r}")


def normalize(skill: str, values: tuple) -> tuple:
    if skill == "Harvest Mineral":
        loc = values[0] if len(values) == 1 else values
        return (_location(tuple(loc) if isinstance(loc, (list, tuple)) else loc),)
    if len(values) != 2:
        raise ValueError(f"[{skill}] takes 2 parameters, got {len(values)}")
    a, b = values
    if skill == "Deploy Unit":
        return (_type(a, UNIT_TYPES, "the unit type"), _location(b))
    if skill == "Build Building":
        return (_type(a, BUILDINGS, "the building type"), _location(b))
    if skill == "Produce Unit":
        if isinstance(b, int) and 0 <= b < 4:
            b = DIRECTIONS[b]
        return (_type(a, UNIT_TYPES, "the unit type"), _type(b, DIRECTIONS, "the direction"))
    return (_type(a, UNIT_TYPES, "the unit type"), _type(b, ENEMY_TYPES, "the enemy type"))


def parse_skill_plan(text: str) -> ParsedSkillPlan:
    plan = ParsedSkillPlan()
    body, first = _body(text)
    for offset, raw in enumerate(body):
        line = raw.strip()
        if not line:
            continue
        number = first + offset
        m = _LINE.match(line)
        if not m:
            plan.dropped.append(DroppedLine(number, line, "not a [Skill](parameters) line"))
            continue
        name = " ".join(m.group(1).split()).title()
        if name not in SKILLS:
            plan.dropped.append(DroppedLine(number, line, f"unknown skill [{m.group(1)}]; the "
                                            f"skills are {', '.join(SKILLS)}"))
            continue
        try:
            values = _literal(m.group(2))
            params = normalize(name, tuple(values))
        except ValueError as exc:
            plan.dropped.append(DroppedLine(number, line, str(exc)))
            continue
        plan.lines.append(SkillLine(name, params, line, number))
    return plan


def format_line(skill: str, params: tuple) -> str:
    def show(v):
        return f"({v[0]}, {v[1]})" if isinstance(v, tuple) else str(v)

    if skill == "Harvest Mineral":
        return f"[{skill}]{show(params[0])}"
    return f"[{skill}]({', '.join(show(p) for p in params)})"


def plan_text(lines: list[tuple[str, tuple]]) -> str:
    return "START OF SKILL_PLAN\n" + "\n".join(format_line(s, p) for s, p in lines) + \
        "\nEND OF SKILL_PLAN"
