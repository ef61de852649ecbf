"""Planner names: the built-ins, run-time registrations, and plugins found by entry point.

Like gymnasium's env registry: ``get_planner("fast-downward")`` builds a planner from a name,
``register_planner(name, factory)`` adds one at run time, and installed packages add theirs
through the entry-point group ``pddlkit.planners`` (the entry point names a factory: a class
or function taking the planner's options as keyword arguments). Two prefixes build planners
from their argument: ``up:<engine>`` (a unified-planning engine) and ``cmd:<command>`` (a
command line with {domain} {problem} {plan}). ``fast-downward:<alias>`` picks an FD alias.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable, Optional, Union

from .capabilities import supported
from .protocol import Planner, availability

ENTRY_POINT_GROUP = "pddlkit.planners"
Factory = Callable[..., Planner]


class UnknownPlannerError(LookupError):
    """No planner has this name; the message lists the names and the closest one."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        self.suggestion = close[0] if close else None
        hint = f"; did you mean {self.suggestion!r}?" if self.suggestion else ""
        super().__init__(f"unknown planner {name!r}{hint} Known planners: {', '.join(known)}; "
                         f"also 'up:<engine>' and 'cmd:<command {{domain}} {{problem}} {{plan}}>'")

    def __reduce__(self):
        # rebuilt from its own arguments, so it pickles (a worker process may raise it)
        return type(self), (self.name, self.known), self.__dict__


def _fast_downward(**options: Any) -> Planner:
    from .fast_downward import FastDownward

    return FastDownward(**options)


def _auto(**options: Any) -> Planner:
    from .auto import AutoPlanner

    return AutoPlanner(usable_planners, get_planner, **options)


def usable_planners() -> list["PlannerInfo"]:
    """Every planner that can run here, with what it supports, in ``available_planners``
    order (``auto`` left out); build the chosen one with :func:`get_planner`."""
    return [i for i in available_planners(include_up=True)
            if i.available and i.name not in ("auto", "up:*")]


_BUILTINS: dict[str, Factory] = {"fast-downward": _fast_downward, "auto": _auto}
_RUNTIME: dict[str, Factory] = {}


def register_planner(name: str, factory: Factory, replace: bool = False) -> None:
    """Make ``name`` build planners with ``factory(**options)`` in this process."""
    if not replace and (name in _RUNTIME or name in _BUILTINS):
        raise ValueError(f"planner {name!r} is already registered (pass replace=True)")
    _RUNTIME[name] = factory


def unregister_planner(name: str) -> None:
    _RUNTIME.pop(name, None)


def _plugins() -> dict:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def known_names() -> list[str]:
    return sorted(set(_BUILTINS) | set(_RUNTIME) | set(_plugins()))


def get_planner(spec: Union[str, Planner], **options: Any) -> Planner:
    """A planner from a name (or the planner itself, passed through)."""
    if not isinstance(spec, str):
        if not isinstance(spec, Planner):
            raise TypeError(f"{spec!r} is not a planner: it needs name, config() and solve()")
        return spec
    if spec.startswith("up:"):
        from .up_engine import UPPlanner

        return UPPlanner(spec[3:], **options)
    if spec.startswith("cmd:"):
        from .command import CommandPlanner

        return CommandPlanner(spec[4:], **options)
    name, _, arg = spec.partition(":")
    if name == "fast-downward" and arg:
        options = {"alias": arg, **options}
    factory = _RUNTIME.get(name) or _BUILTINS.get(name)
    if factory is None:
        plugin = _plugins().get(name)
        if plugin is None:
            raise UnknownPlannerError(spec, known_names())
        factory = plugin.load()
    planner = factory(**options)
    if not isinstance(planner, Planner):
        raise TypeError(f"planner factory for {name!r} returned {planner!r}, which lacks "
                        f"name, config() or solve()")
    return planner


@dataclass(frozen=True)
class PlannerInfo:
    name: str
    source: str  # builtin | runtime | plugin (distribution name) | unified-planning
    available: bool
    reason: str = ""
    #: the PDDL features it declares it can plan (None: not declared)
    supports: Optional[frozenset] = None


def available_planners(include_up: bool = True) -> list[PlannerInfo]:
    """Every planner name and whether it can run here (what ``pddlkit planners`` prints)."""
    out = []
    for name in sorted(_BUILTINS):
        planner = get_planner(name)
        out.append(PlannerInfo(name, "builtin", *availability(planner),
                               supports=supported(planner)))
    for name in sorted(_RUNTIME):
        try:
            planner = get_planner(name)
            out.append(PlannerInfo(name, "runtime", *availability(planner),
                                   supports=supported(planner)))
        except Exception as exc:
            out.append(PlannerInfo(name, "runtime", False, f"{type(exc).__name__}: {exc}"))
    for name, ep in sorted(_plugins().items()):
        dist = getattr(getattr(ep, "dist", None), "name", None) or ep.value
        try:
            planner = get_planner(name)
            out.append(PlannerInfo(name, f"plugin ({dist})", *availability(planner),
                                   supports=supported(planner)))
        except Exception as exc:
            out.append(PlannerInfo(name, f"plugin ({dist})", False, f"{type(exc).__name__}: {exc}"))
    if include_up:
        try:
            from .up_engine import UPPlanner, up_engine_names

            for engine in sorted(up_engine_names()):
                out.append(PlannerInfo(f"up:{engine}", "unified-planning", True,
                                       supports=supported(UPPlanner(engine))))
        except Exception as exc:
            out.append(PlannerInfo("up:*", "unified-planning", False, str(exc)))
    return out


def planners_line(features: frozenset) -> str:
    """One line for ``pddlkit check``: which planners here can plan a task that uses
    ``features``, which cannot and why, and what to install when none can. The planners
    that run here without unified-planning are asked first; its engines only when none of
    those can (importing it costs a second)."""
    from .capabilities import install_hints, who_plans

    infos = available_planners(include_up=False)
    can, cannot = who_plans(features, infos)
    if not can:
        can, cannot = who_plans(features, available_planners(include_up=True))
    shown = ", ".join(can[:4]) + (f" and {len(can) - 4} more" if len(can) > 4 else "")
    text = "planners here that can plan it: " + (shown or "none")
    default = next((c for c in cannot if c.startswith("fast-downward ")), None)
    if default:
        text += f"; the default, {default}, cannot" + (": plan with --planner auto" if can
                                                        else "")
    hints = install_hints(features, can)
    return text + "".join(f" ({h})" for h in hints)
