"""The CoT baseline: the LLM answers every instance's actions itself, one call per instance,
for the cost comparison with IPP (one program, written once, for all instances).

GRASP uses the paper's CoT prompt, fixed to its Table 3 setting (8 directions, carry 2, cost
0.3, 20 actions), with the answer in ``<final_answer>[...]</final_answer>``; MiniGrid answers
in ``<actions>[...]</actions>``. An answer whose list cannot be read scores as an empty list
(its problem is recorded). The cost comparison prices both runs' tokens at one reference
model's list prices (:func:`cost_at`), since the offline stand-in costs nothing.
"""

from __future__ import annotations

import ast
import json
import re
import statistics
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from pddlkit.llm.errors import LLMError
from pddlkit.llm.usage import usage_since, usage_snapshot

from .tasks import ascii_grid, grid_rows, template


@dataclass
class CoTRun:
    scores: list[float]
    unreadable: int
    usage: dict = field(default_factory=dict)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else float("nan")


def read_actions(text: str, tag: str) -> list[str]:
    """The action list inside ``<tag>...</tag>`` (or the last [...] in the answer)."""
    m = re.search(rf"<{tag}>\s*(.*?)\s*</{tag}>", text or "", re.S)
    body = m.group(1) if m else (re.findall(r"\[[^\[\]]*\]", text or "") or [""])[-1]
    if not body.strip():
        raise ValueError(f"no <{tag}>[...]</{tag}> in the answer")
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(body)
            if isinstance(value, list):
                return [str(v) for v in value]
        except (ValueError, SyntaxError):
            pass
    return [w for w in re.split(r"[\s,\[\]'\"]+", body) if w]


def grasp_prompt(instance) -> str:
    return template("cot_grasp.txt").fill(grid=ascii_grid(instance.grid.cells),
                                            start=list(instance.grid.start))


def run_cot(task, instances: Sequence, llm: Any, temperature: float = 0.0,
            max_tokens: Optional[int] = 4000) -> CoTRun:
    """One call per instance; scored like the programs (see :mod:`.tasks`)."""
    from pddlkit.sandbox import CallResult

    ledger = getattr(llm, "ledger", None)
    before = usage_snapshot(ledger)
    scores, unreadable = [], 0
    for instance in instances:
        if task.name == "grasp":
            prompt, tag = grasp_prompt(instance), "final_answer"
        else:
            prompt = template("cot_minigrid.txt").fill(
                rules=task.rules(), grid=grid_rows(instance.grid),
                start_direction=instance.start_direction)
            tag = "actions"
        try:
            text = llm.complete([{"role": "user", "content": prompt}],
                                temperature=temperature, max_tokens=max_tokens).text
            actions = read_actions(text, tag)
        except (LLMError, ValueError):
            actions = []
            unreadable += 1
        scores.append(task.score(instance, CallResult(True, actions)).score)
    return CoTRun(scores, unreadable, usage_since(ledger, before).to_dict())


def cost_at(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """What these tokens cost at ``model``'s list prices (pddlkit's price table)."""
    from pddlkit.llm.usage import PriceTable

    return PriceTable.default().cost(model, prompt_tokens, completion_tokens)
