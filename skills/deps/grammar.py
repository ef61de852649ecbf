"""The grammar of DEPS's plans: the planner's code-like answer (App. G) with each goal line one
of ``mine`` / ``craft`` / ``smelt`` over the world's item names, so that under it
(``--constrained``) no line is unreadable and no item is invented.

The answer's shape is the demonstrations': an opening sentence, ``def obtain_N_item(inventory
= {...}):``, goal lines each with its ``# step k: ...`` comment, and ``return "item"``. The
comment is free words, bounded (80 characters); materials per recipe are at most four; a plan
has at most ``max_steps`` lines. Counts are 1 to 99. What the grammar does not decide is
whether the recipes are right: that is the world's (and the explainer's) business.
"""

from __future__ import annotations

from functools import lru_cache

from pddlkit.llm.grammar import Grammar
from pddlkit.llm.lark_subset import choice as _choice


@lru_cache(maxsize=16)
def plan_grammar(items: tuple[str, ...], max_steps: int = 16) -> Grammar:
    """Plans over ``items`` (the world's item names), 1 to ``max_steps`` goal lines."""
    if not items:
        raise ValueError("plan_grammar needs the world's item names")
    lines = [
        'start: " The code for obtaining " count " " item " is as follows:\\n" header '
        f'step ~ 1..{max_steps} "return \\"" item "\\""',
        'header: "def obtain_" count "_" item "(inventory = {" counts? "}):\\n"',
        'step: goal "; # step " count ": " WORDS "\\n"',
        "goal: \"mine({'\" item \"':\" count \"}, \" tool \")\""
        "\n  | \"craft({'\" item \"':\" count \"}, {\" counts \"}, \" tool \")\""
        "\n  | \"smelt({'\" item \"':\" count \"}, {\" counts \"}, \" tool \")\"",
        "counts: \"'\" item \"':\" count (\", '\" item \"':\" count) ~ 0..3",
        "tool: \"null\" | \"'\" item \"'\"",
        f"item: {_choice(items)}",
        r"count: /[1-9][0-9]?/",
        r"WORDS: /[a-zA-Z0-9_,' ]{1,80}/",
    ]
    return Grammar("\n".join(lines) + "\n", "goal plan")
