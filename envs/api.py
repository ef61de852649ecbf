"""The text-environment API: gymnasium's conventions, adapted to text.

``reset(seed)`` returns ``(observation, info)``; ``step(command)`` returns a :class:`Step`
(observation, reward, terminated, truncated, info), which unpacks like gymnasium's 5-tuple.
``task`` is the goal sentence. ``snapshot()``/``restore()`` save and return to a state (search,
what-if checks). ``action_schema`` lists the fixed PDDL action signatures with the command
template of each (``move(?from ?to ?dir)`` <-> ``"move {dir}"``), so that a plan maps to
commands mechanically, and commands back to ground actions.

``info`` always holds ``won`` (bool), ``admissible_commands`` (computed when first read: it is
the one costly part of a step), ``error`` (a code such as ``"precondition"`` or
``"unknown-command"`` when the command failed, else None) and ``steps``.

**Done and won** (:func:`ending`), for pddlkit's environments and a user's own alike, as
gymnasium users write them: a step is *won* when ``info["won"]`` is true, or, when the info
has no ``"won"``, when ``terminated`` is true; an environment that can end in a loss says
``info["won"] = False`` with ``terminated=True``. The older ``env.won`` attribute is still
accepted (a bool that is True means won). A step is *done* when it is won, terminated or
truncated: the loops stop there and ask the LLM nothing more. Before, only ``env.won`` and
``info["won"]`` were read, so an own environment that said ``terminated=True`` was played on
after its win. A step may return a :class:`Step` or gymnasium's 5-tuple (:func:`as_step`).

**A complete list of commands** (optional): an environment whose ``admissible_commands()``
lists every command that would succeed now (computed from its state, not a sample or a
hint) sets ``admissible_complete = True``. The modular formalizer's schema check then reads a
command the list leaves out as one the world would refuse (evidence against a schema that
allows it). pddlkit's own simulators set it, and TextWorld's adapter on its coin games (their
list checked against the game on dev seeds); ALFWorld's adapter and TextWorld's other games
do not (their lists were not checked for completeness), nor should an environment whose
list is partial: a command wrongly left out would refute a right schema.

**Another environment's learned domains** (optional): an environment whose commands are
another's, word for word, sets ``learned_domains_of`` to that environment's id, and
``--reuse-domain`` chooses among the library's entries learned there (with the aspects their
predicates were learned under: ``formalizers/library.py``). TextWorld's coin games set
``"coin-collector"``: their ``move {dir}`` and ``take {i}`` are CoinCollector's (no door
command). Before, such a game's rows were given the entry's file (``--domain``), which
freezes a domain but plays none of what the entry was learned with.

**The checker** (:func:`check_env`, modelled on gymnasium's): one function that looks for every
piece an environment needs and runs it once (``reset``, the observation's type,
``admissible_commands()``, one ``step``), and raises one :class:`EnvCheckError` whose
``problems`` say where, what and the fix. ``register()`` runs it on an instance it builds;
``formalize_and_plan`` and ``run_episode`` run it through :func:`check_env_once`, on a copy so
the caller's episode is untouched, once per class (the attributes once per instance).
"""

from __future__ import annotations

import numbers
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Protocol, Sequence, runtime_checkable


@dataclass(frozen=True)
class ActionTemplate:
    """A PDDL action and the command that performs it: ``{param}`` names a parameter (without
    its ``?``). Parameters absent from the template are implied by the state (``move {dir}``
    leaves ``?from`` and ``?to`` to the agent's room and the exit)."""

    action: str
    parameters: tuple[str, ...]
    template: str

    @property
    def shown(self) -> tuple[str, ...]:
        return tuple(re.findall(r"\{([^}]+)\}", self.template))

    def command(self, args: Sequence[str], display: Callable[[str], str] = lambda s: s) -> str:
        """The command for ground arguments (in parameter order)."""
        values = {p.lstrip("?"): display(a) for p, a in zip(self.parameters, args)}
        return self.template.format(**values)

    def pattern(self) -> re.Pattern:
        regex = ""
        for part in re.split(r"(\{[^}]+\}|\s+)", self.template):
            if not part:
                continue
            if part.startswith("{"):
                regex += f"(?P<{part[1:-1].replace('-', '_')}>.+?)"
            elif part.isspace():
                regex += r"\s+"
            else:
                regex += re.escape(part)
        return re.compile(r"^\s*" + regex + r"\s*$", re.I)

    def __str__(self) -> str:
        return f"{self.action}({' '.join(self.parameters)}) <-> {self.template!r}"


class LazyCommands(Sequence):
    """The admissible commands, computed on first use (a step that never reads them is fast)."""

    def __init__(self, compute: Callable[[], list[str]]) -> None:
        self._compute = compute
        self._value: Optional[list[str]] = None

    def _get(self) -> list[str]:
        if self._value is None:
            self._value = self._compute()
        return self._value

    def __getitem__(self, i):
        return self._get()[i]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __contains__(self, item) -> bool:
        return item in self._get()

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def __repr__(self) -> str:
        return repr(self._get()) if self._value is not None else "LazyCommands(<not computed>)"


@dataclass
class Step:
    """One step's outcome; ``obs, reward, terminated, truncated, info = env.step(cmd)`` works."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict = field(default_factory=dict)

    def __iter__(self):
        return iter((self.observation, self.reward, self.terminated, self.truncated, self.info))

    @property
    def won(self) -> bool:
        return bool(self.info.get("won"))

    @property
    def error(self) -> Optional[str]:
        return self.info.get("error")


@runtime_checkable
class TextEnv(Protocol):
    """What formalizers and agents rely on; native PDDL worlds and adapters both implement it.

    Optional, on the class: ``option_choices = {"difficulty": ("easy", "hard")}``, the values
    a constructor option takes, so ``pddlkit bench`` refuses a misspelt level before a sweep
    starts instead of failing each of its cells (``Household``, ``SC2Build``, ...)."""

    id: str
    task: str
    action_schema: tuple[ActionTemplate, ...]

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        ...

    def step(self, command: str) -> Step:
        ...

    def snapshot(self) -> Any:
        ...

    def restore(self, snapshot: Any) -> None:
        ...

    def admissible_commands(self) -> list[str]:
        ...


def plan_commands(schema: Sequence[ActionTemplate], plan,
                  display: Callable[[str], str] = lambda s: s.replace("_", " ")) -> list[str]:
    """The commands of a plan through the command templates of ``schema``: its steps (ground
    actions or plan steps), ``(name, *args)`` tuples or ``"(name arg ...)"`` strings. Every
    environment's plans become commands here (``PDDLWorldEnv.commands_for_plan``, and
    environments of the user's own that have none). A KeyError names an action with no
    template."""
    templates = {}
    for t in schema:
        templates.setdefault(t.action, t)
    out = []
    for step in getattr(plan, "steps", plan):
        if hasattr(step, "args"):
            name, args = step.name, tuple(step.args)
        else:
            name, *rest = step.strip("() \n").split() if isinstance(step, str) else step
            args = tuple(rest)
        if name not in templates:
            raise KeyError(f"no command template for action {name!r}")
        out.append(templates[name].command(args, display))
    return out


def info_dict(won: bool, steps: int, error: Optional[str],
              admissible: Callable[[], list[str]], **extra) -> dict:
    return {"won": won, "steps": steps, "error": error,
            "admissible_commands": LazyCommands(admissible), **extra}


def jsonable(info: Mapping) -> dict:
    """``info`` with lazy values made plain lists (for logs and episode records)."""
    return {k: list(v) if isinstance(v, LazyCommands) else v for k, v in info.items()}


# ----------------------------------------------------------------------------- done and won


def _bool(value: Any) -> Optional[bool]:
    """``value`` as a bool when it is one (numpy's ``bool_`` included); None otherwise."""
    if isinstance(value, bool):
        return value
    if type(value).__name__ == "bool_":
        return bool(value)
    return None


def env_won(env: Any) -> bool:
    """The older way to say the task is won, still accepted: a bool attribute ``env.won``.

    Only a real bool counts, so a method or a property of another meaning named ``won`` is
    never read as a win."""
    return _bool(getattr(env, "won", None)) is True


@dataclass(frozen=True)
class Ending:
    """Whether an episode is over after a step, and how: ``reason`` is ``"won"``,
    ``"terminated"`` (over, not won: a loss) or ``"truncated"`` (stopped by a step limit),
    None while it goes on."""

    done: bool
    won: bool
    reason: Optional[str] = None


GOING_ON = Ending(False, False)


def ending(step: "Step", env: Any = None) -> Ending:
    """The done/won contract, read from what ``step()`` returned (and ``env``).

    Won: ``info["won"]`` when the info holds it; otherwise ``terminated`` (a text task's
    terminal state is its goal unless the info says otherwise, as gymnasium users write it);
    or, either way, ``env.won`` is True (the older attribute). Done: won, terminated or
    truncated. An environment that can end in a loss says ``info["won"] = False`` with
    ``terminated=True``."""
    info = step.info if isinstance(step.info, Mapping) else {}
    said = info.get("won")
    won = bool(said) if said is not None else bool(step.terminated)
    if won or env_won(env):
        return Ending(True, True, "won")
    if step.terminated:
        return Ending(True, False, "terminated")
    if step.truncated:
        return Ending(True, False, "truncated")
    return GOING_ON


def ending_at_reset(info: Any, env: Any = None) -> Ending:
    """Whether the task is won before any step (its goal already holds): ``info["won"]`` or
    ``env.won``."""
    said = info.get("won") if isinstance(info, Mapping) else None
    return Ending(True, True, "won") if bool(said) or env_won(env) else GOING_ON


def as_step(result: Any, where: str = "step()", env: Any = None) -> "Step":
    """What ``step()`` returned, as a :class:`Step`: a Step as it is, anything with a Step's
    five attributes, or gymnasium's ``(observation, reward, terminated, truncated, info)``.
    Anything else is an :class:`EnvCheckError` naming what came back and the fix."""
    step, problems = _read_step(result, where)
    if step is None:
        raise EnvCheckError(type(env).__name__ if env is not None else "the environment",
                            problems, where)
    return step


def _read_step(result: Any, where: str) -> tuple[Optional["Step"], list["EnvProblem"]]:
    """(the Step, []) or (None, the problems that make ``result`` unusable as one)."""
    fix = ("return pddlkit.envs.api.Step(observation, reward, terminated, truncated, info), "
           "or gymnasium's 5-tuple (observation, reward, terminated, truncated, info)")
    if isinstance(result, Step):
        step = result
    elif all(hasattr(result, a) for a in ("observation", "reward", "terminated", "truncated",
                                          "info")):
        step = Step(result.observation, result.reward, result.terminated, result.truncated,
                    result.info)
    elif isinstance(result, (tuple, list)) and len(result) == 5:
        step = Step(*result)
    else:
        return None, [EnvProblem(where, f"returned {_shown(result)}", fix)]
    problems = []
    if not isinstance(step.observation, str):
        problems.append(EnvProblem(where, f"the observation is a "
                                          f"{type(step.observation).__name__}, not text",
                                   "return the observation as a str"))
    if step.info is None:
        step = Step(step.observation, step.reward, step.terminated, step.truncated, {})
    elif not isinstance(step.info, Mapping):
        problems.append(EnvProblem(where, f"info is a {type(step.info).__name__}, not a dict",
                                   "return a dict as info ({} will do)"))
    return (None if problems else step), problems


def _shown(value: Any, n: int = 80) -> str:
    text = repr(value)
    return f"a {type(value).__name__}: {text if len(text) <= n else text[:n] + '...'}"


# ----------------------------------------------------------------------------- the checker


@dataclass(frozen=True)
class EnvProblem:
    """One thing an environment lacks or gets wrong: ``where`` (the attribute, or the call
    that went wrong, ``step('go to kitchen')``), ``what`` is wrong, and the ``fix``."""

    where: str
    what: str
    fix: str

    def format(self) -> str:
        return f"{self.where}: {self.what}\n      fix: {self.fix}"

    def to_dict(self) -> dict:
        return {"where": self.where, "what": self.what, "fix": self.fix}


class EnvCheckError(TypeError):
    """An environment pddlkit cannot play: ``env`` (its class name), every ``problems`` found
    (:class:`EnvProblem`: where, what, fix), and the ``context`` that checked it
    (``register('lights')``, ``formalize_and_plan``). A TypeError, as the check always was, so
    code that caught that still does; it pickles with its problems (a bench worker may
    raise it)."""

    def __init__(self, env: str, problems: Sequence[EnvProblem], context: str = "check_env"):
        self.env, self.problems, self.context = env, tuple(problems), context
        listed = "\n  - ".join(p.format() for p in self.problems)
        super().__init__(f"{context}: {env} cannot be used as an environment; it lacks or gets "
                         f"wrong:\n  - {listed}\n(examples/own_env.py shows an environment "
                         "with all of them)")

    def __reduce__(self):
        return type(self), (self.env, self.problems, self.context)

    def to_dict(self) -> dict:
        return {"env": self.env, "context": self.context,
                "problems": [p.to_dict() for p in self.problems]}


#: each piece an environment may need, and what to give
NEEDED = {
    "id": "a short name (str), e.g. id = 'lights'",
    "task": "the goal as a sentence (str), e.g. task = 'switch on the light in the study'",
    "action_schema": "a non-empty tuple of ActionTemplate: each PDDL action with the command "
                     "that performs it, e.g. ActionTemplate('go', ('?from', '?to'), "
                     "'go to {to}')",
    "reset": "reset(seed=None) -> (observation, info)",
    "step": "step(command) -> Step(observation, reward, terminated, truncated, info)",
    "admissible_commands": "admissible_commands() -> list[str] (may be empty): what the "
                           "prompts show as the valid actions",
    "snapshot": "snapshot() -> a value restore() takes back (run_episode undoes a failed "
                "plan's commands with it)",
    "restore": "restore(snapshot) -> None",
}
METHODS = ("reset", "step", "admissible_commands", "snapshot", "restore")
#: what each use of an environment needs: ``formalize`` (formalize_and_plan, which shows
#: the LLM the action signatures too), ``play`` (the TextEnv protocol: what ``make(id)``'s
#: callers and run_episode use) and ``act`` (run_plangen)
PURPOSES = {
    "formalize": ("id", "task", "action_schema", "reset", "step", "admissible_commands"),
    "play": ("id", "task", "action_schema", "reset", "step", "admissible_commands", "snapshot",
             "restore"),
    #: an agent that picks commands itself (PlanGen): no schema, no rollback
    "act": ("id", "task", "reset", "step", "admissible_commands"),
}
#: (name, what to give) for formalize_and_plan, as listed in the README
ENV_NEEDS = tuple((name, NEEDED[name]) for name in PURPOSES["formalize"])


@dataclass(frozen=True)
class EnvReport:
    """What a passed check did: ``ran`` says how far it went (``"reset and one step"``, or
    why it ran less), ``stepped`` the command it sent."""

    env: str
    ran: str
    stepped: Optional[str] = None


def _missing_methods(env: Any, purpose: str) -> list[EnvProblem]:
    return [EnvProblem(name, "is missing" if not hasattr(env, name) else "is not callable",
                       NEEDED[name])
            for name in PURPOSES[purpose] if name in METHODS
            and not callable(getattr(env, name, None))]


def _attribute_problems(env: Any, purpose: str) -> list[EnvProblem]:
    problems = [EnvProblem(name, "is missing", NEEDED[name]) for name in PURPOSES[purpose]
                if name not in METHODS and not hasattr(env, name)]
    for name in ("id", "task"):
        if hasattr(env, name) and not isinstance(getattr(env, name), str):
            problems.append(EnvProblem(name, f"is {_shown(getattr(env, name))}", NEEDED[name]))
    schema = getattr(env, "action_schema", ())
    if "action_schema" in PURPOSES[purpose] and hasattr(env, "action_schema") and (
            not schema or not all(isinstance(t, ActionTemplate) for t in schema)):
        problems.append(EnvProblem("action_schema", "is empty or holds something other than "
                                                    "ActionTemplate", NEEDED["action_schema"]))
    if purpose == "formalize" and not hasattr(env, "domain"):
        declared = getattr(env, "action_signatures", None)
        actions = {t.action for t in schema if isinstance(t, ActionTemplate)}
        if not isinstance(declared, dict) or not actions <= set(declared):
            lacking = sorted(actions - set(declared)) if isinstance(declared, dict) else []
            problems.append(EnvProblem(
                "action_signatures",
                "is missing" if declared is None else
                f"has none for {', '.join(lacking)}" if lacking else "is not a dict",
                "the typed parameters of each action, shown to the LLM, e.g. action_signatures "
                "= {'go': '?from - room ?to - room'}; or a PDDL `domain` whose actions they are"))
    return problems


def check_env(env: Any, *, purpose: str = "formalize", run: bool = True,
              context: str = "check_env") -> EnvReport:
    """Check ``env`` the way gymnasium's ``check_env`` does, for pddlkit's text protocol:
    every method and attribute the ``purpose`` needs (``"formalize"``: formalize_and_plan's,
    with the action signatures; ``"play"``: the TextEnv protocol; ``"act"``: PlanGen's, see
    :data:`PURPOSES`), then, with ``run``,
    ``reset(0)`` (a 2-tuple: text and a dict), ``admissible_commands()`` (a list of str) and
    one ``step`` (a Step or gymnasium's 5-tuple, with text, bools and a dict; ``info["won"]``
    a bool when given), sending the first admissible command (``"look"`` when there is none).

    **It resets and steps ``env``**: give it a fresh one (:func:`check_env_once` runs it on a
    copy). Attributes an environment sets in ``reset`` (its ``task``) are looked for after
    it. Raises one :class:`EnvCheckError` listing every problem found before the first call
    that failed (a later call depends on the earlier ones); returns an :class:`EnvReport`."""
    if purpose not in PURPOSES:
        raise ValueError(f"check_env: purpose must be one of {', '.join(PURPOSES)}, got "
                         f"{purpose!r}")
    name = type(env).__name__

    def refuse(problems: list[EnvProblem]) -> EnvCheckError:
        return EnvCheckError(name, problems, context)

    methods = _missing_methods(env, purpose)
    if methods or not run:
        problems = methods + _attribute_problems(env, purpose)
        if problems:
            raise refuse(problems)
        return EnvReport(name, "attributes and methods only (not run)")
    where = "reset(0)"
    try:
        out = env.reset(0)
    except Exception as exc:
        raise refuse([EnvProblem(where, f"raised {type(exc).__name__}: {exc}",
                                 "reset(seed=None) must take a seed (an int, or None) and "
                                 "return (observation, info)")]) from exc
    if not (isinstance(out, tuple) and len(out) == 2):
        raise refuse([EnvProblem(where, f"returned {_shown(out)}",
                                 "return (observation, info): the text the agent sees first, "
                                 "and a dict ({} will do)")])
    problems = []
    if not isinstance(out[0], str):
        problems.append(EnvProblem(where, f"the observation is a {type(out[0]).__name__}, not "
                                          "text", "return the observation as a str"))
    if not isinstance(out[1], Mapping):
        problems.append(EnvProblem(where, f"info is a {type(out[1]).__name__}, not a dict",
                                   "return a dict as info ({} will do)"))
    problems += _attribute_problems(env, purpose)
    if problems:
        raise refuse(problems)
    commands = _admissible(env, context)
    command = commands[0] if commands else "look"
    where = f"step({command!r})"
    try:
        result = env.step(command)
    except Exception as exc:
        raise refuse([EnvProblem(where, f"raised {type(exc).__name__}: {exc}",
                                 "answer every command with a Step: one it cannot carry out "
                                 "gets an observation saying why and info['error'] set (e.g. "
                                 "'unknown-command')")]) from exc
    step, problems = _read_step(result, where)
    if step is not None:
        for field_ in ("terminated", "truncated"):
            value = getattr(step, field_)
            if _bool(value) is None:
                problems.append(EnvProblem(where, f"{field_} is {_shown(value)}",
                                           f"{field_} must be a bool"))
        if "won" in step.info and _bool(step.info["won"]) is None:
            problems.append(EnvProblem(where, f"info['won'] is {_shown(step.info['won'])}",
                                       "info['won'] must be a bool (or leave it out: "
                                       "terminated=True then means won)"))
        if not isinstance(step.reward, numbers.Real):
            problems.append(EnvProblem(where, f"the reward is {_shown(step.reward)}",
                                       "return a number as the reward (0.0 will do)"))
    if problems:
        raise refuse(problems)
    return EnvReport(name, "reset and one step", command)


_CHECKED: dict[tuple[type, ...], EnvReport] = {}
_CHECKED_LOCK = threading.Lock()


def _class_key(env: Any) -> tuple[type, ...]:
    """The classes of ``env`` and of the environments it wraps (``.env``, as TimeLimit and
    gymnasium's wrappers keep it): what one check stands for."""
    key, seen = [type(env)], env
    for _ in range(8):
        inner = vars(seen).get("env") if hasattr(seen, "__dict__") else None
        if inner is None:
            break
        key.append(type(inner))
        seen = inner
    return tuple(key)


def pddlkits_own(env_or_class: Any) -> bool:
    """Whether every class of ``env`` (wrappers included) is one of pddlkit's own
    environments, which its test suite plays (``tests/test_envs*.py``)."""
    classes = _class_key(env_or_class) if not isinstance(env_or_class, type) else (
        env_or_class,)
    return all(c.__module__.startswith("pddlkit.envs.") for c in classes)


def check_env_once(env: Any, *, purpose: str = "formalize", context: str = "check_env",
                   fresh: bool = False) -> EnvReport:
    """:func:`check_env` as ``register()``, ``formalize_and_plan`` and ``run_episode`` run it:
    the attributes and methods of every instance (cheap, and instances differ), and the run
    (reset and one step) once per class, cached for the process.

    The run never touches the caller's episode: it steps ``env`` itself only when it is
    ``fresh`` (register() built it to check it), else a ``copy.deepcopy`` of it. An
    environment that cannot be copied (it holds a process or a socket) gets the read-only
    part instead: ``admissible_commands()`` on itself. An environment whose copy would start
    a second game server should refuse to be copied (``__deepcopy__`` raising TypeError), or
    be registered, so register() checks one it builds. pddlkit's own environments are not
    run here: their tests play them."""
    key = _class_key(env)
    if not fresh:   # a fresh one is not reset yet: the run looks at its attributes after reset
        check_env(env, purpose=purpose, run=False, context=context)
    with _CHECKED_LOCK:
        if key in _CHECKED:
            return _CHECKED[key]
    name = type(env).__name__
    if fresh:
        report = check_env(env, purpose=purpose, run=True, context=context)
    elif pddlkits_own(env):
        report = EnvReport(name, "attributes and methods only (pddlkit's own environment)")
    else:
        import copy

        try:
            twin = copy.deepcopy(env)
        except Exception as exc:  # a process, a socket, a lock: check what reads no state
            report = _read_only(env, context, f"{type(exc).__name__}: {exc}")
        else:
            report = check_env(twin, purpose=purpose, run=True, context=context)
    with _CHECKED_LOCK:
        _CHECKED[key] = report
    return report


def _admissible(env: Any, context: str) -> Sequence[str]:
    """``env.admissible_commands()``, or an EnvCheckError when it raises or is not a list of
    str."""
    where = "admissible_commands()"
    try:
        commands = env.admissible_commands()
    except Exception as exc:
        raise EnvCheckError(type(env).__name__, [EnvProblem(
            where, f"raised {type(exc).__name__}: {exc}", NEEDED["admissible_commands"])],
            context) from exc
    if isinstance(commands, (str, bytes)) or not isinstance(commands, Sequence) or not all(
            isinstance(c, str) for c in commands):
        raise EnvCheckError(type(env).__name__, [EnvProblem(
            where, f"returned {_shown(commands)}", "return a list of str, the commands that "
                                                   "would work now ([] if the world cannot "
                                                   "list them)")], context)
    return commands


def _read_only(env: Any, context: str, why: str) -> EnvReport:
    """The part of the run that changes nothing: ``admissible_commands()`` gives a list of
    str."""
    _admissible(env, context)
    return EnvReport(type(env).__name__,
                     f"read-only (admissible_commands() only: it cannot be copied, {why})")


def checked_already(env_or_class: Any) -> bool:
    """Whether the run part of the check has passed for this class (or environment's
    classes) in this process."""
    key = (env_or_class,) if isinstance(env_or_class, type) else _class_key(env_or_class)
    with _CHECKED_LOCK:
        return key in _CHECKED
