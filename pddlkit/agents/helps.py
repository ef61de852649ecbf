"""Helps: what a front end does beyond its paper's loop, declared once (issue 74).

Why: a help used to be written in four places (its option, the ``--small-model`` preset's
list, the checks of what it needs, the row's helps column), and the copies drifted. A
:class:`Help` holds what every one of those needs: its name (the option's, whose flag is
``--name-with-dashes``), its ``--help`` text, the options it needs (``requires``), whether it
needs a real LLM (``needs_llm``: a stand-in writes whole answers), what the environment
must offer for it to act (``reads``, an offer of the environment's spec such as
``"failures"``), whether the preset turns it on, and the record events that say it acted.
Every front end keeps a tuple of them (PDDLego+'s :data:`pddlkit.formalizers.help_table.
HELPS`; IPP's, CoPiC's, DEPS's and PLAP's beside their options); from that tuple come its
options' fields (:func:`option_fields`), the preset (:func:`preset`), the requirement checks
(:func:`check_requirements`), the row's helps column and summary (:func:`helps_on`,
:func:`helps_column`, :func:`helps_summary`) and what each row says the helps did
(:func:`acted`), and, for a help that is one piece of code in a slot the front end offers
(``hooks``: the modular formalizer's goal policy), where that code is (:func:`hooked`).

What acted is counted from the episode's own record: a help names the event kinds it
writes when it changes something (``repair``: the files code fixed), and a front end whose
help acts inside a component that writes no event of its own (a goal filter) counts it
there and writes the counts as one ``helps-acted`` event at the episode's end. A row then
says, for each help that was on, how often it changed something; a help that was on and
never acted shows 0, so a preset's long list no longer reads as sixteen things that helped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from .errors import AgentError
from .spec import option


@dataclass(frozen=True)
class Help:
    """One help of a front end (see the module)."""

    name: str                       # the option's name: flag ``--name-with-dashes``
    help: str                       # the flag's ``--help`` text
    #: options that must be on with it (``modular``); ``a|b``: either one (a help of the
    #: domain the model writes that also plays over a learned one: ``schema_check|reuse_domain``)
    requires: tuple[str, ...] = ()
    #: options it does nothing with (a help of the domain the model writes, and ``domain``
    #: or ``reuse_domain``, which freeze one); the front end that declares it acts on it
    #: (PDDLego+: asked for with one, refused; brought by the preset, left out)
    conflicts: tuple[str, ...] = ()
    needs_llm: bool = False         # refused with a stand-in, which writes whole answers
    reads: Optional[str] = None     # the environment's offer it acts on (``failures``)
    preset: bool = True             # in the front end's preset (``--small-model``)
    events: tuple[str, ...] = ()    # record events that mean it changed something
    #: the slots of the front end it fills: (slot, "module:name"), the function (a goal
    #: policy) or class (a files pass, a strategy) loaded when the slot runs with the help on
    hooks: tuple[tuple[str, str], ...] = ()
    #: a help that takes a count (IPP's ``--probe N``: instances tried first) is an int
    #: option, off at 0, named with its count in rows (``probe-2``); the others are switches
    counted: bool = False

    @property
    def label(self) -> str:
        """The help as rows and flags spell it (``fact-memory``)."""
        return self.name.replace("_", "-")

    def named(self, value: Any) -> str:
        """The help as a row names it with this value (``probe-2``; a switch, its label)."""
        return f"{self.label}-{value}" if self.counted else self.label

    @property
    def flag(self) -> str:
        return "--" + self.label


def hooked(helps: Sequence[Help], slot: str, on) -> list[tuple[Help, Any]]:
    """The functions that fill ``slot``, in the table's order, of the helps ``on(help)``
    says are on: (help, function). A hook names ``module:function``; one that cannot be
    loaded is a :class:`AgentError` naming the help, not an ImportError from deep inside."""
    import importlib

    found = []
    for item in helps:
        for name, where in item.hooks:
            if name != slot or not on(item):
                continue
            module, _, function = where.partition(":")
            try:
                found.append((item, getattr(importlib.import_module(module), function)))
            except (ImportError, AttributeError) as exc:
                raise AgentError(f"help {item.name}: its {slot} hook {where} cannot be "
                                 f"loaded ({exc}); fix the help table's line") from None
    return found


def option_fields(helps: Sequence[Help]) -> list[tuple[str, type, Any]]:
    """The helps as fields of an options dataclass (each a switch, or a count, off by
    default), for :func:`dataclasses.make_dataclass`."""
    return [(h.name, int, option(0, h.help, minimum=0)) if h.counted
            else (h.name, bool, option(False, h.help)) for h in helps]


def options_with_helps(name: str, base: type, helps: Sequence[Help], module: str,
                       extra: Sequence[tuple[str, type, Any]] = ()) -> type:
    """An agent's options dataclass: ``base``'s fields (the paper's loop), then one per help
    of ``helps`` (:func:`option_fields`), then ``extra``; named ``name`` in ``module``, where
    the caller binds it to that name (so it pickles: bench cells carry options to worker
    processes)."""
    from dataclasses import make_dataclass

    made = make_dataclass(name, option_fields(helps) + list(extra), bases=(base,))
    made.__module__ = module
    return made


def helps_on(helps: Sequence[Help], options: Any) -> list[str]:
    """The helps ``options`` turns on, as rows name them, in the table's order."""
    return [h.named(getattr(options, h.name)) for h in helps if getattr(options, h.name, False)]


def helps_column(used: Sequence[str]) -> str:
    """A row's ``helps`` column: ``probe-2+mend``, or ``none`` (the paper's loop)."""
    return "+".join(used) or "none"


def helps_summary(used: Sequence[str], paper: str = "the paper's loop") -> str:
    """The helps as a row's summary says them: ``; helps: probe-2, mend``, or that none
    was on (``paper``: what the agent then runs, the paper's loop or planner)."""
    return f"; helps: {', '.join(used)}" if used else f"; helps: none ({paper})"


def preset(helps: Sequence[Help]) -> tuple[str, ...]:
    """The names the preset turns on, in the table's order."""
    return tuple(h.name for h in helps if h.preset)


def preset_help(helps: Sequence[Help], what: str) -> str:
    """The preset flag's ``--help`` text: ``what``, then every flag it turns on."""
    return f"{what}: " + " ".join(h.flag for h in helps if h.preset)


#: what :func:`unmet_requirement` says a help lacks when it is an LLM that writes parts
NEEDS_AN_LLM = "an LLM"


def unmet_requirement(helps: Sequence[Help], asked: Callable[[str], bool], *,
                      preset_on: bool, writes_parts: bool) -> Optional[tuple[Help, str]]:
    """The first help of ``helps`` (in the table's order) asked for (``asked(name)``) without
    what it needs, and what that is: :data:`NEEDS_AN_LLM` when nothing writes its parts (no
    other option would make it act, so that comes first), else the first option it requires
    that is not asked for (the preset brings them all); None when every one has its needs.
    The one rule the CLI's flags (:func:`check_requirements`) and ``formalize_and_plan``'s
    keywords (``formalizers/call_options.py``) are checked by, each saying it in its words."""
    for h in helps:
        if not asked(h.name):
            continue
        if h.needs_llm and not writes_parts:
            return h, NEEDS_AN_LLM
        missing = [r for r in h.requires
                   if not (any(asked(one) for one in r.split("|")) or preset_on)]
        if missing:
            return h, missing[0].split("|")[0]
    return None


def check_requirements(helps: Sequence[Help], options: Any, *, stand_in: Optional[str],
                       preset_on: bool = False) -> None:
    """Refuse (:class:`AgentError`) a help asked for by its own flag without what it needs:
    an option it requires (which the preset also brings), or a real LLM."""
    unmet = unmet_requirement(helps, lambda name: bool(getattr(options, name, False)),
                              preset_on=preset_on, writes_parts=stand_in is None)
    if unmet is None:
        return
    h, needed = unmet
    if needed == NEEDS_AN_LLM:
        raise AgentError(f"{h.flag} asks an LLM for each part it helps with; the stand-in "
                         f"{stand_in} writes whole answers (name an LLM, or leave "
                         f"{h.flag} out)")
    raise AgentError(f"{h.flag} is a help of --{needed.replace('_', '-')}; add "
                     f"--{needed.replace('_', '-')} (or the preset)")


def split_by_offers(helps: Sequence[Help], used: Sequence[str], options: Any, env_id: str,
                    offers: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the helps of ``used`` that can act in ``env_id``, those that cannot, for want of an
    offer they read). One asked for by its own flag there is refused: it would do nothing."""
    unread = {h.label: h for h in helps if h.reads and h.reads not in offers}
    for label, h in unread.items():
        if getattr(options, h.name, False):
            raise AgentError(f"{h.flag} reads the world's machine-readable {h.reads}, which "
                             f"{env_id} does not offer, so it would do nothing; leave it out "
                             "(pddlkit envs lists what each environment offers)")
    return [u for u in used if u not in unread], [u for u in used if u in unread]


def acted(helps: Sequence[Help], used: Sequence[str], kinds: Mapping[str, int]
          ) -> dict[str, int]:
    """For each help of ``used`` (labels), how often it changed something: the record's
    events of its kinds (``kinds``: event kind, or a component's own count under the help's
    label, -> count; :attr:`pddlkit.agents.episode.Episode.counts`)."""
    by_label = {h.label: h for h in helps}
    return {label: sum(kinds.get(k, 0) for k in by_label[label].events)
            for label in used if label in by_label}


def acted_column(counts: Mapping[str, int]) -> str:
    """A row's ``helps_acted`` column: ``repair 3, novel-goals 0`` ("none": no help on)."""
    return ", ".join(f"{label} {n}" for label, n in counts.items()) or "none"
