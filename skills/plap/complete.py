"""Completing a skill plan with the skills model (issue 48, PLAP's ``complete_plan`` option;
off by default: the paper drops an impossible line and the plan runs without it).

Why: measured with Qwen2.5-Coder 1.5B against RandomBiasedAI, PLAP's plans ask for units the
player does not have (``[Attack Enemy](ranged, base)`` when there is no ranged unit: "you have
no ranged", 20 of 81 dropped lines), and the next plan asks again; no game was won. The skills
model (``domains/microrts/skills.pddl``, :mod:`.check`) knows what a line needs, so what the
plan left out can be computed instead of asked for again, as DEPS's ``complete_plan`` does
with the crafting world's recipes (:mod:`pddlkit.skills.deps.complete`).

How: the lines are run ahead in the LLM's order on the skills model, from the state read from
the game. A line the model accepts is kept and its effects applied. Before a line it refuses,
a breadth-first search over the prerequisite lines (producing a unit of each type, building a
barracks on the free cell beside the own base that :mod:`.progress` offers) finds the
shortest sequence, at most :data:`DEPTH` lines, after which the model accepts it; those lines
are inserted before it, marked as the skills model's, and the line is kept. A line no such
sequence makes possible (too few resources: harvesting has no effect in the model; a cell
that is not free; a type that cannot do it) is dropped with the model's reason, as without
the option.

Where the paper is silent: in the run ahead, a unit or building a line before produces counts
as owned by the lines after it (the executor starts such a line when the unit appears, as
:mod:`.check` already counts a unit in production as owned); so ``[Build Building]
(barracks, ...)`` then ``[Produce Unit](light, ...)`` is one plan, not a dropped line. An
attack on an enemy type that is absent now waits for one, as in the check. The lines
inserted and the lines left out go into the next prompt (:class:`.planner.LLMPlanner`), so
the next plan can learn from them.

Measured without a model (``benchmarks/plap_complete.py``: the plan Qwen2.5-Coder 1.5B wrote
at every step, answered again by a scripted LLM, 5 seeds against RandomBiasedAI): completion
inserts the barracks and ranged units that plan lacks (7 lines in 600-cycle games, 11 in
2000-cycle ones), but the plan still wins no game (600 cycles: 0/4/1
W/D/L either way; 2000 cycles: 0/0/5 without, 0/1/4 with). The plan's economy (one harvester)
and its lack of defence are strategy, which completing prerequisites does not supply.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from .check import ACTIONS, battlefield, domain, try_line, waits
from .plan import DIRECTIONS, SkillLine

#: prerequisite lines inserted before one line at most
DEPTH = 3
PRODUCED = ("produce-unit", "build-building")


@dataclass
class PlanCompletion:
    """``lines`` to run (the LLM's kept, the model's inserted), ``inserted`` ((position in
    ``lines``, the line, the LLM's line it is for)), ``dropped`` ((line, the model's reason))
    and ``pending`` ((line, why it waits))."""

    lines: list[SkillLine] = field(default_factory=list)
    inserted: list[tuple[int, SkillLine, str]] = field(default_factory=list)
    dropped: list[tuple[SkillLine, str]] = field(default_factory=list)
    pending: list[tuple[SkillLine, str]] = field(default_factory=list)


def _prerequisites(state: dict, player: int, lines: list[SkillLine]) -> list[SkillLine]:
    """The lines the search may insert: a unit of each type, a barracks beside the base (on
    a cell no line of the plan names: a barracks the LLM places there later keeps its cell)."""
    from .progress import _beside_base

    options = [SkillLine("Produce Unit", (kind, DIRECTIONS[0]),
                         f"[Produce Unit]({kind}, {DIRECTIONS[0]})", 0)
               for kind in ("worker", "light", "heavy", "ranged")]
    named = {p for line in lines for p in line.params if isinstance(p, tuple)}
    cell = _beside_base(state, player, avoid=named)
    if cell is not None:
        options.append(SkillLine("Build Building", ("barracks", cell),
                                 f"[Build Building](barracks, ({cell[0]}, {cell[1]}))", 0))
    return options


class _RunAhead:
    """The skills model's world for this moment, with what a line makes counted for the lines
    after it."""

    def __init__(self, state: dict, player: int, costs: dict, lines: list[SkillLine]) -> None:
        from pddlkit.semantics.world import World

        self.world = World(domain(), battlefield(state, player, costs, lines))

    def apply(self, current, line: SkillLine):
        """(the successor, []) or (None, the model's reasons): :func:`.check.try_line`, with a
        unit or building the line makes counted as owned."""
        successor, reasons = try_line(self.world, current, line)
        if successor is not None and ACTIONS[line.skill] in PRODUCED:
            key = ("own", line.params[0])
            successor = successor.with_changes((), (), {key: (successor.value(key) or 0) + 1})
        return successor, reasons

    def shortest(self, current, line: SkillLine, options: list[SkillLine]
                 ) -> Optional[list[tuple[SkillLine, object]]]:
        """The shortest sequence of ``options`` (each with the state after it) after which
        ``line`` applies or waits; None when none of :data:`DEPTH` lines or fewer does."""
        frontier = deque([(current, [])])
        seen = {current}
        while frontier:
            state, path = frontier.popleft()
            if len(path) == DEPTH:
                continue
            for option in options:
                after, _why = self.apply(state, option)
                if after is None or after in seen:
                    continue
                steps = path + [(option, after)]
                then, why = self.apply(after, line)
                if then is not None or waits(line, why):
                    return steps
                seen.add(after)
                frontier.append((after, steps))
        return None


def complete_lines(state: dict, player: int, costs: dict, lines: list[SkillLine]
                   ) -> PlanCompletion:
    """``lines`` completed on the skills model (see the module docstring)."""
    options = _prerequisites(state, player, lines)
    ahead = _RunAhead(state, player, costs, [*lines, *options])
    current = ahead.world.initial_state
    done = PlanCompletion()
    for line in lines:
        after, reasons = ahead.apply(current, line)
        if after is None and not waits(line, reasons):
            steps = ahead.shortest(current, line, options)
            if steps is None:
                done.dropped.append((line, "; ".join(reasons)))
                continue
            for option, current in steps:
                done.inserted.append((len(done.lines), option, line.text))
                done.lines.append(option)
            after, reasons = ahead.apply(current, line)
        if after is None:   # an attack whose enemy type is absent: it waits, as in the check
            done.pending.append((line, waits(line, reasons)))
        else:
            current = after
        done.lines.append(line)
    return done
