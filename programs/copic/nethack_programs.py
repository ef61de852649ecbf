"""NetHack planning programs for CoPiC's offline stand-in writer: ``planner(obs)`` returning one
skill call (``{"name": "move_to", "x": 7, "y": 13}``), the paper's "one skill per step"
(Appendix B.2), over the observation of :class:`pddlkit.envs.nethack.NetHackTask`. One correct
strategy per task and the mistakes the paper's "Attention" rules and evolution address:

* ``no-explore``: when nothing useful is in view the program rests instead of exploring (the
  paper's rule "must include explore_level logic");
* ``fountains-only``: only fountains count as water, never sinks (drink);
* ``no-kick``: a locked box is left locked (open-box);
* ``attack-pets``: tame monsters are attacked too (the rule "never attack tame ...");
* ``crash`` and ``infinite-loop``, which the sandbox must contain.
"""

from __future__ import annotations

from .world import checked_mistakes

NETHACK_TASKS = ("drink", "open-box", "exp-level-3")
NETHACK_MISTAKES = ("no-explore", "fountains-only", "no-kick", "attack-pets", "crash",
                    "infinite-loop")


def nethack_program(task: str, mistakes=frozenset()) -> str:
    if task not in NETHACK_TASKS:
        raise ValueError(f"unknown NetHack task {task!r}; known: {', '.join(NETHACK_TASKS)}")
    mistakes = checked_mistakes(mistakes, NETHACK_MISTAKES)
    lines = ["def planner(obs):",
             f'    """One skill towards the task: {task}."""',
             "    me = obs['Agent Information']",
             "    x, y = me['x'], me['y']"]
    if "crash" in mistakes:
        lines.append("    nearest = obs['Monsters'][0]['name']  # there may be no monster")
    if "infinite-loop" in mistakes:
        lines += ["    while me['game_message'] == '':  # wait for news",
                  "        pass"]
    if task == "drink":
        water = "('fountain',)" if "fountains-only" in mistakes else "('fountain', 'sink')"
        lines += [
            f"    water = {water}",
            "    if me['standing_on'] in water:",
            "        return {'name': 'drink'}",
            "    places = [f for f in obs['Features'] if f['name'] in water]",
            "    if places:",
            "        return {'name': 'move_to', 'x': places[0]['x'], 'y': places[0]['y']}",
        ]
    elif task == "open-box":
        lines += [
            "    boxes = [o for o in obs['Objects'] if 'box' in o['name'] or 'chest' in o['name']]",
            "    locked = [b for b in boxes if b['locked']]",
            "    if locked:",
        ]
        if "no-kick" in mistakes:
            lines += ["        boxes = locked  # try again"]
        else:
            lines += [
                "        box = locked[0]",
                "        if box['distance'] == 1:",
                "            return {'name': 'kick', 'x': box['x'], 'y': box['y']}",
                "        if box['distance'] == 0 and me['free_neighbors']:",
                "            step = me['free_neighbors'][0]",
                "            return {'name': 'move_to', 'x': step['x'], 'y': step['y']}",
                "        boxes = [b for b in boxes if not b['locked']] or locked",
            ]
        lines += [
            "    if 'box' in me['standing_on'] or 'chest' in me['standing_on']:",
            "        return {'name': 'loot'}",
            "    if boxes:",
            "        return {'name': 'move_to', 'x': boxes[0]['x'], 'y': boxes[0]['y']}",
        ]
    else:
        foes = "obs['Monsters']" if "attack-pets" in mistakes else \
            "[m for m in obs['Monsters'] if not m['tame'] and m['name'] not in " \
            "('shopkeeper', 'gas spore', 'floating eye')]"
        lines += [
            "    food = [k for k, v in obs['Inventory'].items() if any(w in v for w in "
            "('food ration', 'apple', 'orange', 'fortune cookie', 'carrot', 'cram'))]",
            "    if obs['Stats']['hunger'] >= 1 and food:",
            "        return {'name': 'eat', 'item_letter': food[0]}",
            f"    foes = {foes}",
            "    if foes and foes[0]['distance'] <= 6:",
            "        return {'name': 'melee_attack', 'x': foes[0]['x'], 'y': foes[0]['y']}",
            "    hp, most = (int(v) for v in obs['Stats']['HP'].split('/'))",
            "    if hp < most // 3:",
            "        return {'name': 'rest'}",
        ]
    if "no-explore" in mistakes:
        lines += ["    return {'name': 'rest'}  # wait for something to show up"]
    else:
        lines += ["    return {'name': 'explore'}"]
    return "\n".join(lines) + "\n"
