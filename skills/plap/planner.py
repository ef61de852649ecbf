"""PLAP's LLM planner: the prompt of seed 002's Fig. 3 from the template files in
``skills/prompts/plap/`` (instruction, game manual, available skills, examples, tips,
battlefield situation), in the four variants of the paper: ``zs`` (zero-shot), ``zs-tip``,
``fs`` (two examples) and ``fs-tip``; one stateless user message per planning step, temperature
0 and 256 tokens by default (§V-B). The answer is returned as text; :func:`.game.play_game`
parses and checks it, so a broken answer costs its lines, never the game.

Feedback (pddlkit's addition, on by default; ``feedback=False`` is the paper's stateless
planner): the lines dropped from the previous answer and why are added to the next prompt,
after the battlefield, as "## Feedback on your last plan".

Progress (``progress=True``, issue 48, off by default; :mod:`.progress`): before each plan the
game reports what the last plan's lines did (finished, running, or not started with the skills
model's reason) and a digest of the battlefield with the lines the skills model accepts now;
they go into the prompt as "## What your last plan did" and "## Battlefield digest".

Completion (the game's ``complete``, issue 48, off by default; :mod:`.complete`): the lines
the skills model inserted into the last plan go into the next prompt as "## Lines the skills
model added to your last plan".

The plan's length under the grammar (``constrained``, issue 76): at most :func:`line_cap`
lines, never fewer than the longest plan in the prompt's examples (11) or the only plan
measured to win against RandomBiasedAI (a 12-line worker rush, ``benchmarks/plap_complete.py``),
and the prompt says the cap. The cap was 8: 8 of 30 fs-tip plans ended exactly there, and the
prompt's own rush example could not be written. Without the grammar nothing bounds a plan and
the prompt is the paper's.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "plap"
VARIANTS = ("zs", "zs-tip", "fs", "fs-tip")
SIDES = ("BLUE", "RED")


#: the fewest lines a plan may have under the grammar: the winning rush's 12, with room for
#: the four attack lines the tips ask for again
MIN_LINE_CAP = 16


@lru_cache(maxsize=1)
def line_cap() -> int:
    """The most lines a plan may have under the grammar: :data:`MIN_LINE_CAP`, or the longest
    plan in the prompt's examples if that is longer (read once)."""
    examples = (PROMPTS / "examples.txt").read_text(encoding="utf-8")
    longest, count, inside = 0, 0, False
    for line in examples.splitlines():
        if "START OF SKILL_PLAN" in line:
            inside, count = True, 0
        elif "END OF SKILL_PLAN" in line:
            inside, longest = False, max(longest, count)
        elif inside and line.strip():
            count += 1
    return max(MIN_LINE_CAP, longest)


def _read(name: str, **values: Any) -> str:
    """A PLAP prompt file, filled (:mod:`pddlkit.llm.prompts`: ``$name`` placeholders)."""
    from pddlkit.llm.prompts import read_prompt

    return read_prompt(PROMPTS, name).fill(**values).rstrip("\n")


def unit_lines(table: list) -> str:
    rows = []
    for t in table:
        if t["name"] == "Resource":
            continue
        text = f"- {t['name']}: {t['hp']} HP, costs {t['cost']} resources, and takes " \
               f"{t['produce_time']} time units to build."
        if t["name"] in ("Worker", "Light", "Heavy", "Ranged"):
            text += f" Deals {t['max_damage']} damage at range {t['range']}."
        rows.append(text)
    return "\n".join(rows)


def build_prompt(observation: str, units_table: list, player: int = 0,
                 variant: str = "zs") -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    parts = [_read("instruction.txt"),
             _read("manual.txt", units=unit_lines(units_table)),
             _read("skills.txt")]
    if variant.startswith("fs"):
        parts.append(_read("examples.txt"))
    if variant.endswith("tip"):
        parts.append(_read("tips.txt"))
    parts.append(_read("situation.txt", observation=observation, side=SIDES[player]))
    return "\n\n".join(parts) + "\n"


class LLMPlanner:
    """``LLMPlanner(load_llm("openai:gpt-4o-mini"), variant="fs-tip")``."""

    def __init__(self, llm: Any, units_table: list, variant: str = "zs",
                 temperature: float = 0.0, max_tokens: int = 256, feedback: bool = True,
                 constrained: bool = False, progress: bool = False) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
        self.llm, self.units_table, self.variant = llm, units_table, variant
        self.temperature, self.max_tokens = temperature, max_tokens
        self.name = f"{getattr(llm, 'model', 'llm')}:{variant}"
        self.use_feedback = feedback
        self.dropped: list = []
        #: decode under the skill-plan grammar (:mod:`.grammar`); each call's mode is kept
        self.constrained = constrained
        self.modes: list[str] = []
        #: issue 48: what the last plan's lines did and a digest of the battlefield from the
        #: skills model go into the next prompt (:mod:`.progress`); the game calls
        #: :meth:`report_progress` before each plan when this is on
        self.progress = progress
        self.report: tuple[list, str] = ([], "")
        #: issue 48: the lines the skills model inserted into the last plan (the game calls
        #: :meth:`completed` when it completes plans)
        self.inserted: list = []

    def report_progress(self, lines: list, digest: str) -> None:
        """(line, status) of the last plan's lines and the battlefield's digest."""
        self.report = (list(lines), digest)
    def completed(self, inserted: list) -> None:
        """(line, the line it was inserted for) the skills model put into the last plan; told
        in the next prompt like the dropped lines, so not with ``feedback=False`` (the paper's
        stateless planner)."""
        self.inserted = list(inserted) if self.use_feedback else []

    def feedback(self, dropped: list) -> None:
        """(line, reason) of the lines dropped from the last answer."""
        self.dropped = list(dropped) if self.use_feedback else []

    def plan(self, observation: str, state: dict, player: int) -> str:
        prompt = build_prompt(observation, self.units_table, player, self.variant)
        lines, digest = self.report if self.progress else ([], "")
        if lines:
            prompt += ("\n## What your last plan did\n"
                       + "\n".join(f"- {line}: {status}" for line, status in lines) + "\n")
        if digest:
            prompt += f"\n## Battlefield digest (from the skills model)\n{digest}\n"
        if self.dropped:
            prompt += ("\n## Feedback on your last plan\nThese lines were dropped and did not "
                       "run:\n" + "\n".join(f"- {line}: {why}" for line, why in self.dropped)
                       + "\n")
        if self.inserted:
            prompt += ("\n## Lines the skills model added to your last plan\nYour plan needed "
                       "these first; they were put before the lines they are for:\n"
                       + "\n".join(f"- {line} (for {wanted})" for line, wanted in self.inserted)
                       + "\n")
        if not self.constrained:
            return self.llm.complete([{"role": "user", "content": prompt}],
                                     temperature=self.temperature,
                                     max_tokens=self.max_tokens).text
        from .grammar import skill_plan_grammar

        cap = line_cap()
        prompt += (f"\nWrite at most {cap} lines between START OF SKILL_PLAN and END OF "
                   "SKILL_PLAN.\n")
        grammar = skill_plan_grammar(int(state.get("width", 16)), int(state.get("height", 16)),
                                     cap)
        done = self.llm.complete([{"role": "user", "content": prompt}],
                                 temperature=self.temperature, max_tokens=self.max_tokens,
                                 constraint=grammar)
        self.modes.append(done.constraint_mode)
        return done.text
