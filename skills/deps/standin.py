"""The offline stand-in for DEPS's LLMs: a planner that writes real plans from partial recipe
knowledge, and an explainer that explains from its own partial knowledge.

Knowledge. :class:`RecipeBelief` starts from the world's recipes and, per object, with
probability ``error_rate`` (drawn from ``seed``), holds one of the mistakes seen in seed 003's
App. H dialogue: it forgets a tool (``no-tool``: "diamond needs an iron_pickaxe"), a station
(``no-station``: "the furnace needs a crafting_table"), a material (``no-material``: "no
stick"), or believes too small an amount (``fewer``: "2 < 3 cobblestone"). The planner expands
the target recursively from the current inventory with what it believes and writes App. G's
code format, counts being what the inventory should hold after each goal and materials the
goal's totals ("craft 12 planks from 3 log").

Repair. The planner changes a belief only when an explanation in the dialogue names it, in
Listing 1's words: "<gerund> <item> needs to use the tool <tool>", "... needs to have <n>
<material> [and <m> <material>] in inventory", or "<item> cannot be <mined>: <kind> <n> <item>
from ..." (the symbolic explainer's wrong-kind sentence). A vague explanation changes nothing,
so the same failure comes back: that is what separates a precise explainer from a loose one.

The explainer answers Listing 1's prompt from its own belief (another seed): it names the first
precondition it believes missing from the inventory; when it believes nothing is missing it says
only that the action failed.

Off-template mode (``mistakes=OFF_TEMPLATE``, the spec ``standin:deps:off[:rate]``): mistakes
that Listing 1's sentences do not cover, as a real model makes them, so that the explainer rows
can fail: a material under a wrong name (``wrong-name``: "plank"), the wrong kind of recipe
(``wrong-kind``: mining planks), a material the recipe does not use (``extra-material``), and a
goal line that cannot be read (``unreadable``: the count written as a word). They are repaired
only from sentences that name them: the world's "did you mean 'planks'?", the symbolic
explainer's "planks cannot be mined: craft 4 planks from 1 log", and the descriptor's "I cannot
read the plan: ... <item> ...". An extra material is never named by anyone: it only costs
actions. The Listing 1 stand-in explainer names none of them, so with it those rows fail.

``StandinLLM`` answers both prompts (the planner's dialogue, the explainer's Listing 1) and is
a :class:`pddlkit.llm.ScriptedLLM`, so costs and transcripts go through the LLM layer as a
real model's would.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field, replace
from typing import Optional

from pddlkit.agents.standins import StandIn, rate
from pddlkit.envs.craft import Recipe, recipes

from .goals import Goal, program

MISTAKES = ("no-tool", "no-station", "no-material", "fewer")
OFF_TEMPLATE = ("wrong-name", "wrong-kind", "extra-material", "unreadable")

#: what ``--llm`` may name for these stand-ins (the rate is ``error_rate``), read by
#: :func:`pddlkit.agents.standins.parse_stand_in` on the command line and in the runner alike
STAND_INS = (StandIn("standin", rate, "standin:deps:0.3", default=0.3, form="RATE", mode="",
                     knows="stand-in (the true recipe table minus injected omissions)"),
             StandIn("standin-off", rate, "standin:deps:off:0.3", default=0.3, form="RATE",
                     mode="off",
                     knows="stand-in (the true recipe table with off-template mistakes)"))
STATIONS = ("crafting_table", "furnace", "table")
_INV = re.compile(r"My inventory now has (.*?)\.\s*$", re.M)


@dataclass
class RecipeBelief:
    """What a stand-in believes each object's recipe is."""

    seed: int = 0
    error_rate: float = 0.3
    table: Optional[list] = None                   # the true recipes (default: the craft world's)
    beliefs: dict = field(default_factory=dict)    # item -> Recipe (believed)
    mistakes: dict = field(default_factory=dict)   # item -> mistake name
    kinds: tuple = MISTAKES                        # the mistakes it may hold
    unreadable: set = field(default_factory=set)   # items whose goal line it writes unreadably

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.table = list(self.table if self.table is not None else recipes())
        for r in self.table:
            if r.item in self.beliefs:
                continue   # the first recipe of an object is the one it knows
            believed = r
            if rng.random() < self.error_rate:
                options = [m for m in self.kinds if self._applies(m, r)]
                if options:
                    mistake = rng.choice(options)
                    believed = self._apply(mistake, r)
                    self.mistakes[r.item] = mistake
                    if mistake == "unreadable":
                        self.unreadable.add(r.item)
            self.beliefs[r.item] = believed

    @staticmethod
    def _applies(mistake: str, r: Recipe) -> bool:
        return {"no-tool": bool(r.tool) and r.tool not in STATIONS,
                "no-station": r.tool in STATIONS,
                "no-material": len(r.materials) > 1,
                "fewer": any(n > 1 for _, n in r.materials),
                "wrong-name": bool(r.materials),
                "wrong-kind": r.kind == "craft",
                "extra-material": r.kind != "mine" and r.item != "stick",
                "unreadable": True}[mistake]

    @staticmethod
    def _apply(mistake: str, r: Recipe) -> Recipe:
        if mistake in ("no-tool", "no-station"):
            return replace(r, tool=None)
        if mistake == "wrong-name":
            (name, n), *rest = r.materials
            wrong = name[:-1] if name.endswith("s") else name + "s"
            return replace(r, materials=((wrong, n), *rest))
        if mistake == "wrong-kind":
            return replace(r, kind="mine", materials=(), tool=None)
        if mistake == "extra-material":
            return replace(r, materials=(*r.materials, ("stick", 1)))
        if mistake == "unreadable":
            return r
        if mistake == "no-material":
            return replace(r, materials=r.materials[:-1])
        mats = list(r.materials)
        i = next(k for k, (_, n) in enumerate(mats) if n > 1)
        mats[i] = (mats[i][0], max(1, mats[i][1] - 1 - (mats[i][1] > 4)))
        return replace(r, materials=tuple(mats))

    # -- repair from an explanation --------------------------------------------------------
    def learn(self, explanation: str) -> list[str]:
        """Correct the beliefs an explanation names; the items corrected."""
        fixed = []
        for m in re.finditer(r"(?:mining|crafting|smelting|collecting|placing|making) (\w+) needs "
                             r"to use the tool (\w+)",
                             explanation):
            item, tool = m.groups()
            if item in self.beliefs and self.beliefs[item].tool != tool:
                self.beliefs[item] = replace(self.beliefs[item], tool=tool)
                fixed.append(item)
        for m in re.finditer(r"(?:mining|crafting|smelting|collecting|placing|making) (\w+) needs "
                             r"to have ((?:\d+ \w+"
                             r"(?:,? and |, )?)+) in inventory", explanation):
            item, listed = m.groups()
            if item not in self.beliefs:
                continue
            mats = dict(self.beliefs[item].materials)
            for n, name in re.findall(r"(\d+) (\w+)", listed):
                mats[name] = int(n)
            new = replace(self.beliefs[item], materials=tuple(mats.items()))
            if new != self.beliefs[item]:
                self.beliefs[item] = new
                fixed.append(item)
        for m in re.finditer(r"no object '(\w+)' in this world; did you mean '(\w+)'",
                             explanation):
            wrong, right = m.groups()
            for item, r in list(self.beliefs.items()):
                if any(name == wrong for name, _ in r.materials):
                    self.beliefs[item] = replace(r, materials=tuple(
                        (right if name == wrong else name, n) for name, n in r.materials))
                    fixed.append(item)
        for m in re.finditer(r"I cannot read the plan: (.*)", explanation):
            for item in sorted(self.unreadable):
                if re.search(rf"\b{re.escape(item)}\b", m.group(1)):
                    self.unreadable.discard(item)
                    fixed.append(item)
        for m in re.finditer(r"(\w+) cannot be \w+: (mine|craft|smelt) (\d+) (\w+)", explanation):
            item, kind = m.group(1), m.group(2)
            true = [r for r in self.table if r.item == item and r.kind == kind]
            if true and self.beliefs.get(item) != true[0]:
                self.beliefs[item] = true[0]   # the sentence spells the whole recipe out
                fixed.append(item)
        return fixed

    # -- planning --------------------------------------------------------------------------
    def plan(self, target: str, inventory: dict) -> list[Goal]:
        sim = {k: v for k, v in inventory.items() if v > 0}
        goals: list[Goal] = []

        def obtain(item: str, n: int, depth: int = 0) -> None:
            if sim.get(item, 0) >= n or depth > 25:
                return
            r = self.beliefs.get(item)
            if r is None:
                return
            apps = math.ceil((n - sim.get(item, 0)) / r.count)
            if r.tool:
                obtain(r.tool, 1, depth + 1)
            for _ in range(3):   # making one material can use up another: top up again
                for material, k in r.materials:
                    obtain(material, apps * k, depth + 1)
                if all(sim.get(m, 0) >= apps * k for m, k in r.materials):
                    break
            for material, k in r.materials:
                sim[material] = sim.get(material, 0) - apps * k
            sim[item] = sim.get(item, 0) + apps * r.count
            goals.append(Goal(r.kind, item, sim[item],
                              tuple((m, apps * k) for m, k in r.materials), r.tool))

        obtain(target, 1)
        return goals

    def explain(self, kind: str, item: str, inventory: dict) -> str:
        r = self.beliefs.get(item)
        gerund = {"mine": "mining", "craft": "crafting", "smelt": "smelting"}.get(kind, kind)
        if r is not None and r.tool and inventory.get(r.tool, 0) < 1:
            return (f"Because {gerund} {item} needs to use the tool {r.tool}, but my inventory "
                    f"does not have {r.tool}. So I need to get {r.tool} first.")
        if r is not None:
            short = [(m, n) for m, n in r.materials if inventory.get(m, 0) < n]
            if short:
                listed = " and ".join(f"{n} {m}" for m, n in short)
                return (f"Because {gerund} {item} needs to have {listed} in inventory, but my "
                        f"inventory does not have enough. So I need to get them first.")
        return "Because the action failed. So I need to try again."


def _inventory(text: str) -> dict:
    found = _INV.findall(text)
    if not found or found[-1].strip() == "nothing":
        return {}
    out = {}
    for part in found[-1].split(","):
        n, _, name = part.strip().partition(" ")
        if n.isdigit():
            out[name] = int(n)
    return out


_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 8: "eight"}


class StandinDeps:
    """Answers the DEPS planner dialogue and the Listing 1 explainer prompt offline."""

    def __init__(self, seed: int = 0, error_rate: float = 0.3,
                 explainer_error_rate: Optional[float] = None, table: Optional[list] = None,
                 mistakes: tuple = MISTAKES) -> None:
        self.seed, self.error_rate, self.table = seed, error_rate, table
        self.kinds = tuple(mistakes)
        self.planner = RecipeBelief(seed, error_rate, table, kinds=self.kinds)
        rate = error_rate if explainer_error_rate is None else explainer_error_rate
        self.explainer = RecipeBelief(seed + 7919, rate, table)
        self.read = 0   # explainer lines of the dialogue already learned from

    def answer(self, messages: list[dict]) -> str:
        text = messages[-1]["content"]
        if text.startswith("Here are some actions that the agent fails"):
            return self._explain(text)
        return self._plan(text)

    def _explain(self, text: str) -> str:
        failed = re.findall(r"Failed Action: (mine|craft|smelt)\(\{'(\w+)'", text)
        inv_lines = re.findall(r"Current Inventory: (.*)", text)
        inventory = {}
        if inv_lines and inv_lines[-1].strip() not in ("null", "nothing"):
            for part in inv_lines[-1].split(","):
                n, _, name = part.strip().partition(" ")
                if n.isdigit():
                    inventory[name] = int(n)
        if not failed:
            return "Because the action failed. So I need to try again."
        kind, item = failed[-1]
        return self.explainer.explain(kind, item, inventory)

    def _plan(self, dialogue: str) -> str:
        session = dialogue.rsplit("==========", 1)[-1]
        explanations = re.findall(r"^(?:Explainer|Descriptor): (.*)$", session, re.M)
        if not explanations:   # a new task: what was learned in another dialogue is gone
            self.planner = RecipeBelief(self.seed, self.error_rate, self.table,
                                        kinds=self.kinds)
            self.read = 0
        for e in explanations[self.read:]:
            self.planner.learn(e)
        self.read = len(explanations)
        asked = re.findall(r'obtain 1 (\w+)', session)
        target = asked[-1] if asked else "planks"
        inventory = _inventory(session)
        goals = self.planner.plan(target, inventory)
        head = "The code for obtaining 1 {t} is as follows:" if not explanations else \
            "The code for crafting {t} is as bellows:"
        text = program(target, goals, inventory)
        for item in self.planner.unreadable:  # the count written as a word: a line that calls
            text = re.sub(rf"(\w+\(\{{'{re.escape(item)}':)(\d+)\}}",  # a goal, unreadably
                          lambda m: f"{m.group(1)} {_WORDS.get(int(m.group(2)), 'some')}}}", text)
        return head.format(t=target) + "\n" + text

    def llm(self, ledger=None):
        from pddlkit.llm import ScriptedLLM
        from pddlkit.llm.usage import UsageLedger

        return ScriptedLLM(self.answer, model="standin-deps" if self.kinds == MISTAKES else
                           "standin-deps-off-template",
                           ledger=ledger if ledger is not None else UsageLedger())
