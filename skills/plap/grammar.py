"""The grammar of PLAP's answers: a skill plan between its markers, each line one of the five
skills with its parameters' shapes (Table I), coordinates on the map in play.

Under it (``--constrained``) a model cannot write a line the parser drops: a local 1.5B
model's 126 lines in 8 plans were all dropped without it (105 not ``[Skill](parameters)``
lines at all). The plan's length is bounded (``max_lines``, 16 by default: the planner's
:func:`~.planner.line_cap`, at least the prompt's longest example and the 12-line rush that
wins) so decoding cannot ramble, and
the answer is the plan alone: the grammar leaves no room for reasoning before it, which the
paper's prompt does not ask for either.
"""

from __future__ import annotations

from functools import lru_cache

from pddlkit.llm.grammar import Grammar
from pddlkit.llm.lark_subset import choice as _choice

from .plan import BUILDINGS, DIRECTIONS, ENEMY_TYPES, UNIT_TYPES


@lru_cache(maxsize=32)
def skill_plan_grammar(width: int, height: int, max_lines: int = 16) -> Grammar:
    """Skill plans on a ``width`` x ``height`` map, 1 to ``max_lines`` lines."""
    lines = [
        f'start: "START OF SKILL_PLAN\\n" line ~ 1..{max_lines} "END OF SKILL_PLAN"',
        'line: skill "\\n"',
        'skill: "[Deploy Unit](" unit ", (" x ", " y "))"'
        '\n  | "[Harvest Mineral](" x ", " y ")"'
        '\n  | "[Build Building](" building ", (" x ", " y "))"'
        '\n  | "[Produce Unit](" unit ", " direction ")"'
        '\n  | "[Attack Enemy](" unit ", " enemy ")"',
        f"unit: {_choice(UNIT_TYPES)}",
        f"building: {_choice(BUILDINGS)}",
        f"enemy: {_choice(ENEMY_TYPES)}",
        f"direction: {_choice(DIRECTIONS)}",
        f"x: {_choice(str(i) for i in range(width))}",
        f"y: {_choice(str(i) for i in range(height))}",
    ]
    return Grammar("\n".join(lines) + "\n", "skill plan")
