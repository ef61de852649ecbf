"""The environments CoPiC has a program world for, as data (issue 74: "agents still know
environments").

CoPiC needs, per environment, a view of it for programs (a :class:`~.world.ProgramWorld`), and a
few facts the command line and rows read: which CoPiC options reach the environment (SC2's
game-time limit, the household's command budget, NetHack's keystrokes and seed set), which of
them ``--max-steps`` sets, whether a world model exists for ``--plan-api`` and ``--shaping``
(and where it came from, for the row's ``domain_source``), and whether ``--derived-tree`` has a
tech tree to derive. Each environment family says those once, in one :class:`ProgramWorldKind`
of :data:`KINDS`; :func:`kind_of` finds it by id, so the runner and the CLI hold no branch on an
environment id. The environment itself, and its own defaults (the household's receptacles, the
task), are the registry's: a kind adds only what CoPiC chooses (one task type per program set).

Adding an environment: a ``ProgramWorld`` for it and one ``ProgramWorldKind`` here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional


@dataclass(frozen=True)
class ProgramWorldKind:
    """One environment family as CoPiC sees it.

    ``ids``: the registry ids it serves (a callable, so NetHack's are the registry's own);
    ``build(env_id, options, make_env, world_model, derived_tree)``: the program world;
    ``options``: CoPiC's options that reach the environment (others are refused there);
    ``step_option``: the one ``--max-steps`` sets (None: the environment counts no steps);
    ``world_model``: where the model behind ``--plan-api`` and ``--shaping`` comes from (None:
    it has none, and those are refused); ``derived_tree``: ``--derived-tree`` applies;
    ``defaults``: environment options CoPiC chooses unless given (one task type per program
    set; the rest are the registry's)."""

    name: str
    ids: Callable[[], tuple[str, ...]]
    build: Callable[..., Any]
    options: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()
    step_option: Optional[str] = None
    world_model: Optional[str] = None
    derived_tree: bool = False


def _sc2(env_id: str, options: dict, make_env, world_model: bool, derived_tree: bool):
    from .sc2_world import SC2World

    return SC2World(env=make_env(**options), world_model=world_model,
                    derived_tree=derived_tree)


def _household(env_id: str, options: dict, make_env, world_model: bool, derived_tree: bool):
    from .household_world import HouseholdWorld

    budget = options.pop("budget", 50)
    options = {k: v for k, v in options.items() if v is not None}
    return HouseholdWorld(lambda: make_env(max_steps=budget, **options), budget=budget,
                          world_model=world_model)


def _nethack(env_id: str, options: dict, make_env, world_model: bool, derived_tree: bool):
    from pddlkit.envs.registry import spec

    from .nethack_world import NetHackWorld

    seeds = options.pop("nethack_seeds", None) or "all"
    return NetHackWorld(spec(env_id).kwargs["task"], seeds=seeds, env=make_env(**options))


def _nethack_ids() -> tuple[str, ...]:
    from pddlkit.envs.registry import ids

    return tuple(ids(prefix="nethack-"))


KINDS: tuple[ProgramWorldKind, ...] = (
    ProgramWorldKind("sc2", lambda: ("sc2-build",), _sc2, options=("max_seconds",),
                     world_model="reference (SC2's tech tables, pddlkit.envs.sc2_data, by hand)",
                     derived_tree=True),
    # CoPiC evolves one program set per task type, so a game of one type
    ProgramWorldKind("household", lambda: ("household",), _household, options=("budget",),
                     step_option="budget", defaults=(("difficulty", "pick_and_place"),),
                     world_model="reference (domains/household/domain.pddl, by hand)"),
    ProgramWorldKind("alfworld", lambda: ("alfworld",), _household, options=("budget",),
                     step_option="budget", defaults=(("task", "pick"),)),
    ProgramWorldKind("nethack", _nethack_ids, _nethack, options=("max_keys", "nethack_seeds"),
                     step_option="max_keys"),
)


def env_ids() -> tuple[str, ...]:
    """Every registry id CoPiC has a program world for, in :data:`KINDS`' order."""
    return tuple(i for kind in KINDS for i in kind.ids())


def kind_of(env_id: str) -> ProgramWorldKind:
    """The kind serving ``env_id``; ValueError naming the ids CoPiC has."""
    for kind in KINDS:
        if env_id in kind.ids():
            return kind
    raise ValueError(f"CoPiC has no environment {env_id!r}; use one of {', '.join(env_ids())}")


def with_world_model() -> str:
    """The ids whose kind has a world model, for a refusal's words."""
    return ", ".join(i for kind in KINDS if kind.world_model for i in kind.ids())
