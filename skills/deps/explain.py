"""Explainers: why a goal failed, in Listing 1's words ("Because mining cobblestone needs to
use the tool wooden_pickaxe, but my inventory does not have wooden_pickaxe. So I need to craft
wooden_pickaxe first.").

:class:`SymbolicExplainer` is exact: the world's first false precondition of the failed goal's
recipe (missing tool, too few of a material, the wrong kind of recipe, an unknown object), and,
when Fast Downward finds that the task cannot be finished from the current inventory at all,
the world's reason (:meth:`~pddlkit.envs.craft.CraftWorld.no_plan`: an object no recipe makes,
else ``why_no_plan``'s first sentence). The recipe table comes first because ``why_no_plan`` on
the level-grounded model follows one binding of the count levels, which can name a level bound
rather than the missing recipe.

:class:`LLMExplainer` is seed 003's Listing 1 prompt (App. C.3) sent to an LLM; its answer's
first line is the explanation. Both return plain text: the re-planner reads
only what the explanation says.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Protocol

from pddlkit.envs.craft import CraftFailure, inventory_text
from pddlkit.llm.prompts import PromptFile

from .goals import Goal

_GERUND = {"mine": "mining", "craft": "crafting", "smelt": "smelting", "collect": "collecting",
           "place": "placing", "make": "making"}


class Explainer(Protocol):
    name: str

    def explain(self, goal: Goal, failure: Optional[CraftFailure], world: Any) -> str: ...


class SymbolicExplainer:
    """The first false precondition, from the world model (no LLM call)."""

    name = "symbolic"

    def explain(self, goal: Goal, failure: Optional[CraftFailure], world: Any) -> str:
        if failure is None:
            return "Because the goal did not finish."
        verb = f"{_GERUND.get(goal.kind, goal.kind)} {goal.item}"
        _how = world.how
        if failure.code in ("missing-tool", "no-station"):
            text = (f"Because {verb} needs to use the tool {failure.missing}, but my inventory "
                    f"does not have {failure.missing}. So I need to {_how(failure.missing)} "
                    f"first.")
        elif failure.code == "destroyed":
            text = (f"Because {verb} needs a {failure.missing} nearby, but the "
                    f"{failure.missing} I placed was destroyed. So I need to "
                    f"{_how(failure.missing)} again.")
        elif failure.code == "too-few":
            text = (f"Because {verb} needs to have {failure.need} {failure.missing} in "
                    f"inventory, but my inventory has {failure.have} {failure.missing}. So I "
                    f"need to {_how(failure.missing)} first.")
        elif failure.code == "unstated-tool":
            text = (f"Because {verb} needs to use the tool {failure.missing}, but the plan does "
                    f"not use {failure.missing}.")
        elif failure.code == "understated":
            text = (f"Because {verb} needs to have {failure.need} {failure.missing} in "
                    f"inventory for each {failure.recipe.count} {goal.item}, but the plan gives "
                    f"less {failure.missing}.")
        else:
            text = f"Because {failure.message}."
        reason = world.no_plan() if failure.code in ("missing-tool", "too-few") and \
            hasattr(world, "no_plan") else None
        if reason:
            text += " Also, " + reason
        return text


class LLMExplainer:
    """Listing 1 (App. C.3) sent to ``llm``."""

    name = "llm"

    def __init__(self, llm, template: Optional[str] = None) -> None:
        self.llm = llm
        # a template of the caller's, else the world's game's (pddlkit.llm.prompts)
        self.fixed = PromptFile(template, "the explainer template given") if template else None

    def prompt(self, goal: Goal, inventory: Mapping[str, int], game: str = "Minecraft") -> str:
        from .prompts import explainer_prompt

        held = inventory_text(inventory)
        template = self.fixed or explainer_prompt(game)
        return template.fill(action=goal.call, inventory="null" if held == "nothing" else held)

    def explain(self, goal: Goal, failure: Optional[CraftFailure], world: Any) -> str:
        game = getattr(world, "game", "Minecraft")
        answer = self.llm.complete([{"role": "user",
                                     "content": self.prompt(goal, world.inventory, game)}],
                                   stop=["###"]).text.strip()
        return (answer.splitlines() or ["Because the action failed."])[0].strip()
