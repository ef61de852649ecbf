"""Household (ALFWorld) planning programs for CoPiC's offline stand-in writer: task methods in
the shape of seed 000's Appendix F (``def pick_and_place(self, objecttype, receptacletype)``
over the agent API of :mod:`.household_agent`), one correct strategy per task type and the
mistakes its evolution fixes:

* ``no-take``: the program walks to the object and opens its receptacle but never takes it (the
  case of Appendix G);
* ``no-open``: the target receptacle is never opened, so a put into a closed one fails;
* ``wrong-object``: the search for a free object forgets the type filter and takes the first
  object it has seen, carrying the wrong one to the target: plans that run without an error and
  get nowhere, the kind of mistake a critic has to learn to avoid rather than one that fails;
* ``skip-transform``: the object goes to the target without being cleaned, heated, cooled, or
  looked at under the lamp (clean/heat/cool/look tasks);
* ``crash`` (reads a property of an entity it has not seen) and ``infinite-loop`` (waits for the
  agent to hold something), which the sandbox must contain.
"""

from __future__ import annotations

from pddlkit.envs.household_tasks import ALFWORLD_TASK_TYPES

from .world import checked_mistakes

#: ALFWorld's six task types (the household's one table: pddlkit.envs.household_tasks)
HOUSEHOLD_TASKS = ALFWORLD_TASK_TYPES
HOUSEHOLD_MISTAKES = ("no-take", "no-open", "wrong-object", "skip-transform", "crash",
                      "infinite-loop")
TRANSFORM = {"pick_clean_then_place": ("sinkbasin", "clean", "isclean"),
             "pick_heat_then_place": ("microwave", "heat", "ishot"),
             "pick_cool_then_place": ("fridge", "cool", "iscool")}
DESCRIPTIONS = {
    "pick_and_place": "put an object of objecttype in/on a receptacle of receptacletype",
    "pick_two_obj_and_place": "put two objects of objecttype in/on a receptacle of "
                              "receptacletype",
    "look_at_obj_in_light": "pick up an object of objecttype and look at it under a lamp of "
                            "receptacletype",
    "pick_clean_then_place": "clean an object of objecttype with a sinkbasin, then put it "
                             "in/on a receptacle of receptacletype",
    "pick_heat_then_place": "heat an object of objecttype with a microwave, then put it in/on "
                            "a receptacle of receptacletype",
    "pick_cool_then_place": "cool an object of objecttype with a fridge, then put it in/on a "
                            "receptacle of receptacletype",
}


def household_program(task_type: str, mistakes=frozenset()) -> str:
    """The text of the ``task_type`` method with ``mistakes``."""
    if task_type not in HOUSEHOLD_TASKS:
        raise ValueError(f"unknown task type {task_type!r}; known: {', '.join(HOUSEHOLD_TASKS)}")
    mistakes = checked_mistakes(mistakes, HOUSEHOLD_MISTAKES)
    two = task_type == "pick_two_obj_and_place"
    look = task_type == "look_at_obj_in_light"
    lines = [f"def {task_type}(self, objecttype, receptacletype):",
             f'    """{DESCRIPTIONS[task_type]}."""']
    if "crash" in mistakes:
        lines.append("    first_seen = self.seen_entitys[objecttype].name  # the type, not a name")
    if "infinite-loop" in mistakes:
        lines += ["    while self.holding is None:  # wait until the agent holds something",
                  "        pass"]
    lines += [
        "    wanted = self.name2type(objecttype)",
        "    target_type = self.name2type(receptacletype)",
        "",
        "    def placed(entity):",
        "        return entity.in_on is not None and self.name2type(entity.in_on) == target_type",
        "",
    ]
    if task_type in TRANSFORM and "skip-transform" not in mistakes:
        flag = TRANSFORM[task_type][2]
        lines[-2:-1] = [
            "        # an object put there without the treatment does not count: take it back",
            "        return (entity.in_on is not None and self.name2type(entity.in_on) == "
            f"target_type and bool(entity.{flag}))"]
    if two:
        lines += ["    done = [o for o in self.find_objects(objecttype) or [] if placed(o)]",
                  "    if len(done) >= 2:",
                  "        return"]
    lines += [
        "    # 1. hold an object of the wanted type",
        "    if self.holding is None or self.name2type(self.holding) != wanted:",
        "        if self.holding is not None:",
        "            self.put(self.holding, self.location)",
        ("        free = [o for o in self.seen_entitys.values() if o.isobject "
         "and o.in_on and not placed(o)]" if "wrong-object" in mistakes else
         "        free = [o for o in self.find_objects(objecttype) or [] "
         "if o.in_on and not placed(o)]"),
        "        if not free:",
        "            self.explore()",
        "            return",
        "        obj = free[0]",
        "        self.goto(obj.in_on)",
        "        place = self.seen_entitys[obj.in_on]",
        "        if place.openable and not place.isopen:",
        "            self.open_receptacle(place.name)",
    ]
    if "no-take" in mistakes:
        lines += ["        return  # (the object is here now)"]
    else:
        lines += ["        self.take(obj.name, place.name)"]
    lines += ["    obj = self.seen_entitys[self.holding]"]
    if look:
        if "skip-transform" in mistakes:
            lines += ["    return  # holding it is enough"]
        else:
            lines += [
                "    # 2. look at it under the lamp",
                "    lamp = self.find_object(receptacletype)",
                "    if lamp is None or lamp.in_on is None:",
                "        self.explore()",
                "        return",
                "    self.goto(lamp.in_on)",
                "    self.turn_on(lamp.name)",
            ]
        return "\n".join(lines) + "\n"
    if task_type in TRANSFORM and "skip-transform" not in mistakes:
        device, verb, flag = TRANSFORM[task_type]
        lines += [
            f"    # 2. {verb} it",
            f"    if not obj.{flag}:",
            f"        device = self.find_receptacle('{device}')",
            "        if device is None:",
            "            self.explore()",
            "            return",
            "        self.goto(device.name)",
            f"        self.{verb}(obj.name, device.name)",
        ]
    lines += [
        "    # 3. put it in/on the target",
        "    target = self.find_receptacle(receptacletype)",
        "    if target is None:",
        "        self.explore()",
        "        return",
        "    self.goto(target.name)",
    ]
    if "no-open" not in mistakes:
        lines += ["    if target.openable and not target.isopen:",
                  "        self.open_receptacle(target.name)"]
    lines += ["    self.put(obj.name, target.name)"]
    return "\n".join(lines) + "\n"
