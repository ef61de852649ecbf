"""DEPS's code-like goals: parse a plan the LLM wrote, and write goals back in its format.

A goal line is ``mine({'log':3}, null); # step 1: mine 3 log without tool``, ``craft({'planks':4},
{'log':1}, null);`` or ``smelt({'iron_ingot':1}, {'iron_ore':1}, 'furnace');`` (App. G), or
Prompt 1's keyword form ``mine(obj={"log":3}, tool=None)``. The object dict gives the goal's
count: the count the inventory must hold when the goal is done (MC-Planner's success detector).
Materials and tool are what the planner believes the recipe needs; the world uses its own
recipe, so a wrong belief shows up as a failure, not as a parse error.

Lines that are not goals (``def ...:``, ``return ...``, prose) are skipped. A line that calls
mine/craft/smelt but cannot be read becomes a :class:`PlanLineError` (line number, text, what is
wrong, how to write it): the loop feeds these back to the LLM and never crashes on them. The
PDF's curly quotes are read as ASCII quotes (and a name missing its opening quote, as the PDF
prints ``stick':1``, gets it back), ``null``/``None`` as no tool.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Optional

KINDS = ("mine", "craft", "smelt")
EXAMPLE = "craft({'planks':4}, {'log':1}, null);"
_CALL = re.compile(r"^\s*(?:\d+[.:)]\s*)?(mine|craft|smelt)\s*\((.*)\)\s*;?\s*$")
#: a name with a closing quote and no opening one (``stick':1``, as the paper prints it)
_OPENING = re.compile(r"(^|[{,(\s])([A-Za-z_]\w*)'(?=\s*[:,)}])")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


@dataclass(frozen=True)
class Goal:
    kind: str
    item: str
    count: int
    materials: tuple[tuple[str, int], ...] = ()
    tool: Optional[str] = None
    text: str = ""            # the line as the LLM wrote it (without its comment)

    def line(self, step: int) -> str:
        """The goal in App. G's format, with its ``# step k:`` comment."""
        mats = "{" + ", ".join(f"'{m}':{n}" for m, n in self.materials) + "}"
        tool = f"'{self.tool}'" if self.tool else "null"
        if self.kind == "mine":
            call = f"mine({{'{self.item}':{self.count}}}, {tool});"
        else:
            call = f"{self.kind}({{'{self.item}':{self.count}}}, {mats}, {tool});"
        words = f"{self.kind} {self.count} {self.item}"
        if self.materials:
            words += " from " + " and ".join(f"{n} {m}" for m, n in self.materials)
        if self.tool:
            words += (f", on {self.tool}" if self.kind != "mine" else f" with {self.tool}")
        elif self.kind == "mine":
            words += " without tool"
        return f"{call} # step {step}: {words}"

    @property
    def call(self) -> str:
        return self.text or self.line(0).split(" #")[0]


@dataclass(frozen=True)
class PlanLineError:
    line: int
    text: str
    message: str
    fix: str = f"write each goal as {EXAMPLE}"

    def __str__(self) -> str:
        return f"line {self.line} \"{self.text}\": {self.message}; {self.fix}"


@dataclass
class ParsedPlan:
    goals: list[Goal] = field(default_factory=list)
    errors: list[PlanLineError] = field(default_factory=list)


def parse_plan(text: str) -> ParsedPlan:
    """The goals of a plan the LLM wrote, and an error per goal line it could not read."""
    plan = ParsedPlan()
    for number, raw in enumerate(text.translate(_QUOTES).splitlines(), 1):
        line = _OPENING.sub(r"\1'\2'", raw.split("#", 1)[0].strip())
        m = _CALL.match(line)
        if not m:
            if re.match(r"^\s*(mine|craft|smelt)\b", line):
                plan.errors.append(PlanLineError(number, line, "the call is not closed"))
            continue
        try:
            plan.goals.append(_goal(m.group(1), m.group(2), line))
        except ValueError as exc:
            plan.errors.append(PlanLineError(number, line, str(exc)))
    if not plan.goals and not plan.errors:
        plan.errors.append(PlanLineError(0, text.strip()[:80], "the answer has no goal line"))
    return plan


def _literal(node: ast.AST):
    if isinstance(node, ast.Name) and node.id in ("null", "None", "none"):
        return None
    if isinstance(node, ast.Name):
        return node.id   # an unquoted name: crafting_table
    return ast.literal_eval(node)


def _goal(kind: str, args: str, line: str) -> Goal:
    try:
        call = ast.parse(f"f({args})", mode="eval").body
        values = [_literal(a) for a in call.args]
        named = {k.arg: _literal(k.value) for k in call.keywords}
    except (SyntaxError, ValueError) as exc:
        raise ValueError(f"its arguments are not a dict and names ({exc.__class__.__name__})")
    obj = named.pop("obj", values[0] if values else None)
    if kind == "mine":
        materials = named.pop("materials", None)
        tool = named.pop("tool", values[1] if len(values) > 1 else None)
    else:
        materials = named.pop("materials", values[1] if len(values) > 1 else None)
        tool = named.pop("tool", values[2] if len(values) > 2 else None)
    if isinstance(obj, str):
        obj = {obj: 1}
    if not isinstance(obj, dict) or len(obj) != 1:
        raise ValueError("the first argument must be a dict of one object and its count, "
                         "such as {'planks':4}")
    (item, count), = obj.items()
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"the count of {item!r} must be a whole number of at least 1")
    if materials is not None and not (isinstance(materials, dict) and all(
            isinstance(v, int) for v in materials.values())):
        raise ValueError("the materials must be a dict of names and counts, such as {'log':1}")
    if tool is not None and not isinstance(tool, str):
        raise ValueError("the tool must be a name in quotes or null")
    return Goal(kind, str(item), count, tuple((str(k), v) for k, v in (materials or {}).items()),
                tool, line)


def program(item: str, goals: list[Goal], inventory: dict) -> str:
    """A (re)plan as DEPS writes it: a function whose default argument is the inventory."""
    inv = "{" + ", ".join(f"'{k}':{v}" for k, v in inventory.items() if v) + "}"
    lines = [f"def obtain_1_{item}(inventory={inv}):"]
    lines += [g.line(i) for i, g in enumerate(goals, 1)]
    lines.append(f'return "{item}"')
    return "\n".join(lines)
