"""An ALFWorld-style household: receptacles, objects, and the six ALFWorld task types plus
slicing, with ALFWorld's commands and partial observability (a closed receptacle hides its
contents until opened). No answer reveals hidden state: an object the agent has not seen yet
is answered as one that does not exist ("You don't see any apple 2 here."), and failures are
explained in the action's precondition order (see :mod:`.pddl_world`); ALFWorld's own engine
answers "Nothing happens." to all of these, which ``terse=True`` restores. Layouts have 8 to 60 receptacles.

Difficulty groups follow PDDLego+: ``basic&use`` (pick and place, pick two, examine in
light), ``clean``, ``cool``, ``heat`` and ``slice+``. ``difficulty`` also accepts one task type.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Optional

from pddlkit.domains import path as domain_path
from pddlkit.pddl.model import And, Atom, Exists, Not, Problem, TypedName
from pddlkit.pddl.reader import parse_domain
from pddlkit.semantics.grounding import GroundAction
from pddlkit.semantics.state import State

from .api import ActionTemplate
from .household_tasks import DIFFICULTIES, OPENABLE, ROLES, TASK_TYPES, task_sentence
from .pddl_world import PDDLWorldEnv

START = "middle_of_room"
#: receptacle class -> (openable, role): role is heater / cooler / washer / None, from the
#: one table of household knowledge (:mod:`.household_tasks`)
RECEPTACLES = {c: (c in OPENABLE, ROLES.get(c)) for c in (
    "cabinet", "drawer", "fridge", "microwave", "sinkbasin", "countertop", "shelf", "desk",
    "diningtable", "sidetable", "garbagecan", "stoveburner", "toaster", "coffeemachine",
    "dresser", "safe", "armchair", "sofa", "bed", "cart")}
REQUIRED = ("fridge", "microwave", "sinkbasin", "countertop", "desk", "cabinet", "drawer")
SINGLETONS = {"fridge", "microwave", "sinkbasin", "toaster", "coffeemachine"}
SURFACES_FOR_GOALS = ("countertop", "diningtable", "shelf", "cabinet", "drawer", "sidetable",
                      "desk", "dresser", "cart")
FOOD = ("apple", "bread", "lettuce", "tomato", "potato", "egg")
DISHES = ("mug", "cup", "plate", "bowl", "pan", "pot")
UTENSILS = ("knife", "butterknife", "spoon", "fork", "spatula", "ladle")
THINGS = ("book", "cd", "pen", "pencil", "keychain", "creditcard", "cellphone", "alarmclock",
          "pillow", "vase", "statue", "candle", "soapbar", "sponge", "cloth", "remotecontrol",
          "watch", "newspaper")
SLICEABLE = {"apple", "bread", "lettuce", "tomato", "potato"}
SHARP = {"knife", "butterknife"}
HEATABLE = set(FOOD) | set(DISHES)
COOLABLE = set(FOOD) | set(DISHES)
CLEANABLE = set(FOOD) | set(DISHES) | set(UTENSILS) | {"soapbar", "sponge", "cloth"}
EXAMINABLE = ("book", "cd", "pen", "pencil", "keychain", "creditcard", "cellphone",
              "alarmclock", "watch", "newspaper", "vase", "statue")
OBJECT_CLASSES = FOOD + DISHES + UTENSILS + THINGS

TEMPLATES = (
    ActionTemplate("gotolocation", ("?from", "?to"), "go to {to}"),
    ActionTemplate("openobject", ("?r",), "open {r}"),
    ActionTemplate("closeobject", ("?r",), "close {r}"),
    ActionTemplate("pickupobject", ("?o", "?r"), "take {o} from {r}"),
    ActionTemplate("putobject", ("?o", "?r"), "move {o} to {r}"),
    ActionTemplate("putobject", ("?o", "?r"), "put {o} in {r}"),
    ActionTemplate("putobject", ("?o", "?r"), "put {o} on {r}"),
    ActionTemplate("heatobject", ("?o", "?r"), "heat {o} with {r}"),
    ActionTemplate("coolobject", ("?o", "?r"), "cool {o} with {r}"),
    ActionTemplate("cleanobject", ("?o", "?r"), "clean {o} with {r}"),
    ActionTemplate("sliceobject", ("?o", "?k", "?r"), "slice {o} with {k}"),
    ActionTemplate("toggleobject", ("?l", "?r"), "use {l}"),
)


@lru_cache(maxsize=1)
def ground_truth_domain():
    return parse_domain(domain_path("household/domain.pddl").read_text())


def _held(env) -> Optional[str]:
    held = env.state.by_predicate.get("holds", ())
    return next(iter(held))[1] if held else None


def _not_in(args, env) -> str:
    return f"The {env.display(args[0])} is not {env.preposition(args[1])} the {env.display(args[1])}."


MESSAGES = {
    ("atlocation", True): "You are not at the {0}; go to it first.",
    ("=", False): "You are already at the {0}.",
    ("openable", True): "The {0} cannot be opened or closed.",
    ("opened", False): "The {0} is already open.",
    ("opened", True): "The {0} is closed.",
    ("inreceptacle", True): _not_in,
    ("handempty", True): lambda args, env: (
        f"You are already holding the {env.display(_held(env))}; put it somewhere first."),
    ("holds", True): "You are not holding the {0}.",
    ("heater", True): "The {0} cannot heat things.",
    ("cooler", True): "The {0} cannot cool things.",
    ("washer", True): "You can't clean things in the {0}.",
    ("heatable", True): "The {0} cannot be heated.",
    ("coolable", True): "The {0} cannot be cooled.",
    ("cleanable", True): "The {0} cannot be cleaned.",
    ("sliceable", True): "The {0} cannot be sliced.",
    ("sharp", True): "The {0} is not sharp enough to slice anything.",
    ("lamp", True): "The {0} is not something you can turn on.",
}


class Household(PDDLWorldEnv):
    """``Household(receptacles=20, difficulty="heat", seed=0)``."""

    id = "household"
    #: the values an option takes, read by ``pddlkit bench`` before a sweep runs (see
    #: :func:`pddlkit.bench.resolve.check_env_options`)
    option_choices = {"difficulty": (*DIFFICULTIES, *TASK_TYPES)}
    option_bounds = {"receptacles": (8, 60)}
    option_help = {"receptacles": "number of receptacles, 8 to 60",
                   "difficulty": "a PDDLego+ group (basic&use, clean, cool, heat, slice+) or "
                                 "one task type (default: any)",
                   "terse": "answer refused commands as ALFWorld does (\"Nothing happens.\")"}
    META_COMMANDS = ("look", "inventory", "examine {x}")
    MESSAGES = MESSAGES

    def __init__(self, receptacles: int = 20, difficulty: Optional[str] = None,
                 seed: Optional[int] = 0, *, terse: bool = False, max_steps: int = 50) -> None:
        if not 8 <= receptacles <= 60:
            raise ValueError(f"receptacles must be between 8 and 60, got {receptacles}")
        if difficulty is not None and difficulty not in DIFFICULTIES and difficulty not in TASK_TYPES:
            raise ValueError(f"unknown difficulty {difficulty!r}; use one of "
                             f"{', '.join(DIFFICULTIES)} or a task type ({', '.join(TASK_TYPES)})")
        self.receptacles = receptacles
        self.difficulty = difficulty
        super().__init__(ground_truth_domain(), None, TEMPLATES, terse=terse,
                         max_steps=max_steps, seed=seed)
        self.task_type = ""
        self._task = ""
        self.openable: set[str] = set()
        self.receptacle_names: frozenset = frozenset()

    # ------------------------------------------------------------------ generation

    def generate(self, rng: random.Random) -> Problem:
        kinds = DIFFICULTIES.get(self.difficulty, (self.difficulty,)) if self.difficulty \
            else TASK_TYPES
        task_type = rng.choice(kinds)
        classes = list(REQUIRED)
        optional = [c for c in RECEPTACLES if c not in SINGLETONS]
        while len(classes) < self.receptacles:
            classes.append(rng.choice(optional))
        counts: dict[str, int] = {}
        recs = []
        for c in sorted(classes, key=lambda c: list(RECEPTACLES).index(c)):
            counts[c] = counts.get(c, 0) + 1
            recs.append((f"{c}_{counts[c]}", c))
        rec_class = dict(recs)
        surfaces = [r for r, c in recs if c not in ("microwave", "toaster", "coffeemachine",
                                                    "sinkbasin", "garbagecan")]
        objects: list[tuple[str, str, str]] = []  # (name, class, receptacle)
        ocount: dict[str, int] = {}

        def add(cls: str, where: Optional[str] = None) -> str:
            ocount[cls] = ocount.get(cls, 0) + 1
            name = f"{cls}_{ocount[cls]}"
            objects.append((name, cls, where or rng.choice(surfaces)))
            return name

        add("desklamp", next(r for r, c in recs if c == "desk"))
        for _ in range(max(6, int(self.receptacles * 1.2))):
            add(rng.choice(OBJECT_CLASSES))
        # the task: an object class and a target receptacle class it is not already in
        need = {"pick_clean_then_place": CLEANABLE, "pick_heat_then_place": HEATABLE,
                "pick_cool_then_place": COOLABLE, "slice_and_place": SLICEABLE,
                "look_at_obj_in_light": set(EXAMINABLE)}.get(task_type, set(OBJECT_CLASSES) - SHARP)
        target_class = rng.choice(sorted(need))
        present = [o for o in objects if o[1] == target_class]
        for _ in range(max(0, (2 if task_type == "pick_two_obj_and_place" else 1) - len(present))):
            add(target_class)
        if task_type == "slice_and_place" and not any(o[1] in SHARP for o in objects):
            add("knife")
        target_rec = rng.choice([c for c in SURFACES_FOR_GOALS if c in counts])
        # no object of the target class may start where the goal wants it
        allowed = [r for r in surfaces if rec_class[r] != target_rec]
        objects = [(n, c, rng.choice(allowed) if c == target_class and rec_class[w] == target_rec
                    else w) for n, c, w in objects]
        self.task_type, self.target = task_type, (target_class, target_rec)
        self._task = task_sentence(task_type, target_class, target_rec)
        self.openable = {r for r, c in recs if RECEPTACLES[c][0]}
        self.receptacle_names = frozenset(r for r, _ in recs) | {START}
        return self._problem(recs, objects, task_type, target_class, target_rec)

    def _problem(self, recs, objects, task_type, tclass, trec) -> Problem:
        """The episode's problem, built as pddlkit's model directly: a reset writes no PDDL
        text and parses none (``write_problem(env.problem)`` gives the text)."""
        init = [Atom("atlocation", (START,)), Atom("handempty")]
        for r, c in recs:
            init.append(Atom("receptacletype", (r, c)))
            openable, role = RECEPTACLES[c]
            if openable:
                init.append(Atom("openable", (r,)))
            if role:
                init.append(Atom(role, (r,)))
        for name, c, where in objects:
            init += [Atom("objecttype", (name, c)), Atom("inreceptacle", (name, where))]
            for prop, members in (("heatable", HEATABLE), ("coolable", COOLABLE),
                                  ("cleanable", CLEANABLE), ("sliceable", SLICEABLE),
                                  ("sharp", SHARP)):
                if c in members:
                    init.append(Atom(prop, (name,)))
            if c == "desklamp":
                init.append(Atom("lamp", (name,)))
        obj, rec = TypedName("?o", ("obj",)), TypedName("?r", ("receptacle",))
        if task_type == "look_at_obj_in_light":
            goal = Exists((obj,), And((Atom("objecttype", ("?o", tclass)),
                                       Atom("examined", ("?o",)))))
        elif task_type == "pick_two_obj_and_place":
            goal = Exists((obj, TypedName("?p", ("obj",)), rec), And((
                Atom("objecttype", ("?o", tclass)), Atom("objecttype", ("?p", tclass)),
                Not(Atom("=", ("?o", "?p"))), Atom("receptacletype", ("?r", trec)),
                Atom("inreceptacle", ("?o", "?r")), Atom("inreceptacle", ("?p", "?r")))))
        else:
            state_of = {"pick_clean_then_place": "isclean", "pick_heat_then_place": "ishot",
                        "pick_cool_then_place": "iscool", "slice_and_place": "issliced"}
            treated = (Atom(state_of[task_type], ("?o",)),) if task_type in state_of else ()
            goal = Exists((obj, rec), And((Atom("objecttype", ("?o", tclass)), *treated,
                                           Atom("receptacletype", ("?r", trec)),
                                           Atom("inreceptacle", ("?o", "?r")))))
        otypes = sorted({c for _, c, _ in objects} | {tclass})
        rtypes = sorted({c for _, c in recs})
        names = [(START, "receptacle"), *((r, "receptacle") for r, _ in recs),
                 *((n, "obj") for n, _, _ in objects), *((t, "otype") for t in otypes),
                 *((t, "rtype") for t in rtypes)]
        return Problem(f"household-{self.receptacles}-{self.seed}", "household",
                       objects=tuple(TypedName(n, (t,)) for n, t in names), init=tuple(init),
                       goal=goal)

    # ------------------------------------------------------------------ rendering

    @property
    def task(self) -> str:
        return self._task

    def here(self) -> str:
        return next(iter(self.state.by_predicate["atlocation"]))[1]

    def preposition(self, receptacle: Optional[str]) -> str:
        return "in" if receptacle in self.openable or (receptacle or "").startswith(
            ("sinkbasin", "garbagecan")) else "on"

    def contents(self, receptacle: str) -> list[str]:
        return sorted(f[1] for f in self.state.atoms_with("inreceptacle", 2, receptacle))

    def _listing(self, items: list[str]) -> str:
        shown = [f"a {self.display(i)}" for i in items]
        if not shown:
            return "nothing"
        return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + ", and " + shown[-1]

    def _at_description(self, r: str) -> str:
        name = self.display(r)
        if r in self.openable and ("opened", r) not in self.state.atoms:
            return f"The {name} is closed."
        if r in self.openable:
            return f"The {name} is open. In it, you see {self._listing(self.contents(r))}."
        return f"On the {name}, you see {self._listing(self.contents(r))}."

    def _receptacles(self) -> list[str]:
        return sorted((f[1] for f in self.state.by_predicate.get("receptacletype", ())),
                      key=_natural)

    def intro(self) -> str:
        return ("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking "
                f"quickly around you, you see {self._listing(self._receptacles())}.\n\n"
                f"Your task is to: {self.task}")

    def describe(self) -> str:
        r = self.here()
        if r == START:
            return (f"You are in the middle of a room. Looking quickly around you, you see "
                    f"{self._listing(self._receptacles())}.")
        return f"You are facing the {self.display(r)}. " + self._at_description(r)

    def feedback(self, action: GroundAction, before: State) -> str:
        a, d = action.args, self.display
        name = action.name
        if name == "gotolocation":
            return f"You arrive at the {d(a[1])}. " + self._at_description(a[1])
        if name == "openobject":
            return f"You open the {d(a[0])}. " + self._at_description(a[0])
        if name == "closeobject":
            return f"You close the {d(a[0])}."
        if name == "pickupobject":
            return f"You pick up the {d(a[0])} from the {d(a[1])}."
        if name == "putobject":
            return f"You move the {d(a[0])} to the {d(a[1])}."
        if name in ("heatobject", "coolobject", "cleanobject"):
            verb = name[:-len("object")]
            return f"You {verb} the {d(a[0])} using the {d(a[1])}."
        if name == "sliceobject":
            return f"You slice the {d(a[0])} with the {d(a[1])}."
        if name == "toggleobject":
            held = _held(self)
            return f"You turn on the {d(a[0])}." + (
                f" You examine the {d(held)} in its light." if held else "")
        return super().feedback(action, before)  # pragma: no cover

    def meta(self, command: str) -> Optional[str]:
        if command in ("look", "look around"):
            return self.describe()
        if command in ("inventory", "i"):
            held = _held(self)
            return f"You are carrying: a {self.display(held)}." if held else \
                "You are not carrying anything."
        if command.startswith("examine "):
            return self._examine(command[len("examine "):])
        return None

    def _examine(self, shown: str) -> str:
        name = self.object_name(shown)
        here = self.here()
        if name == here:
            return self._at_description(here)
        visible = name == _held(self) or (
            name in self.contents(here) and (here not in self.openable
                                             or ("opened", here) in self.state.atoms))
        if not visible:
            return f"You don't see any {shown.strip()} here."
        states = [w for p, w in (("ishot", "hot"), ("iscool", "cold"), ("isclean", "clean"),
                                 ("issliced", "sliced"), ("ison", "turned on"))
                  if (p, name) in self.state.atoms]
        return f"This is a {'' if not states else ', '.join(states) + ' '}{self.display(name)}."

    def unknown_object(self, shown: str, parameter: str) -> str:
        # the same words for an object that does not exist and one not seen yet
        return f"You don't see any {shown.strip()} here."

    def perceived(self, name: str) -> bool:
        # every receptacle is listed on arrival; objects must have been seen
        return name in self.receptacle_names or super().perceived(name)

    def visible(self) -> set:
        """What the agent holds, and what lies in the receptacle it faces when that one is
        open or cannot be closed (receptacles are always known: see :meth:`perceived`)."""
        seen = set()
        held = _held(self)
        if held:
            seen.add(held)
        here = self.here()
        if here not in self.openable or ("opened", here) in self.state.atoms:
            seen.update(self.contents(here))
        return seen


def _natural(name: str):
    base, _, n = name.rpartition("_")
    return (base, int(n)) if n.isdigit() else (name, 0)


