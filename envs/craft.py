"""A Minecraft crafting world in the manner of DEPS's MC-TextWorld (seed 003): a symbolic
inventory, ``mine`` / ``craft`` / ``smelt`` recipes with tools that are never consumed, and the
69 tasks of groups MT1-MT8.

Data. The recipes are ``domains/craft/recipes.json`` (MC-Planner's goal library, the de-facto
table of the paper's code, with its quirks kept and the few objects the 69 tasks need added; the
file says which), the tasks ``domains/craft/tasks.json`` (Table 1's groups and step limits,
Table 21's task rows). The crafting table and the furnace are inventory items used as tools, as
in MC-Planner: "craft on a crafting_table" means "a crafting_table is in the inventory".

Execution. One command is one recipe application (``mine log``, ``craft planks``, ``smelt
iron_ingot``). A DEPS goal (``craft({'planks':4}, ...)``) is run by :meth:`CraftWorld.run_goal`:
the recipe is applied until the inventory holds the goal's count (absolute, as MC-Planner's
success detector reads the inventory); a goal whose recipe cannot be applied fails at once with
the first false precondition, in the order tool, then materials as the recipe lists them:
``missing-tool``, ``too-few``; a goal naming no known object is ``unknown-item`` (with the
closest name), one asking the wrong kind of recipe (``mine planks``) ``wrong-kind``. The world
has no controller (MC-TextWorld has none either); the episode's budget is in recipe applications
(``max_actions``, 200 by default), since Table 1's limits are game ticks of a learned controller.

As PDDL. :func:`craft_domain` / :func:`craft_problem` give the recipes a target needs as a STRIPS
model Fast Downward plans on: counts are grounded as levels (``(count planks n4)``) with static
``(add ?a ?k ?b)`` facts, each item's levels bounded by what the target can need (so grounding
stays small; no conditional effects or quantified goals, so optimal search works: a final
``finish`` action holds the goal counts). :func:`plan_goals` turns Fast Downward's plan into
DEPS goals (consecutive applications of one recipe merge into one goal); :func:`horizon` is the
length of the shortest such plan from an inventory: the exact horizon DEPS's selector predicts.
"""

from __future__ import annotations

import difflib
import json
import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Mapping, Optional, Sequence

from pddlkit.domains import ROOT as DOMAINS

from .api import Step, info_dict

KINDS = ("mine", "craft", "smelt")
DEFAULT_MAX_ACTIONS = 200


@dataclass(frozen=True)
class Recipe:
    kind: str                      # mine | craft | smelt
    item: str
    count: int                     # made per application
    materials: tuple[tuple[str, int], ...]
    tool: Optional[str]            # crafting_table, furnace, a pickaxe, or None

    @property
    def action(self) -> str:
        return f"{self.kind}-{self.item}"

    def describe(self) -> str:
        """``craft 4 planks from 1 log`` / ``mine 1 cobblestone with wooden_pickaxe``."""
        text = f"{self.kind} {self.count} {self.item}"
        if self.materials:
            text += " from " + ", ".join(f"{n} {m}" for m, n in self.materials)
        if self.tool:
            text += (f" on a {self.tool}" if self.tool in ("crafting_table", "furnace")
                     else f" with a {self.tool}")
        return text


@dataclass(frozen=True)
class CraftTask:
    group: str          # MT1 .. MT8
    item: str
    max_ticks: int      # Table 1's step limit for the group (game ticks at 20 Hz)

    @property
    def sentence(self) -> str:
        return f"Obtain 1 {self.item}."


@dataclass(frozen=True)
class CraftFailure:
    """Why a recipe could not be applied: the first false precondition."""

    code: str                 # missing-tool | too-few | unknown-item | wrong-kind | step-limit
    message: str
    recipe: Optional[Recipe] = None
    missing: Optional[str] = None     # the tool or material that is lacking
    need: int = 0
    have: int = 0


@dataclass
class GoalOutcome:
    ok: bool
    actions: int
    failure: Optional[CraftFailure] = None


@lru_cache(maxsize=1)
def recipes() -> tuple[Recipe, ...]:
    data = json.loads((DOMAINS / "craft" / "recipes.json").read_text())
    return tuple(Recipe(r["kind"], r["item"], int(r["count"]),
                        tuple((m, int(n)) for m, n in r["materials"].items()), r["tool"])
                 for r in data["recipes"])


def recipes_for(item: str) -> list[Recipe]:
    return [r for r in recipes() if r.item == item]


def items() -> list[str]:
    names = {r.item for r in recipes()}
    for r in recipes():
        names.update(m for m, _ in r.materials)
        if r.tool:
            names.add(r.tool)
    return sorted(names)


@lru_cache(maxsize=1)
def tasks() -> tuple[CraftTask, ...]:
    data = json.loads((DOMAINS / "craft" / "tasks.json").read_text())
    return tuple(CraftTask(g["id"], item, int(g["max_ticks"]))
                 for g in data["groups"] for item in g["tasks"])


def task(item: str) -> CraftTask:
    for t in tasks():
        if t.item == item:
            return t
    if item in items():
        return CraftTask("-", item, 0)
    raise ValueError(unknown_item_message(item))


def unknown_item_message(name: str) -> str:
    close = difflib.get_close_matches(name, items(), n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"there is no object '{name}' in this world{hint}"


def inventory_text(inventory: Mapping[str, int]) -> str:
    held = [f"{n} {i}" for i, n in inventory.items() if n > 0]
    return ", ".join(held) if held else "nothing"


def recipe_failure(recipe: Recipe, inventory: Mapping[str, int]) -> Optional[CraftFailure]:
    """The first false precondition of one application of ``recipe``, or None."""
    verb = f"{recipe.kind} {recipe.item}"
    if recipe.tool and inventory.get(recipe.tool, 0) < 1:
        return CraftFailure("missing-tool", f"{verb} needs a {recipe.tool}, but my inventory "
                            f"has no {recipe.tool}", recipe, recipe.tool, 1, 0)
    for material, n in recipe.materials:
        have = inventory.get(material, 0)
        if have < n:
            return CraftFailure("too-few", f"{verb} needs {n} {material}, but my inventory has "
                                f"{have} {material}", recipe, material, n, have)
    return None


def choose_recipe(kind: str, item: str) -> Recipe | CraftFailure:
    """The recipe a ``kind`` goal for ``item`` uses, or why there is none."""
    if kind not in KINDS:
        return CraftFailure("wrong-kind", f"'{kind}' is not an action here; use mine, craft or "
                            f"smelt")
    options = recipes_for(item)
    if not options:
        return CraftFailure("unknown-item", unknown_item_message(item), missing=item)
    for r in options:
        if r.kind == kind:
            return r
    how = " or ".join(r.describe() for r in options)
    return CraftFailure("wrong-kind", f"{item} cannot be {_past(kind)}: {how}", options[0],
                        missing=item)


def _past(kind: str) -> str:
    return {"mine": "mined", "craft": "crafted", "smelt": "smelted"}[kind]


class CraftWorld:
    """``CraftWorld(task="stone_pickaxe")``; ``reset(seed)``; ``step("craft planks")``;
    ``run_goal("craft", "planks", 4)``. Without ``task`` a seed picks one of the 69 tasks."""

    option_help = {"task": "the item to obtain (default: one per episode, by seed)"}

    def __init__(self, task: Optional[str] = None, inventory: Optional[Mapping[str, int]] = None,
                 max_actions: int = DEFAULT_MAX_ACTIONS) -> None:
        self.fixed_task = globals()["task"](task) if task else None
        self.start = dict(inventory or {})
        self.max_actions = int(max_actions)
        self.inventory: dict[str, int] = {}
        self.current: CraftTask = self.fixed_task or tasks()[0]
        self.actions = 0
        self.history: list[str] = []

    # -- TextEnv ---------------------------------------------------------------------------
    @property
    def task(self) -> str:
        return self.current.sentence

    @property
    def target(self) -> str:
        return self.current.item

    @property
    def group(self) -> str:
        return self.current.group

    @staticmethod
    def how(item: str) -> str:
        """How one gets ``item`` ("mine log", "craft planks"), for explanations."""
        options = recipes_for(item)
        return f"{options[0].kind} {item}" if options else f"get {item}"

    def no_plan(self) -> Optional[str]:
        """Why the target cannot be made from the current inventory (Fast Downward finds no
        plan), or None. The recipe table names the cause when an object the target needs has
        no recipe and is not held; otherwise ``why_no_plan``'s first sentence is given."""
        plan = plan_goals({self.target: 1}, dict(self.inventory))
        if plan.status != "unsolvable":
            return None
        for r in closure([self.target]):
            for needed in [m for m, _ in r.materials] + ([r.tool] if r.tool else []):
                if not recipes_for(needed) and not self.inventory.get(needed):
                    return (f"no recipe makes {needed}, which {r.kind} {r.item} needs, and my "
                            f"inventory has none, so {self.target} cannot be made")
        return plan.explanation[0] if plan.explanation else "no plan exists"

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        if self.fixed_task is None:
            self.current = random.Random(seed).choice(tasks())
        self.inventory = {k: v for k, v in self.start.items() if v > 0}
        self.actions = 0
        self.history = []
        return self.describe(), self._info(None)

    def describe(self) -> str:
        return f"Your task: {self.task} My inventory has {inventory_text(self.inventory)}."

    @property
    def won(self) -> bool:
        return self.inventory.get(self.target, 0) >= 1

    def _info(self, error: Optional[str]) -> dict:
        return info_dict(won=self.won, admissible=self.admissible_commands, error=error,
                         steps=self.actions, inventory=dict(self.inventory))

    def admissible_commands(self) -> list[str]:
        return [f"{r.kind} {r.item}" for r in recipes() if not recipe_failure(r, self.inventory)]

    def step(self, command: str) -> Step:
        kind, _, item = command.strip().partition(" ")
        failure = self.apply(kind, item.strip())
        text = failure.message + "." if failure else \
            f"You {kind} {item.strip()}. Your inventory has {inventory_text(self.inventory)}."
        truncated = self.actions >= self.max_actions and not self.won
        return Step(text, 1.0 if self.won and not failure else 0.0, self.won, truncated,
                    self._info(failure.code if failure else None))

    # -- recipes and goals -----------------------------------------------------------------
    def apply(self, kind: str, item: str) -> Optional[CraftFailure]:
        """One application of the ``kind`` recipe of ``item``; the failure, or None."""
        if self.actions >= self.max_actions:
            return CraftFailure("step-limit", f"the episode's {self.max_actions} actions are "
                                "spent")
        recipe = choose_recipe(kind, item)
        if isinstance(recipe, CraftFailure):
            return recipe
        failure = recipe_failure(recipe, self.inventory)
        if failure:
            return failure
        for material, n in recipe.materials:
            self.inventory[material] -= n
            if not self.inventory[material]:
                del self.inventory[material]
        self.inventory[recipe.item] = self.inventory.get(recipe.item, 0) + recipe.count
        self.actions += 1
        self.history.append(recipe.action)
        return None

    def run_goal(self, kind: str, item: str, count: int = 1) -> GoalOutcome:
        """Apply the recipe until the inventory holds ``count`` of ``item``."""
        actions = 0
        while self.inventory.get(item, 0) < count:
            failure = self.apply(kind, item)
            if failure:
                return GoalOutcome(False, actions, failure)
            actions += 1
        return GoalOutcome(True, actions)


# -- the world as PDDL -------------------------------------------------------------------------
def _table_for(table: Optional[Sequence[Recipe]]):
    """``recipes_for`` over ``table`` (another world's recipes, Crafter's), or this world's."""
    if table is None:
        return recipes_for
    return lambda item: [r for r in table if r.item == item]


def closure(targets: Sequence[str], table: Optional[Sequence[Recipe]] = None) -> list[Recipe]:
    """Every recipe that can matter for making ``targets`` (from ``table``, by default this
    world's recipes)."""
    recipes_for = _table_for(table)
    seen: set[str] = set()
    out: list[Recipe] = []
    todo = list(targets)
    while todo:
        item = todo.pop()
        if item in seen:
            continue
        seen.add(item)
        for r in recipes_for(item):
            out.append(r)
            todo.extend(m for m, _ in r.materials)
            if r.tool:
                todo.append(r.tool)
    return sorted(out, key=lambda r: (r.item, r.kind))


def _bounds(goal: Mapping[str, int], have: Mapping[str, int],
            table: Optional[Sequence[Recipe]] = None) -> dict[str, int]:
    """An upper bound per item on the count a plan for ``goal`` needs to hold at once: the
    demand of the first recipe's expansion (each demand rounded up to whole applications),
    plus what the inventory already holds."""
    need: dict[str, int] = {}
    tools: set[str] = set()
    recipes_for = _table_for(table)

    def demand(item: str, n: int, depth: int = 0) -> None:
        options = recipes_for(item)
        if not options or depth > 30:
            need[item] = need.get(item, 0) + n
            return
        r = options[0]
        apps = math.ceil(n / r.count)
        need[item] = need.get(item, 0) + apps * r.count
        for material, m in r.materials:
            demand(material, apps * m, depth + 1)
        if r.tool and r.tool not in tools:
            tools.add(r.tool)
            demand(r.tool, 1, depth + 1)
        for other in options[1:]:   # alternatives (coal): room for their materials too
            for material, m in other.materials:
                need[material] = max(need.get(material, 0), m)

    for item, n in goal.items():
        demand(item, n)
    return {i: max(1, need.get(i, 0) + have.get(i, 0)) for i in set(need) | set(have)}


def _all_bounds(goal: Mapping[str, int], have: Mapping[str, int], rules: list[Recipe],
                table: Optional[Sequence[Recipe]] = None) -> dict:
    bounds = _bounds(goal, have, table)
    for r in rules:   # every item a rule touches has a level
        for i in [r.item, *(m for m, _ in r.materials)] + ([r.tool] if r.tool else []):
            bounds.setdefault(i, 1)
    return bounds


def _name(item: str) -> str:
    return item.replace("_", "-")


def _n(k: int) -> str:
    return f"n{k}"


#: the last action of every plan: the goal counts are held (not a recipe; not counted)
FINISH = "finish"


def _recipe_action(r: Recipe):
    """One application of ``r``: the tool held (``(count tool ?t) (atleast ?t n1)``), each
    material's count ``?m`` down by its amount to ``?r`` (``(add ?r nN ?m)``), in the recipe's
    order, then the item's count ``?o0`` up to ``?o1`` within its levels. The order is the
    simulator's (:func:`recipe_failure`), so the first false part is its failure."""
    from pddlkit.pddl.build import action, atom, delete, typed

    params, pre, eff = [], [], []
    if r.tool:
        params.append("?t")
        pre += [atom("count", _name(r.tool), "?t"), atom("atleast", "?t", "n1")]
    for k, (material, n) in enumerate(r.materials):
        a, b = f"?m{k}", f"?r{k}"
        params += [a, b]
        pre += [atom("count", _name(material), a), atom("add", b, _n(n), a)]
        eff += [delete(atom("count", _name(material), a)), atom("count", _name(material), b)]
    params += ["?o0", "?o1"]
    pre += [atom("count", _name(r.item), "?o0"), atom("add", "?o0", _n(r.count), "?o1"),
            atom("level", _name(r.item), "?o1")]
    eff += [delete(atom("count", _name(r.item), "?o0")), atom("count", _name(r.item), "?o1")]
    return action(_name(r.action), typed(" ".join(params) + " - num"), pre, eff)


def craft_model(goal: Mapping[str, int], inventory: Mapping[str, int] = {},
                table: Optional[Sequence[Recipe]] = None):
    """The recipes ``goal`` (item -> count) can need, from ``inventory``, as a STRIPS model with
    counts as levels: ``(domain, problem)`` (:mod:`pddlkit.pddl.model` objects, for
    ``pddlkit.plan`` or a :class:`~pddlkit.semantics.world.World`). A count is held only up to
    its level bound (what a plan for ``goal`` can need at once): beyond it the model has no
    state, which is where it and the simulator part by design."""
    from pddlkit.pddl.build import action, atom, domain, problem, typed

    rules = closure(list(goal), table)
    bounds = _all_bounds(goal, inventory, rules, table)
    top = max(bounds.values())
    wanted = list(goal.items())
    finish = action(FINISH, typed(" ".join(f"?g{k}" for k in range(len(wanted))) + " - num")
                    if wanted else (),
                    [part for k, (i, n) in enumerate(wanted)
                     for part in (atom("count", _name(i), f"?g{k}"),
                                  atom("atleast", f"?g{k}", _n(max(1, n))))],
                    ["(obtained)"])
    dom = domain("craft", requirements=(":strips", ":typing"), types=["item num"],
                 constants=typed(" ".join(_name(i) for i in sorted(bounds)) + " - item",
                                 " ".join(_n(k) for k in range(top + 1)) + " - num"),
                 predicates=["(count ?i - item ?n - num)", "(level ?i - item ?n - num)",
                             "(add ?a ?k ?b - num)", "(atleast ?n ?k - num)", "(obtained)"],
                 actions=[*(_recipe_action(r) for r in rules), finish])
    steps = sorted({r.count for r in rules} | {n for r in rules for _, n in r.materials})
    init = []
    for i, bound in sorted(bounds.items()):
        have = inventory.get(i, 0)
        init.append(atom("count", _name(i), _n(have)))
        init += [atom("level", _name(i), _n(k)) for k in range(max(bound, have) + 1)]
    for k in steps:
        init += [atom("add", _n(a), _n(k), _n(a + k)) for a in range(top + 1 - k)]
    for k in sorted({1, *(max(1, n) for n in goal.values())}):
        init += [atom("atleast", _n(a), _n(k)) for a in range(k, top + 1)]
    return dom, problem("obtain", "craft", init=init, goal=["(obtained)"])


def craft_domain(goal: Mapping[str, int], inventory: Mapping[str, int] = {},
                 table: Optional[Sequence[Recipe]] = None) -> str:
    """:func:`craft_model`'s domain as PDDL text."""
    from pddlkit.pddl.writer import write_domain

    return write_domain(craft_model(goal, inventory, table)[0])


def craft_problem(goal: Mapping[str, int], inventory: Mapping[str, int] = {},
                  table: Optional[Sequence[Recipe]] = None) -> str:
    """Hold ``goal`` (item -> count) starting from ``inventory``: :func:`craft_model`'s
    problem as PDDL text (pairs with :func:`craft_domain` called with the same arguments)."""
    from pddlkit.pddl.writer import write_problem

    return write_problem(craft_model(goal, inventory, table)[1])


def model_args(recipe: Recipe, inventory: Mapping[str, int]) -> tuple[str, ...]:
    """The ground arguments of ``recipe``'s model action in the state ``inventory`` shows: each
    count as it is, each material's remainder (``n0`` when there is too little, so the
    ``add`` part is the false one) and the item's count after."""
    args = []
    if recipe.tool:
        args.append(_n(inventory.get(recipe.tool, 0)))
    for material, n in recipe.materials:
        have = inventory.get(material, 0)
        args += [_n(have), _n(have - n if have >= n else 0)]
    have = inventory.get(recipe.item, 0)
    return (*args, _n(have), _n(have + recipe.count))


def _model_sentence(predicate: str):
    def sentence(args: tuple, recipe: Recipe) -> Optional[str]:
        verb = f"{recipe.kind} {recipe.item}"
        if predicate == "atleast" and recipe.tool:
            return f"{verb} needs a {recipe.tool}, but my inventory has no {recipe.tool}"
        if predicate == "add":
            left, n, have = (int(a[1:]) for a in args)
            for material, m in recipe.materials:
                if m == n and have < n:
                    return (f"{verb} needs {n} {material}, but my inventory has {have} "
                            f"{material}")
        if predicate == "level":
            return f"the model holds at most {int(args[1][1:]) - recipe.count} {recipe.item}"
        return None
    return sentence


def _craft_messages():
    from pddlkit.semantics.simulate import MessageBook

    return MessageBook({(p, True): _model_sentence(p) for p in ("atleast", "add", "level")})


#: the craft model's false precondition parts as the simulator's sentences; the context is the
#: recipe tried: ``CRAFT_MESSAGES.first_sentence(simulated, context=recipe)``
CRAFT_MESSAGES = _craft_messages()


def _numeric_rules(targets: Optional[Sequence[str]], table: Optional[Sequence[Recipe]]
                   ) -> list[Recipe]:
    return closure(list(targets), table) if targets else list(table or recipes())


def _numeric_items(rules: Sequence[Recipe]) -> list[str]:
    """The PDDL names of every item ``rules`` make, use or need as a tool."""
    return sorted({_name(i) for r in rules
                   for i in [r.item, *(m for m, _ in r.materials), *([r.tool] if r.tool else [])]})


def craft_numeric_domain(targets: Optional[Sequence[str]] = None,
                         table: Optional[Sequence[Recipe]] = None) -> str:
    """The recipes ``targets`` can need (every recipe when None) as a numeric model (issue 49),
    PDDL text: one fluent ``(count ?i)`` per item, each recipe an action that needs its tool
    (``(>= (count tool) 1)``) and its materials (``(>= (count m) n)``), in the simulator's
    order (:func:`recipe_failure`), takes the materials and adds the item. Unlike
    :func:`craft_model`'s counts as levels it has no bound, so it and the simulator agree on
    every inventory; it needs a numeric planner (``pddlkit.plan(..., planner="auto")``:
    ENHSP), where the levels plan with Fast Downward."""
    rules = _numeric_rules(targets, table)
    actions = []
    for r in rules:
        pre = [f"(>= (count {_name(r.tool)}) 1)"] if r.tool else []
        pre += [f"(>= (count {_name(m)}) {n})" for m, n in r.materials]
        eff = [f"(decrease (count {_name(m)}) {n})" for m, n in r.materials]
        eff.append(f"(increase (count {_name(r.item)}) {r.count})")
        precondition = f"    :precondition (and {' '.join(pre)})\n" if pre else ""
        actions.append(f"  (:action {_name(r.action)}\n    :parameters ()\n{precondition}"
                       f"    :effect (and {' '.join(eff)}))")
    return ("(define (domain craft-numeric)\n  (:requirements :strips :typing :numeric-fluents)\n"
            "  (:types item)\n"
            f"  (:constants {' '.join(_numeric_items(rules))} - item)\n"
            "  (:functions (count ?i - item))\n" + "\n".join(actions) + ")\n")


def craft_numeric_problem(goal: Mapping[str, int], inventory: Mapping[str, int] = {},
                          table: Optional[Sequence[Recipe]] = None) -> str:
    """Hold ``goal`` (item -> count) from ``inventory`` in :func:`craft_numeric_domain`
    ``(list(goal), table)``: every item's count in the init (0 when not held)."""
    names = _numeric_items(_numeric_rules(list(goal), table))
    counts = {_name(i): n for i, n in inventory.items()}
    init = " ".join(f"(= (count {n}) {counts.get(n, 0)})" for n in names)
    wanted = " ".join(f"(>= (count {_name(i)}) {max(1, n)})" for i, n in goal.items())
    return (f"(define (problem obtain)\n  (:domain craft-numeric)\n  (:init {init})\n"
            f"  (:goal (and {wanted})))\n")


def _numeric_sentence(args: tuple, context: tuple) -> Optional[str]:
    recipe, inventory = context
    verb = f"{recipe.kind} {recipe.item}"
    if recipe.tool and _name(recipe.tool) == args[0]:
        return f"{verb} needs a {recipe.tool}, but my inventory has no {recipe.tool}"
    for material, n in recipe.materials:
        if _name(material) == args[0]:
            return (f"{verb} needs {n} {material}, but my inventory has "
                    f"{inventory.get(material, 0)} {material}")
    return None


def _numeric_messages():
    from pddlkit.semantics.simulate import MessageBook

    return MessageBook({("count", True): _numeric_sentence})


#: :func:`craft_numeric_domain`'s false comparisons as the simulator's sentences; the context
#: is the recipe tried and the inventory:
#: ``NUMERIC_CRAFT_MESSAGES.first_sentence(simulated, context=(recipe, inventory))``
NUMERIC_CRAFT_MESSAGES = _numeric_messages()


@dataclass(frozen=True)
class PlannedGoal:
    kind: str
    item: str
    count: int          # the count the inventory holds once the goal is done

    def __str__(self) -> str:
        return f"{self.kind} {self.count} {self.item}"


@dataclass
class CraftPlan:
    status: str                      # solved | unsolvable | error ...
    goals: list[PlannedGoal] = field(default_factory=list)
    actions: int = 0                 # recipe applications: the exact horizon
    explanation: list[str] = field(default_factory=list)


def plan_goals(goal: Mapping[str, int], inventory: Mapping[str, int] = {},
               planner: str = "fast-downward",
               table: Optional[Sequence[Recipe]] = None) -> CraftPlan:
    """A plan from Fast Downward for ``goal`` as DEPS goals with absolute counts
    (``planner="fast-downward:optimal"`` for a shortest one); ``table``: another world's
    recipes (Crafter's, :func:`pddlkit.envs.crafter_world.recipes`)."""
    import pddlkit

    result = pddlkit.plan(craft_domain(goal, inventory, table),
                          craft_problem(goal, inventory, table), planner=planner)
    if result.status != "solved":
        sentences = list(result.explanation.sentences) if result.explanation else []
        return CraftPlan(result.status, explanation=sentences)
    by_action = {_name(r.action): r for r in (table if table is not None else recipes())}
    goals: list[PlannedGoal] = []
    steps = [step for step in result.plan.steps if step.name != FINISH]
    for step in steps:
        r = by_action[step.name]
        level = int(step.args[-1].lstrip("n"))
        if goals and goals[-1].kind == r.kind and goals[-1].item == r.item:
            goals[-1] = PlannedGoal(r.kind, r.item, level)
        else:
            goals.append(PlannedGoal(r.kind, r.item, level))
    return CraftPlan("solved", goals, len(steps))


@lru_cache(maxsize=4096)
def _horizon(goal: tuple, inventory: tuple) -> Optional[int]:
    plan = plan_goals(dict(goal), dict(inventory), planner="fast-downward:optimal")
    return plan.actions if plan.status == "solved" else None


def horizon(item: str, count: int, inventory: Mapping[str, int]) -> Optional[int]:
    """Recipe applications the shortest plan needs to hold ``count`` of ``item`` (None when no
    plan exists): the selector's exact horizon."""
    if inventory.get(item, 0) >= count:
        return 0
    return _horizon(((item, count),), tuple(sorted((k, v) for k, v in inventory.items() if v)))
