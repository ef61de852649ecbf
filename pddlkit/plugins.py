"""The installed plugins of an entry-point group, read once per process.

Every lookup by name (an environment id, an agent, an LLM kind, a command) goes through the
``pddlkit.*`` entry-point groups. ``importlib.metadata.entry_points`` reads the metadata of
every installed distribution on each call (about 12 ms in pddlkit's own venv, some 40
files), and an episode makes several lookups: replaying 20 recorded CoinCollector episodes
made 240 of them, 14% of the replay's time. Which distributions are installed does not change
while a process runs, so each group's entry points are read once and kept.

A process that installs a plugin while it runs (a notebook after ``pip install``) calls
:func:`forget_plugins` to read them again; registering at run time (``register_env``,
``register_agent``) needs no re-read, since those tables are separate.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.metadata import EntryPoint, entry_points

__all__ = ["entry_points_of", "forget_plugins"]


@lru_cache(maxsize=None)
def entry_points_of(group: str) -> tuple[EntryPoint, ...]:
    """The entry points installed under ``group``, sorted by name (then value), read once."""
    return tuple(sorted(entry_points(group=group), key=lambda ep: (ep.name, ep.value)))


def forget_plugins() -> None:
    """Read every group's entry points again on the next lookup (after installing a plugin)."""
    entry_points_of.cache_clear()
