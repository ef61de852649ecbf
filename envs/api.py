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
"""

from __future__ import annotations

import re
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
    """What formalizers and agents rely on; native PDDL worlds and adapters both implement it."""

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


#: what an environment needs to be formalized (PDDLego+'s loop, formalize_and_plan); the
#: protocol above plus the action signatures the prompts show
ENV_NEEDS = (
    ("id", "a short name (str), e.g. 'lights'"),
    ("task", "the goal as a sentence (str)"),
    ("action_schema", "a tuple of ActionTemplate: each PDDL action with the command that "
                      "performs it, e.g. ActionTemplate('go', ('?from', '?to'), 'go to {to}')"),
    ("reset", "reset(seed=None) -> (observation, info)"),
    ("step", "step(command) -> Step (observation, reward, terminated, truncated, info)"),
    ("admissible_commands", "admissible_commands() -> list[str] (may be empty)"),
)


def check_env(env: Any) -> None:
    """A TypeError naming everything ``env`` lacks to be formalized (see
    ``examples/own_env.py``); nothing when it has it all."""
    missing = [f"{name}: {what}" for name, what in ENV_NEEDS
               if not hasattr(env, name) or (name in ("reset", "step", "admissible_commands")
                                             and not callable(getattr(env, name)))]
    schema = getattr(env, "action_schema", ())
    if hasattr(env, "action_schema") and (
            not schema or not all(isinstance(t, ActionTemplate) for t in schema)):
        missing.append("action_schema: a non-empty tuple of ActionTemplate")
    if not hasattr(env, "domain"):
        declared = getattr(env, "action_signatures", None)
        actions = {t.action for t in schema if isinstance(t, ActionTemplate)}
        if not isinstance(declared, dict) or not actions <= set(declared):
            lacking = sorted(actions - set(declared)) if isinstance(declared, dict) else []
            missing.append("action_signatures: the typed parameters of each action, e.g. "
                           "{'go': '?from - room ?to - room'}"
                           + (f" (none for {', '.join(lacking)})" if lacking else "")
                           + "; or a PDDL `domain` whose actions they are")
    if missing:
        raise TypeError(f"{type(env).__name__} cannot be formalized; it lacks:\n  - "
                        + "\n  - ".join(missing)
                        + "\n(examples/own_env.py shows an environment with all of them)")
