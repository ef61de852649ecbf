"""Environment ids, like gymnasium's registry: ``make("coin-collector", rooms=7, seed=0)``.

The built-in ids are declared as entry points (group ``pddlkit.envs``) in pyproject.toml, the
same way a third-party package adds its own; ``register`` adds one at run time. ``pddlkit envs``
lists them all.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable, Union

ENTRY_POINT_GROUP = "pddlkit.envs"
BUILTIN = {
    "coin-collector": "pddlkit.envs.coin_collector:CoinCollector",
    "household": "pddlkit.envs.household:Household",
    "textworld": "pddlkit.envs.textworld_adapter:TextWorldEnv",
    "alfworld": "pddlkit.envs.alfworld_adapter:ALFWorldEnv",
    "sc2-build": "pddlkit.envs.sc2_build:SC2Build",
    "nethack": "pddlkit.envs.nethack:NetHackTask",
    "craft": "pddlkit.envs.craft:CraftWorld",
    "crafter": "pddlkit.envs.crafter_world:CrafterWorld",
    "microrts": "pddlkit.envs.microrts:MicroRTS",
}
_RUNTIME: dict[str, Union[str, Callable[..., Any]]] = {}


class UnknownEnvError(LookupError):
    def __init__(self, env_id: str, known: list[str]) -> None:
        close = difflib.get_close_matches(env_id, known, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        super().__init__(f"unknown environment {env_id!r}{hint} Known: {', '.join(known)}")


@dataclass(frozen=True)
class EnvSpec:
    id: str
    entry_point: str
    summary: str


def register(env_id: str, entry_point: Union[str, Callable[..., Any]], replace: bool = False) -> None:
    """Make ``env_id`` build environments with ``entry_point`` ('module:Class' or a callable)."""
    if not replace and env_id in _known():
        raise ValueError(f"environment {env_id!r} is already registered (pass replace=True)")
    _RUNTIME[env_id] = entry_point


def _known() -> dict[str, Union[str, Callable[..., Any]]]:
    table: dict[str, Union[str, Callable[..., Any]]] = dict(BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        table.setdefault(ep.name, ep.value)
    table.update(_RUNTIME)
    return table


def _load(target: Union[str, Callable[..., Any]]) -> Callable[..., Any]:
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def make(env_id: str, **kwargs: Any):
    """Build the environment ``env_id`` with its options (rooms=, receptacles=, seed=, ...)."""
    table = _known()
    if env_id not in table:
        raise UnknownEnvError(env_id, sorted(table))
    return _load(table[env_id])(**kwargs)


def list_envs() -> list[EnvSpec]:
    out = []
    for env_id, target in sorted(_known().items()):
        name = target if isinstance(target, str) else f"{target.__module__}:{target.__qualname__}"
        try:
            doc = (_load(target).__doc__ or "").strip().splitlines()
            from pddlkit.cli import plain

            summary = plain(doc[0]) if doc else ""
        except Exception as exc:  # a broken plugin must not break the listing
            summary = f"(cannot load: {type(exc).__name__}: {exc})"
        out.append(EnvSpec(env_id, name, summary))
    return out
