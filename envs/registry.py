"""Environment ids, like gymnasium's registry: ``make("coin-collector", rooms=7, seed=0)``.

Every id the front ends play is registered here, with what gymnasium's ``EnvSpec`` holds:
the entry point, default keyword arguments (``nethack-drink`` is ``NetHackTask`` with
``task="drink"``), a step budget (``max_episode_steps``: ``make`` passes it to the
environment's own budget keyword, :attr:`EnvSpec.budget`, when it has one, so the front ends'
``action_budget``, ``max_actions``, ``max_cycles``, ``max_keys`` and ``max_steps`` are one
budget under one name; otherwise it wraps the environment in :class:`TimeLimit`, which ends an
episode as *truncated* after that many steps), and a one-line summary. ``kind`` says what ``make`` builds: ``"text"``, a world
played step by step in words that a formalizer can write PDDL for (the :class:`~.api.TextEnv`
protocol: CoinCollector, the household, TextWorld, ALFWorld); ``"game"``, an environment with
an interface of its own (skills, build orders, keystrokes: SC2, NetHack, the crafting worlds,
MicroRTS), played only by the agents that name it; or ``"instances"``, a program task's
training and held-out instances (:class:`~.instance_sets.InstanceSplit`, what IPP refines
one program on). An agent that names no environments (PDDLego+, PlanGen) plays the text
worlds, so a sweep never pairs it with a game it cannot play. A front end asks the registry which ids it can play
(:func:`ids`), so no front end keeps its own table of ids.

Installed packages add ids through the entry-point group ``pddlkit.envs`` (an entry point is
a class or factory: ``myenv = "mypkg.envs:MyEnv"``); ``register`` adds one at run time.
``pddlkit envs`` lists them all.

``register`` checks a text environment before it takes the id (:func:`~.api.check_env`, once
per class: it builds one with the spec's kwargs, resets it and steps it once), so an
environment that lacks a method or returns the wrong shape is refused with the problem and
its fix, not found out by the first run that plays it. Entry points are not built when
listed (``pddlkit envs`` must stay fast, and a broken plugin must not break the listing);
``formalize_and_plan`` and ``run_episode`` check those when they meet them.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import typing
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any, Callable, Optional, Union

#: the contract's kinds, offers and options (see :mod:`pddlkit.agents.contract`)
from pddlkit.agents.contract import KINDS, OFFERS, EnvOption
from pddlkit.plugins import entry_points_of

ENTRY_POINT_GROUP = "pddlkit.envs"


class UnknownEnvError(LookupError):
    def __init__(self, env_id: str, known: list[str]) -> None:
        self.env_id, self.known = env_id, list(known)
        close = difflib.get_close_matches(env_id, known, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        super().__init__(f"unknown environment {env_id!r}{hint} Known: {', '.join(known)}")

    def __reduce__(self):
        # rebuilt from its own arguments: the default (the message alone) cannot be unpickled,
        # which broke a bench worker pool that raised it
        return type(self), (self.env_id, self.known), self.__dict__


@dataclass(frozen=True)
class EnvSpec:
    id: str
    entry_point: Union[str, Callable[..., Any]]
    summary: str = ""
    kwargs: dict = field(default_factory=dict)
    max_episode_steps: Optional[int] = None
    kind: str = "text"
    #: the keyword of the environment's own step budget (craft's ``max_actions``, NetHack's
    #: ``max_keys``, MicroRTS's ``max_cycles``, ...): ``make(max_episode_steps=N)`` passes N
    #: there, so the environment counts steps its own way; None: a TimeLimit counts them
    budget: Optional[str] = None
    #: help text per option, over the class's own ``option_help``
    option_help: dict = field(default_factory=dict)
    #: what it offers agents: "commands", "domain", "truth", "failures"
    #: (:mod:`pddlkit.agents.contract`)
    offers: tuple = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: kind must be one of {', '.join(KINDS)}, got "
                             f"{self.kind!r}")
        unknown = [o for o in self.offers if o not in OFFERS]
        if unknown:
            raise ValueError(f"{self.id}: offers must be among {', '.join(OFFERS)}, got "
                             f"{', '.join(map(repr, unknown))}")

    @property
    def target(self) -> str:
        ep = self.entry_point
        return ep if isinstance(ep, str) else f"{ep.__module__}:{ep.__qualname__}"

    def load(self) -> Callable[..., Any]:
        return _load(self.entry_point)

    def options(self) -> dict[str, Any]:
        """The keyword options ``make`` takes for this id, with their defaults (this spec's
        own kwargs are fixed, so not among them)."""
        try:
            params = inspect.signature(self.load()).parameters
        except (TypeError, ValueError, ImportError):
            return {}
        return {n: (None if p.default is inspect.Parameter.empty else p.default)
                for n, p in params.items()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and n not in self.kwargs
                and n != "self"}


    def declared_options(self) -> list[EnvOption]:
        """Every option ``make`` takes for this id (its factory's keyword parameters, the
        spec's fixed kwargs left out), with its default, plain type (from the annotation, else
        the default's; None: any), help (the spec's ``option_help``, else the class's), the
        values it takes (the class's ``option_choices``) and a number's bounds (the class's
        ``option_bounds``: ``{"rooms": (1, 100)}``)."""
        try:
            factory = self.load()
            params = inspect.signature(factory).parameters
        except (TypeError, ValueError, ImportError, AttributeError):
            return []
        try:
            hints = typing.get_type_hints(factory.__init__ if inspect.isclass(factory)
                                          else factory)
        except Exception:   # an annotation that cannot be resolved: the defaults' types
            hints = {}
        helps = {**dict(getattr(factory, "option_help", None) or {}), **self.option_help}
        choices = getattr(factory, "option_choices", None) or {}
        bounds = getattr(factory, "option_bounds", None) or {}
        out = []
        for name, p in params.items():
            if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or name == "self" \
                    or name in self.kwargs:
                continue
            default = None if p.default is p.empty else p.default
            low, high = tuple(bounds.get(name, (None, None)))
            out.append(EnvOption(name, default, _plain(hints.get(name), default),
                                 str(helps.get(name, "")), tuple(choices.get(name, ())),
                                 low, high))
        return out

    def make(self, **options: Any) -> Any:
        """``make(self.id, **options)``: the one way to build this environment."""
        return make(self.id, **options)

    def step_budget(self) -> Optional[tuple[str, Any]]:
        """(keyword, default) of the environment's own step budget, or None."""
        if self.budget is None:
            return None
        return self.budget, self.max_episode_steps or self.options().get(self.budget)


def _plain(hint: Any, default: Any) -> Optional[type]:
    """int, float, str or bool from an annotation (``Optional[int]`` is int), else from the
    default's type; None for anything else (a dict, a path, a mapping)."""
    args = typing.get_args(hint)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        hint = rest[0] if len(rest) == 1 else None
    if hint in (int, float, str, bool):
        return hint
    if isinstance(hint, type) and issubclass(hint, PurePath):
        return str       # a path is given as text
    if hint is None and default is not None and type(default) in (int, float, str, bool):
        return type(default)
    return None


def _spec(env_id: str, target: str, summary: str, kind: str = "text",
          budget: Optional[str] = None, offers: tuple = (), **kwargs: Any) -> EnvSpec:
    if kind == "text" and env_id.split("-")[0] in GAMES:
        kind = "game"
    return EnvSpec(env_id, target, summary, kwargs, None, kind, budget, offers=offers)


#: the shipped environments with an interface of their own (kind ``"game"``), by id's stem
GAMES = ("sc2", "nethack", "craft", "crafter", "microrts")


#: NetHack's tasks (CoPiC), one id each: ``nethack-<task>``
NETHACK_TASKS = {"drink": "drink from a potion the character holds.",
                 "open-box": "find a box and open it.",
                 "exp-level-3": "reach experience level 3."}
#: MiniGrid's tasks (IPP, the real minigrid package), one id each: ``minigrid-<task>``
MINIGRID_TASKS = {"unlock": "MiniGrid Unlock (IPP, the real minigrid package): open the locked "
                            "door.",
                  "doorkey": "MiniGrid DoorKey 8x8 (IPP): get the key, open the door, reach "
                             "the goal.",
                  "unlockpickup": "MiniGrid UnlockPickup (IPP): open the door and pick up the "
                                  "box behind it."}

#: a PDDLWorldEnv: it knows its domain and truth, and says why a command failed in the
#: domain's terms (``info["failed"]``)
WORLD = ("commands", "domain", "truth", "failures")
#: the environments pddlkit ships: id, entry point (in ``pddlkit.envs``), the keyword of its
#: own step budget (None: a TimeLimit counts), kind, what it offers, summary
TEXT_ENVS = (
    ("coin-collector", "coin_collector:CoinCollector", "max_steps", "pddl", WORLD,
     "CoinCollector (PDDLego+): rooms joined by doors, find the coin and take it."),
    ("household", "household:Household", "max_steps", "pddl", WORLD,
     "A native ALFWorld-like household (PDDLego+ groups, CoPiC and TWOSOME task types)."),
    ("textworld", "textworld_adapter:TextWorldEnv", "max_steps", "text", ("commands",),
     "A TextWorld game (tw-coin_collector, tw-simple, or a compiled file) as a TextEnv."),
    ("alfworld", "alfworld_adapter:ALFWorldEnv", "max_steps", "pddl", ("commands", "domain"),
     "ALFWorld text games (six task types, 120 scenes), built from the alfworld wheel."),
    ("sc2-build", "sc2_build:SC2Build", None, "game", (),
     "StarCraft II unit building (CoPiC): a Terran build order simulator, easy to hard."),
    ("nethack", "nethack:NetHackTask", "max_keys", "game", (),
     "NetHack through NLE (CoPiC): a task of drink, open-box, exp-level-3."),
    ("craft", "craft:CraftWorld", "max_actions", "game", (),
     "DEPS's crafting world: the Minecraft tech tree MT1-MT8 as recipes and tools."),
    ("crafter", "crafter_world:CrafterWorld", "length", "game", (),
     "Crafter (the real package) with skills as goals: collect, place, make."),
    ("microrts", "microrts:MicroRTS", "max_cycles", "game", (),
     "MicroRTS (the real Java engine, PLAP): a planner's side against a built-in bot."),
)

INSTANCE_HELP = {"train": "training instances (default: all of the training half)",
                 "evaluate": "held-out instances (default: all of the held-out half)"}
#: the ids pddlkit ships; entry points and ``register`` add others
BUILTIN: dict[str, EnvSpec] = {s.id: s for s in (
    *(_spec(env_id, f"pddlkit.envs.{target}", summary, kind=kind, budget=budget, offers=offers)
      for env_id, target, budget, kind, offers, summary in TEXT_ENVS),
    *(_spec(f"nethack-{task}", "pddlkit.envs.nethack:NetHackTask",
            f"NetHack through NLE: {text}", budget="max_keys", task=task)
      for task, text in NETHACK_TASKS.items()),
    replace(_spec("grasp", "pddlkit.envs.instance_sets:grasp",
                  "GRASP (IPP): 11x11 energy grids under 8 settings; one program for every "
                  "instance.", kind="instances"),
            option_help={**INSTANCE_HELP, "corpus": "a folder of GRASP's published grids "
                                                    "(default: ../shared/corpus/grasp when "
                                                    "present, else generated ones)"}),
    *(replace(_spec(f"minigrid-{task}", "pddlkit.envs.instance_sets:minigrid", text,
                    kind="instances", task=task), option_help=INSTANCE_HELP)
      for task, text in MINIGRID_TASKS.items()),
)}
_RUNTIME: dict[str, EnvSpec] = {}


def register(env_id: str, entry_point: Union[str, Callable[..., Any]], replace: bool = False,
             *, kwargs: Optional[dict] = None, max_episode_steps: Optional[int] = None,
             summary: str = "", kind: str = "text", budget: Optional[str] = None,
             option_help: Optional[dict] = None, offers: Optional[tuple] = None,
             check: bool = True) -> EnvSpec:
    """Make ``env_id`` build environments with ``entry_point`` ('module:Class' or a
    callable), with default ``kwargs`` and an optional step budget; the whole contract
    (:mod:`pddlkit.agents.contract`) in one call:

    * ``kind``: "text", "pddl" (a text world built on PDDL), "game" or "instances";
    * ``budget``: the keyword of its own step budget (``max_steps``), which ``--max-steps``
      and ``max_episode_steps`` set; None: a TimeLimit counts the steps;
    * ``option_help``: a line of help per option (the options themselves are read from the
      factory's signature; each becomes a flag of ``pddlkit run AGENT --env ID``);
    * ``offers``: "commands", "domain", "truth", "failures" (default: "commands" for a text
      world, all four for a PDDL world, none for a game or instances).

    A text environment is checked first (``check=True``): one is built with ``kwargs`` and run
    once by :func:`~.api.check_env` (reset, the observation's type, admissible commands, one
    step), so an id that cannot be played is refused here with an
    :class:`~.api.EnvCheckError` naming what is missing and the fix, not in the middle of a
    run. Once per class: a class that passed is not built again. ``check=False`` skips it (an
    environment too costly to build twice; run ``check_env`` on one yourself)."""
    if not replace and env_id in _known():
        raise ValueError(f"environment {env_id!r} is already registered (pass replace=True)")
    if offers is None:
        offers = {"text": ("commands",), "pddl": WORLD}.get(kind, ())
    spec = EnvSpec(env_id, entry_point, summary, dict(kwargs or {}), max_episode_steps, kind,
                   budget, dict(option_help or {}), tuple(offers))
    if check and kind in ("text", "pddl"):
        _check_registered(spec)
    _RUNTIME[env_id] = spec
    return spec


def _check_registered(spec: EnvSpec) -> None:
    """Build one environment of ``spec`` and check it (the TextEnv protocol, run once); an
    EnvCheckError naming the problem, with ``register('id')`` as its context."""
    from .api import EnvCheckError, EnvProblem, check_env_once, checked_already, pddlkits_own

    context = f"register({spec.id!r})"
    try:
        factory = spec.load()
    except Exception as exc:
        raise EnvCheckError(spec.target, [EnvProblem(
            "entry_point", f"cannot be loaded: {type(exc).__name__}: {exc}",
            "give 'module:attribute' naming an importable class or factory, or the class "
            "itself")], context) from exc
    if inspect.isclass(factory) and (checked_already(factory) or pddlkits_own(factory)):
        return   # run once per class; pddlkit's own are played by its tests
    name = getattr(factory, "__name__", str(factory))
    try:
        env = factory(**spec.kwargs)
    except Exception as exc:
        raise EnvCheckError(name, [EnvProblem(
            f"{name}(**{spec.kwargs!r})", f"raised {type(exc).__name__}: {exc}",
            "pass kwargs= with what it needs to be built, or register(..., check=False) and "
            "run pddlkit.envs.api.check_env on one you build")], context) from exc
    try:
        if not pddlkits_own(env):
            check_env_once(env, purpose="play", context=context, fresh=True)
    finally:
        close = getattr(env, "close", None)
        if callable(close):
            close()


def _known() -> dict[str, EnvSpec]:
    table: dict[str, EnvSpec] = dict(BUILTIN)
    for ep in entry_points_of(ENTRY_POINT_GROUP):
        table.setdefault(ep.name, EnvSpec(ep.name, ep.value))
    table.update(_RUNTIME)
    return table


def _load(target: Union[str, Callable[..., Any]]) -> Callable[..., Any]:
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def spec(env_id: str) -> EnvSpec:
    table = _known()
    if env_id not in table:
        raise UnknownEnvError(env_id, sorted(table))
    return table[env_id]


def ids(kind: Optional[str] = None, prefix: str = "") -> tuple[str, ...]:
    """Registered ids (of one ``kind``, starting with ``prefix``), sorted."""
    return tuple(sorted(i for i, s in _known().items()
                        if (kind is None or s.kind == kind) and i.startswith(prefix)))


def make(env_id: str, *, max_episode_steps: Optional[int] = None, **kwargs: Any):
    """Build ``env_id`` with its options (rooms=, receptacles=, seed=, ...) over the spec's
    default kwargs. A step budget (``max_episode_steps``, or the spec's) goes to the
    environment's own budget keyword when it has one (:attr:`EnvSpec.budget`), and otherwise
    wraps a text environment in :class:`TimeLimit`: one name for five budgets. A keyword the environment does not take is a
    TypeError naming the ones it does. As gymnasium's, the environment's ``spec`` is its
    :class:`EnvSpec` with the options it was made with (``env.spec.kwargs``)."""
    s = spec(env_id)
    factory = s.load()
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a factory whose signature cannot be read takes its chance
        params = {}
    if params and not any(p.kind == p.VAR_KEYWORD for p in params.values()):
        unknown = [k for k in kwargs if k not in params]
        if unknown:
            raise TypeError(f"{env_id} has no option {', '.join(map(repr, unknown))}; its "
                            f"options are: {', '.join(s.options()) or '(none)'}")
    budget = max_episode_steps if max_episode_steps is not None else s.max_episode_steps
    if budget is not None and s.budget is not None and (not params or s.budget in params):
        kwargs = {**kwargs, s.budget: budget}   # the environment's own count
        budget = None
    made_with = {**s.kwargs, **kwargs}
    env = factory(**made_with)
    try:   # gymnasium's env.spec: the id and the options this environment was made with
        if getattr(env, "spec", None) is None:
            env.spec = replace(s, kwargs=made_with)
    except (AttributeError, TypeError):   # a class with __slots__ or a read-only attribute
        pass
    if budget is not None and s.kind in ("text", "pddl", "game"):
        env = TimeLimit(env, budget)
    return env


def list_envs() -> list[EnvSpec]:
    """Every registered id's spec, sorted, each with its summary (the factory's first
    docstring line when the spec has none)."""
    out = []
    for env_id, s in sorted(_known().items()):
        summary = s.summary
        if not summary:
            try:
                doc = (s.load().__doc__ or "").strip().splitlines()
                summary = doc[0] if doc else ""
            except Exception as exc:  # a broken plugin must not break the listing
                summary = f"(cannot load: {type(exc).__name__}: {exc})"
        out.append(replace(s, summary=summary))
    return out


class TimeLimit:
    """gymnasium's TimeLimit for text environments: after ``max_episode_steps`` steps the
    step is returned *truncated* (``info["TimeLimit.truncated"]`` set); everything else is
    the wrapped environment's (attributes pass through)."""

    def __init__(self, env: Any, max_episode_steps: int) -> None:
        if max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be 1 or more, got {max_episode_steps}")
        self.env = env
        self.max_episode_steps = int(max_episode_steps)
        self.elapsed = 0

    def reset(self, *args: Any, **kwargs: Any):
        self.elapsed = 0
        return self.env.reset(*args, **kwargs)

    def step(self, command: str):
        step = self.env.step(command)
        self.elapsed += 1
        if self.elapsed >= self.max_episode_steps and not step.terminated:
            info = dict(step.info)
            info["TimeLimit.truncated"] = True
            step = type(step)(step.observation, step.reward, step.terminated, True, info)
        return step

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)
