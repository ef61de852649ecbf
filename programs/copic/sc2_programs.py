"""StarCraft II planning programs for CoPiC's offline stand-in writer: real programs in the shape
of seed 000's Appendix B.3 example (``planner(obs, action_space, task)`` with a ``tech_tree`` of
base buildings and dependencies, a 5-action plan), of graded quality.

The correct program knows the whole Terran tree. The mistakes are those the paper's evolution
prompt targets ("for units with a count equal to 0 in the result, reconsider their base_building
and technology trees") and one its own evolved programs show (a TechLab for the Viking):

* ``no-armory``, ``no-fusioncore``, ``no-ghostacademy``: the unit's extra building is missing
  from its dependencies, so the unit is never trained (Thor, Battlecruiser, Ghost);
* ``no-techlab``: TechLab units get their plain production building as base building;
* ``viking-techlab``: the Viking is given a STARPORTTECHLAB (it trains, at a cost);
* ``example-units``: the program also trains the example task's units (Marine, Reaper,
  Marauder, Hellion) whenever it can, as if the example's task were part of its own: minerals,
  supply and production time go to units nobody asked for;
* ``overbuild``: one production building per unit wanted instead of one per 8 (16 SCVs per
  command center), the example's scale misread: a command center per SCV;
* ``supply-spam``: the depot condition reads the supply cap instead of what is left
  (``supply_cap < 200``), so a depot goes into every plan and eats the mineral income;
* ``no-supply``: no supply depots beyond the tech requirement, so production stalls;
* ``no-gas``: no refinery, so every unit that costs gas is out of reach;
* ``crash`` (an assumption that fails on the first call) and ``infinite-loop`` (a loop that never
  ends), which the sandbox must contain.
"""

from __future__ import annotations

from pddlkit.envs.sc2_data import KINDS, TECHLAB_OF

from .world import checked_mistakes

SC2_MISTAKES = ("no-armory", "no-fusioncore", "no-ghostacademy", "no-techlab", "viking-techlab",
                "example-units", "overbuild", "supply-spam",
                "no-supply", "no-gas", "crash", "infinite-loop")

#: the unit whose count stays 0 (or falls short) when the mistake is made
AFFECTS = {"no-armory": ("THOR",), "no-fusioncore": ("BATTLECRUISER",),
           "no-ghostacademy": ("GHOST",),
           "no-techlab": ("THOR", "BANSHEE", "RAVEN", "SIEGETANK", "GHOST", "BATTLECRUISER")}

_PLAIN = {lab: producer for producer, lab in TECHLAB_OF.items()}


_DROP = {"no-armory": "ARMORY", "no-fusioncore": "FUSIONCORE", "no-ghostacademy": "GHOSTACADEMY"}


def tech_tree(mistakes: frozenset = frozenset()) -> dict:
    """Every unit's entry in the example program's terms: the game data's
    (:func:`~.sc2_world.derived_tech_tree`), with ``mistakes`` made in it."""
    from .sc2_world import derived_tech_tree

    tree = derived_tech_tree([u for u, kind in KINDS.items() if kind.is_unit])
    for unit, tech in tree.items():
        base, deps = tech["base_building"], tuple(tech["pre_dependency"].values())
        deps = tuple(d for d in deps if not any(_DROP[m] == d for m in mistakes if m in _DROP))
        if "no-techlab" in mistakes and base in _PLAIN:
            deps, base = tuple(d for d in deps if d != _PLAIN[base]), _PLAIN[base]
        if "viking-techlab" in mistakes and unit == "VIKINGFIGHTER":
            base, deps = "STARPORTTECHLAB", deps + ("STARPORT",)
        tree[unit] = {"base_building": base, "pre_dependency": dict(enumerate(deps, 1))}
    return tree


def sc2_program(mistakes=frozenset()) -> str:
    """The text of a ``planner(obs, action_space, task)`` program with ``mistakes``."""
    mistakes = checked_mistakes(mistakes, SC2_MISTAKES)
    tree = tech_tree(mistakes)
    lines = ["import math", "", "", "def planner(obs, action_space, task):",
             '    """A 5-action plan towards the unit counts of ``task``."""',
             "    plan_build = []", "    plan_unit = []",
             f"    tech_tree = {tree!r}",
             "    base_buildings = {k: v['base_building'] for k, v in tech_tree.items()}"]
    if "crash" in mistakes:
        lines.append("    first_unit = obs['Unit']['MARINE'] // obs['Unit']['MARINE']  # 0 Marines")
    if "infinite-loop" in mistakes:
        lines += ["    waiting = obs['Resource']['supply_left']",
                  "    while waiting >= 0:  # waits for supply that never changes here",
                  "        waiting = waiting + 0"]
    if "supply-spam" in mistakes:
        lines += ["    if obs['Resource']['supply_cap'] < 200 and "
                  "'BUILD SUPPLYDEPOT' in action_space:",
                  "        plan_build.append('BUILD SUPPLYDEPOT')"]
    elif "no-supply" not in mistakes:
        lines += ["    if obs['Resource']['supply_left'] < 8 and "
                  "'BUILD SUPPLYDEPOT' in action_space:",
                  "        plan_build.append('BUILD SUPPLYDEPOT')"]
    if "no-gas" not in mistakes:
        lines += ["    gas_units = [u for u in task if u not in ('SCV', 'MARINE', 'HELLION')]",
                  "    if gas_units and obs['Building']['REFINERY'] < 2 and "
                  "'BUILD REFINERY' in action_space:",
                  "        plan_build.append('BUILD REFINERY')"]
    lines += [
        "    still_needed = {u: max(0, int(n) - obs['Unit'].get(u, 0)) for u, n in task.items()}",
    ] + ([
        "    for unit in ('MARINE', 'REAPER', 'MARAUDER', 'HELLION'):  # the example's units",
        "        if f'TRAIN {unit}' in action_space:",
        "            plan_unit.insert(0, f'TRAIN {unit}')",
    ] if "example-units" in mistakes else []) + [
        "    for unit, number in still_needed.items():",
        "        if number > 0 and f'TRAIN {unit}' in action_space:",
        "            plan_unit.append(f'TRAIN {unit}')",
        "    needed = {b: 0 for b in base_buildings.values()}",
        "    for unit, number in task.items():",
        "        per = 1" if "overbuild" in mistakes
        else "        per = 16 if unit == 'SCV' else 8",
        "        needed[base_buildings[unit]] += math.ceil(int(number) / per)",
        "    for unit, tech in tech_tree.items():",
        "        if unit not in task or still_needed[unit] == 0:",
        "            continue",
        "        for _, building in sorted(tech['pre_dependency'].items()):",
        "            if obs['Building'].get(building, 0) == 0 and "
        "f'BUILD {building}' in action_space:",
        "                plan_build.append(f'BUILD {building}')",
        "        base = tech['base_building']",
        "        if obs['Building'].get(base, 0) < needed[base] and "
        "f'BUILD {base}' in action_space:",
        "            plan_build.append(f'BUILD {base}')",
        "    plan = []",
        "    while plan_build or plan_unit:",
        "        if plan_build:",
        "            plan.append(plan_build.pop(0))",
        "        if plan_unit:",
        "            plan.append(plan_unit.pop(0))",
        "    return list(dict.fromkeys(plan))[:5]",
    ]
    return "\n".join(lines) + "\n"
