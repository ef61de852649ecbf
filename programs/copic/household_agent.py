"""The household program API of seed 000's ALFWorld prompts (Appendix B.1.1), as the code a
planning program runs with: ``Entity``, ``Entitys``, ``Agent`` (``holding``, ``location``,
``seen_entitys``), the helpers ``find_canbe_contained``, ``find_object(s)``,
``find_receptacle(s)``, ``name2type`` and the actions ``explore``, ``goto``, ``take``, ``put``,
``open_receptacle``, ``close_receptacle``, ``clean``, ``heat``, ``cool``, ``turn_on``.

This file is never imported by the host: its text is put in front of the LLM's task method and
the whole runs in :mod:`pddlkit.sandbox` (the method runs with it, so it is generated code too).

How a program proposes a plan without acting (``shared/specs/copic.md`` §4.8): ``propose``
rebuilds the agent's belief from the episode so far (each command and the observation it got),
then runs the task method against a *recording* agent. Each action appends its command and
updates the belief as it would turn out; an action whose outcome is an observation the belief
cannot predict (arriving somewhere not yet seen, opening a receptacle, exploring) ends the plan
there, as the paper's programs "perform a few actions and return". ``goto`` to where the agent
already is records nothing. A plan holds at most ``max_actions`` commands.
"""

import re

CONTAINS = {}  # object type -> receptacle types that can hold it (filled in by the host)
#: the world model's plans (CoPiC's plan_api option, issue 48): goal -> commands, computed by the
#: host on the environment's PDDL model from what the agent has seen, passed in with each call
_WORLD_PLANS = {}


def plan(goal="task"):
    """The world model's commands for ``goal`` ("task": the whole task) from what has been
    seen so far; [] when it has none (the object not seen yet, or no such goal)."""
    return list(_WORLD_PLANS.get(goal, []))


class _Observe(Exception):
    """The plan ends here: what comes next depends on an observation."""


class _Full(Exception):
    """The plan has its maximum number of actions."""


class Entity:
    def __init__(self, **kwargs):
        self.name = None
        self.loc = None
        self.in_on = None
        self.ishot, self.iscool, self.isclean = None, None, None
        self.isopen, self.ison, self.istoggled = None, None, None
        self.pickupable, self.openable, self.toggleable = None, None, None
        self.heatable, self.coolable, self.cleanable = None, None, None
        self.isobject, self.isreceptacle, self.isreceptacleobject = None, None, None
        self.type = None
        self.checked = None
        self.contents = []
        for key, value in kwargs.items():
            setattr(self, key, value)


class Entitys:
    def __init__(self):
        self._by_name = {}

    def __getitem__(self, entity_name):
        return self._by_name.get(entity_name)

    def __contains__(self, entity_name):
        return entity_name in self._by_name

    def add(self, entity):
        self._by_name[entity.name] = entity
        return entity

    def values(self):
        return list(self._by_name.values())


def _type_of(name):
    return re.sub(r"\s*\d+$", "", str(name or "")).replace(" ", "").lower()


_ITEM = re.compile(r"\ban? ([a-z]+(?: [a-z]+)* \d+)")


def _items(text):
    return _ITEM.findall(text)


class Agent:
    def __init__(self, max_actions=5, put_template="move {o} to {r}"):
        self.holding = None
        self.location = None
        self.seen_entitys = Entitys()
        self.order = []             # receptacles in the order the room listed them
        self.plan = []
        self.max_actions = max_actions
        self.put_template = put_template   # both engines take "move X to Y"

    # -- belief from the episode so far -------------------------------------------------
    def _receptacle(self, name):
        r = self.seen_entitys[name]
        if r is None:
            r = self.seen_entitys.add(Entity(name=name, type=_type_of(name) + "type",
                                             isreceptacle=True, isobject=False, checked=False,
                                             openable=_type_of(name) in (
                                                 "cabinet", "drawer", "fridge", "microwave",
                                                 "safe", "box"), isopen=False))
            self.order.append(name)
        return r

    def _object(self, name, where):
        o = self.seen_entitys[name]
        if o is None:
            o = self.seen_entitys.add(Entity(name=name, type=_type_of(name) + "type",
                                             isobject=True, isreceptacle=False,
                                             pickupable=True))
        o.in_on, o.loc = where, where
        r = self.seen_entitys[where]
        if r is not None and name not in r.contents:
            r.contents.append(name)
        return o

    def _see_contents(self, receptacle, text):
        r = self._receptacle(receptacle)
        r.checked = True
        r.contents = []
        for item in _items(text):
            if item != receptacle:
                self._object(item, receptacle)

    def observe(self, command, observation):
        """Update the belief with one step (``command`` None: the first observation)."""
        text = " ".join(str(observation).split())
        if command is None:
            room = re.search(r"you see (.*?)\.(?:\s|$)", text)
            for item in _items(room.group(1) if room else ""):
                self._receptacle(item)
            return
        if text.startswith("Nothing happens") or "already" in text and "at the" not in text:
            if text.startswith("Nothing happens") and command.startswith("go to "):
                # ALFWorld cannot reach some places: explore no more of them
                self._receptacle(command[len("go to "):]).checked = True
            return
        m = re.match(r"You arrive at (?:the )?(.+?)\.", text)
        if m:
            self.location = m.group(1)
            r = self._receptacle(self.location)
            if re.search(r"is closed", text):
                r.isopen = False
            else:
                r.isopen = r.isopen if not r.openable else True
                self._see_contents(self.location, text.split(".", 1)[1])
            return
        m = re.match(r"You are already at (?:the )?(.+?)\.", text)
        if m:
            self.location = m.group(1)
            return
        m = re.match(r"You open (?:the )?(.+?)\.", text)
        if m:
            r = self._receptacle(m.group(1))
            r.isopen = True
            self._see_contents(m.group(1), text.split("In it,", 1)[-1])
            return
        m = re.match(r"You close (?:the )?(.+?)\.", text)
        if m:
            self._receptacle(m.group(1)).isopen = False
            return
        m = re.match(r"You pick up (?:the )?(.+?) from (?:the )?(.+?)\.", text)
        if m:
            obj = self._object(m.group(1), m.group(2))
            r = self.seen_entitys[m.group(2)]
            if r is not None and obj.name in r.contents:
                r.contents.remove(obj.name)
            obj.in_on = obj.loc = None
            self.holding = obj.name
            return
        m = re.match(r"You (?:move|put) (?:the )?(.+?) (?:to|in|on|in/on) (?:the )?(.+?)\.", text)
        if m:
            self._object(m.group(1), m.group(2))
            self.holding = None
            return
        m = re.match(r"You (heat|cool|clean) (?:the )?(.+?) using", text)
        if m:
            obj = self.seen_entitys[m.group(2)]
            if obj is not None:
                setattr(obj, {"heat": "ishot", "cool": "iscool", "clean": "isclean"}[m.group(1)],
                        True)
            return
        m = re.match(r"You turn on (?:the )?(.+?)\.", text)
        if m and self.seen_entitys[m.group(1)] is not None:
            self.seen_entitys[m.group(1)].ison = True

    # -- helpers ------------------------------------------------------------------------
    def name2type(self, name):
        """'apple', 'apple 22' or 'appletype' -> 'appletype'."""
        if name is None:
            return None
        kind = _type_of(name)
        return kind if kind.endswith("type") else kind + "type"

    def find_canbe_contained(self, objecttype):
        kinds = CONTAINS.get(self.name2type(objecttype)[:-4])
        return [k + "type" for k in kinds] if kinds else None

    def find_objects(self, objecttype):
        wanted = self.name2type(objecttype)
        found = [e for e in self.seen_entitys.values() if e.isobject and e.type == wanted]
        return found or None

    def find_object(self, objecttype):
        found = self.find_objects(objecttype)
        return found[0] if found else None

    def find_receptacles(self, receptacletype):
        wanted = self.name2type(receptacletype)
        found = [self.seen_entitys[n] for n in self.order
                 if self.seen_entitys[n].type == wanted]
        return found or None

    def find_receptacle(self, receptacletype):
        found = self.find_receptacles(receptacletype)
        return found[0] if found else None

    # -- recorded actions ---------------------------------------------------------------
    def follow(self, commands):
        """Record ``commands`` (a plan from ``plan(...)``) as this plan's actions, in order;
        the plan ends after them (what comes next depends on what they show)."""
        for command in commands:
            self._do(command)
        raise _Observe()

    def _do(self, command):
        self.plan.append(command)
        if len(self.plan) >= self.max_actions:
            raise _Full()

    def explore(self):
        """Look into the receptacle here if it is closed and unseen, else go to the next one
        not yet seen inside (in the room's listing order)."""
        here = self.seen_entitys[self.location] if self.location else None
        if here is not None and not here.checked and here.openable and not here.isopen:
            self.open_receptacle(here.name)
            return
        for name in self.order:
            if not self.seen_entitys[name].checked and name != self.location:
                self.goto(name)
                return
        self._do("look")
        raise _Observe()

    def goto(self, receptacle):
        receptacle = getattr(receptacle, "name", receptacle)
        if receptacle == self.location:
            return
        r = self._receptacle(receptacle)
        self._do(f"go to {receptacle}")
        self.location = receptacle
        if not r.checked or (r.openable and not r.isopen):
            raise _Observe()

    def take(self, object, receptacle):
        object, receptacle = getattr(object, "name", object), getattr(receptacle, "name",
                                                                      receptacle)
        self._do(f"take {object} from {receptacle}")
        self.holding = object
        o = self.seen_entitys[object]
        if o is not None:
            o.in_on = o.loc = None

    def put(self, object, receptacle):
        object, receptacle = getattr(object, "name", object), getattr(receptacle, "name",
                                                                      receptacle)
        self._do(self.put_template.format(o=object, r=receptacle))
        self.holding = None
        if self.seen_entitys[object] is not None:
            self._object(object, receptacle)

    def open_receptacle(self, receptacle):
        receptacle = getattr(receptacle, "name", receptacle)
        r = self._receptacle(receptacle)
        if r.isopen:
            return
        self._do(f"open {receptacle}")
        r.isopen = True
        if not r.checked:
            raise _Observe()

    def close_receptacle(self, receptacle):
        receptacle = getattr(receptacle, "name", receptacle)
        self._do(f"close {receptacle}")
        self._receptacle(receptacle).isopen = False

    def _transform(self, verb, flag, object, receptacle):
        object, receptacle = getattr(object, "name", object), getattr(receptacle, "name",
                                                                      receptacle)
        self._do(f"{verb} {object} with {receptacle}")
        if self.seen_entitys[object] is not None:
            setattr(self.seen_entitys[object], flag, True)

    def clean(self, object, receptacle):
        self._transform("clean", "isclean", object, receptacle)

    def heat(self, object, receptacle):
        self._transform("heat", "ishot", object, receptacle)

    def cool(self, object, receptacle):
        self._transform("cool", "iscool", object, receptacle)

    def turn_on(self, object):
        object = getattr(object, "name", object)
        self._do(f"use {object}")
        if self.seen_entitys[object] is not None:
            self.seen_entitys[object].ison = True


def propose(history, task_type, objecttype, receptacletype, max_actions=5,
            put_template="move {o} to {r}", plans=None):
    """The plan of the task method ``task_type`` from the episode so far: ``history`` is a list
    of ``[command, observation]`` pairs, the first with command None; ``plans``: the world
    model's (goal -> commands), read by ``plan(goal)``."""
    _WORLD_PLANS.clear()
    _WORLD_PLANS.update(plans or {})
    agent = Agent(max_actions, put_template)
    for command, observation in history:
        agent.observe(command, observation)
    method = globals().get(task_type)
    if method is None:
        raise NameError(f"the program defines no {task_type}(self, objecttype, "
                        f"receptacletype) method")
    try:
        method(agent, objecttype, receptacletype)
    except (_Observe, _Full):
        pass
    return agent.plan
