"""Code's passes over an answer's files before they are planned, each one help's hook
(issue 74: the loop's passes are hooks of the help table, not flags of the loop).

A pass is a help's ``files_pass`` hook in :data:`.help_table.HELPS`: a class made once per
episode (it may keep what the episode taught it: the facts confirmed, the facts the world
refuted), whose ``apply(files, context)`` returns the files and what it changed, one line
each. The loop runs the passes of the helps that are on, in the table's order, after the
answer is read and before it is planned (:func:`.attempt.attempt`); what each changed is
counted in its :class:`~.loop.Metrics` counter and written as its record event
(``counter``, ``event``, ``key``: the event's field). Adding such a help is its class and
its table line; a pass whose ``counter`` is None is counted by its event alone (the row's
``helps_acted`` column reads the record).

A pass may also learn from what happened to the files it edited (the loop's ``on_ran`` and
``on_failed`` hooks): a pass with ``on_ran(files, steps, seen)`` (:class:`LearnsWhatRan`)
is told each plan that ran without failure, its steps and the observations' text; one with
``on_failed(files, failure, step)`` (:class:`LearnsWhatFailed`) each command the world
refused. What either learned (:class:`Learned`) is recorded as its event, added to its
counter and, for a failure, said to the model with the world's message.

The passes today: ``repair`` (trivial slips, ``formalizers/helps/repair.py`` over
:mod:`.repair`), ``declare_objects`` (objects a problem uses without declaring them,
``formalizers/helps/declare_objects.py`` over :mod:`.objects`), ``fact_memory`` (facts
confirmed earlier put back, :class:`.helps.fact_memory.FactMemory`, which also learns from each
plan that ran) and ``refuted_facts`` (facts the world refuted kept out,
:class:`.helps.refuted_facts.RefutedFacts`, which learns from each failed command).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Collection, Optional, Protocol, Sequence, runtime_checkable

from .answer import Files
from .base import Context


@runtime_checkable
class FilesPass(Protocol):
    """One help's edit of the files (see the module)."""

    counter: Optional[str]   # the Metrics field it adds to (None: its event alone)
    event: str               # the record's event when it changed something
    key: str                 # the event's field holding what it changed

    def apply(self, files: Files, context: Context) -> tuple[Files, list[str]]:
        ...


@dataclass(frozen=True)
class Learned:
    """What a pass learned from a plan's run: its record event, the event's field holding
    ``values``, the :class:`~.loop.Metrics` counter they add to (None: none), the words the
    model is told with the failure, and the event's other fields."""

    event: str
    key: str
    values: list
    counter: Optional[str] = None
    said: str = ""
    fields: dict = field(default_factory=dict)


@runtime_checkable
class LearnsWhatRan(Protocol):
    """A pass told each plan that ran without failure (see the module)."""

    def on_ran(self, files: Files, steps: list[str], seen: str) -> Optional[Learned]:
        ...


@runtime_checkable
class LearnsWhatFailed(Protocol):
    """A pass told each command the world refused (see the module): ``failure`` is (the
    command, the world's message, its info), ``step`` the plan step it ran, if known."""

    def on_failed(self, files: Files, failure: tuple, step: Optional[str]
                  ) -> Optional[Learned]:
        ...


def passes_for(names: Collection[str]) -> list[Any]:
    """The passes of the helps named in ``names`` (the table's names), made for one
    episode, in the table's order."""
    from pddlkit.agents.helps import hooked

    from .help_table import HELPS

    return [make() for _help, make in hooked(HELPS, "files_pass", lambda h: h.name in names)]


def run_passes(passes: Sequence[Any], files: Files, context: Context
               ) -> tuple[Files, list[tuple[Any, list[str]]]]:
    """The files after every pass, and what each changed (the passes that changed
    nothing left out)."""
    edits = []
    for one in passes:
        files, changed = one.apply(files, context)
        if changed:
            edits.append((one, changed))
    return files, edits
