"""The offline stand-ins an agent takes for ``--llm``: one grammar, one parser.

The grammar is ``standin:<agent>[:<mode>][:<argument>]``::

    standin:pddlego                 PDDLego+'s observation reader (the default mode)
    standin:pddlego:noisy:0.3       ... with slips injected at a rate of 0.3
    standin:deps:0.3                DEPS's recipe planner, omissions at 0.3
    standin:deps:off:0.3            ... with off-template mistakes
    standin:plap:noisy:0.5          PLAP's expert-tips planner with noisy lines
    standin:ipp:carry,cost          IPP's program writer with those two mistakes
    standin:copic:no-take;;crash    CoPiC's writer, mistakes per program set

A bare ``standin`` is the agent's default stand-in. ``standin`` is a kind of LLM spec (an entry
point of ``pddlkit.llms``, so :func:`pddlkit.llm.spec.parse_spec` and ``pddlkit llm list``
know it), and each agent declares its modes
(:class:`StandIn`, in :attr:`~.spec.AgentSpec.stand_ins`): the mode "" is the agent's default,
and an argument that is no mode's name goes to the default mode when that takes one. A stand-in
is not a model: it plays only through its own agent (``load_llm("standin:deps")`` says so).

Why: each front end once had its own spelling (``noisy:R``, ``standin:M,M``, ``standin:A;;C``,
``standin-off``, ``standin-noisy``, ``observation``), read by its own code at run time, so
``standin:abc`` ended in "could not convert string to float" and ``standin:7`` was taken as an
error rate of 700%. The old spellings are still read, for this release only: the command line
prints one deprecation line naming the new spelling (:func:`old_spelling`).

    STAND_INS = (StandIn("standin", rate, default=0.3, mode="", form="RATE"),
                 StandIn("observation"))           # no mode: an old spelling only
    parse_stand_in("standin:deps:0.5", STAND_INS, agent="deps")   # ("standin", 0.5)
    parse_stand_in("standin:0.5", STAND_INS, agent="deps")        # the same, old spelling
    parse_stand_in("openai:gpt-4o", STAND_INS, agent="deps")      # None: an LLM spec
"""

from __future__ import annotations

import argparse
import difflib
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from pddlkit.flags import probability


class StandInError(ValueError):
    """A stand-in spec whose argument the stand-in cannot take; the message names the spec."""


@dataclass(frozen=True)
class StandIn:
    """One stand-in: ``name`` (what ``--llm`` says), ``argument`` (reads the text after
    ``name:``, raising ValueError or argparse.ArgumentTypeError for a bad one; None: it takes
    none), ``example`` (a good spec, for messages) and ``default`` (the argument's value
    when none is written)."""

    name: str
    argument: Optional[Callable[[str], Any]] = None
    example: str = ""
    default: Any = None
    #: how the argument is written in a listing: "RATE", "MISTAKE,..."
    form: str = ""
    #: its mode in the grammar ``standin:<agent>[:<mode>]``: "" for the agent's default, a
    #: word for another; None: the old spelling ``name`` only (an alias, not listed)
    mode: Optional[str] = None
    #: what it knows, for ``pddlkit llm list`` and the row's stand-in label
    knows: str = ""

    def spelled(self, agent: str = "") -> str:
        """The spec a listing shows: ``standin:<agent>[:mode][:FORM]`` when ``agent`` is given
        and the stand-in has a mode, else the old ``name`` or ``name[:FORM]``."""
        argument = f"[:{self.form or 'ARG'}]" if self.argument else ""
        return (self.spec(agent) if agent and self.mode is not None else self.name) + argument

    def spec(self, agent: str, argument: str = "") -> str:
        """The new spelling of this stand-in with ``argument`` (text) written."""
        head = f"standin:{agent}" + (f":{self.mode}" if self.mode else "")
        return f"{head}:{argument}" if argument else head


def rate(text: str) -> float:
    """A stand-in's error rate: a probability from 0 to 1."""
    try:
        return probability(text)
    except argparse.ArgumentTypeError:
        raise StandInError(f"the error rate must be a number from 0 to 1, got {text!r}") from None


def names(known: Sequence[str], what: str = "mistake", separators: str = ",") -> Callable:
    """An argument that is a list of names from ``known`` (split at any of ``separators``;
    empty items allowed, as CoPiC's ``A,B;;C`` has); a name not known is refused, the known
    ones listed."""
    import re

    def parse(text: str) -> str:
        words = [w.strip() for w in re.split(f"[{re.escape(separators)}]", text) if w.strip()]
        unknown = [w for w in words if w not in known]
        if unknown:
            close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.6)
            raise StandInError(f"unknown {what}{'s' if len(unknown) > 1 else ''} "
                               f"{', '.join(unknown)}"
                               + (f" (did you mean {close[0]!r}?)" if close else "")
                               + f"; known: {', '.join(known)}")
        return text
    return parse


def _read(stand_in: StandIn, spec: str, argument: Optional[str]) -> tuple[str, Any]:
    """(name, argument read) for ``stand_in`` given ``argument`` (None: none written)."""
    if argument is None or (not argument and stand_in.argument is not None):
        return stand_in.name, stand_in.default
    if stand_in.argument is None:
        raise StandInError(f"{spec}: this stand-in takes no argument")
    try:
        return stand_in.name, stand_in.argument(argument)
    except (ValueError, argparse.ArgumentTypeError) as exc:
        example = f" (e.g. {stand_in.example})" if stand_in.example else ""
        raise StandInError(f"{spec}: {exc}{example}") from None


def _default(stand_ins: Sequence[StandIn]) -> Optional[StandIn]:
    """The agent's default stand-in (mode ""), what ``standin:<agent>`` names."""
    return next((s for s in stand_ins if s.mode == ""), None)


def _declared(name: str, stand_ins: Sequence[StandIn]) -> StandIn:
    """The stand-in declared as ``name``, an old spelling's alias read as the default."""
    stand_in = next(s for s in stand_ins if s.name == name)
    return stand_in if stand_in.mode is not None else (_default(stand_ins) or stand_in)


def _agent_names() -> set[str]:
    """The installed agents' names (their ``pddlkit.agents`` entry points; read here, not
    through the registry, which imports this module)."""
    from importlib.metadata import entry_points

    return {ep.name for ep in entry_points(group="pddlkit.agents")}


def _modes(stand_ins: Sequence[StandIn], agent: str) -> str:
    return ", ".join(s.spelled(agent) for s in stand_ins if s.mode is not None)


def _new_spelling(spec: str, stand_ins: Sequence[StandIn], agent: str) -> tuple[str, Any]:
    """``standin:<agent>[:mode][:argument]`` read against ``agent``'s stand-ins."""
    rest = spec.split(":", 2)[2] if spec.count(":") >= 2 else ""
    moded = [s for s in stand_ins if s.mode is not None]
    default = _default(stand_ins)
    mode, sep, argument = rest.partition(":")
    chosen = next((s for s in moded if s.mode and s.mode == mode), None)
    if chosen is not None:
        return _read(chosen, spec, argument if sep else None)
    if not rest:
        if default is None:
            raise StandInError(f"{spec}: {agent} has no default stand-in; name a mode: "
                               f"{_modes(stand_ins, agent)}")
        return _read(default, spec, None)
    if default is not None and default.argument is not None:
        return _read(default, spec, rest)
    words = [s.mode for s in moded if s.mode]
    close = difflib.get_close_matches(mode, words, n=1, cutoff=0.6)
    raise StandInError(f"{spec}: {agent} has no stand-in mode {mode!r}"
                       + (f" (did you mean {close[0]!r}?)" if close else "")
                       + f"; its stand-ins: {_modes(stand_ins, agent) or 'none'}")


def parse_stand_in(spec: Any, stand_ins: Sequence[StandIn],
                   agent: str = "") -> Optional[tuple[str, Any]]:
    """(name, argument) when ``spec`` names one of ``stand_ins`` (the argument read, or the
    stand-in's default when none is written), in the grammar ``standin:<agent>[:mode]
    [:argument]`` or an old spelling (``noisy:0.3``, ``standin-off``); None when it names
    none of them (an LLM spec, or not a string); :class:`StandInError` naming the spec when its
    argument or mode is bad, or when it names another agent's stand-in."""
    if not isinstance(spec, str):
        return None
    text = spec.strip()
    name, sep, argument = text.partition(":")
    if name == "standin" and sep:
        owner = argument.partition(":")[0]
        if agent and owner == agent:
            return _new_spelling(text, stand_ins, agent)
        if owner in _agent_names():
            mine = _modes(stand_ins, agent) if agent else ""
            raise StandInError(f"{text}: a stand-in of {owner}, not of {agent or 'this agent'}"
                               + (f"; {agent}'s stand-ins: {mine}" if mine else ""))
    for stand_in in stand_ins:
        if name == stand_in.name:
            return _read(stand_in, text, argument if sep else None)
    if text == "standin" and agent:     # the agent's default stand-in, whatever its name
        default = _default(stand_ins)
        return _read(default, text, None) if default is not None else None
    return None


def old_spelling(spec: Any, stand_ins: Sequence[StandIn], agent: str) -> Optional[str]:
    """The deprecation line for a stand-in written the old way (``noisy:0.3``), naming its new
    spelling (``standin:pddlego:noisy:0.3``); None for the new spelling or anything else."""
    if not isinstance(spec, str) or parse_stand_in(spec, stand_ins, agent) is None:
        return None
    text = spec.strip()
    if text == "standin" or (text.startswith(f"standin:{agent}")
                             and text.split(":")[1] == agent):
        return None
    name, _, argument = text.partition(":")
    stand_in = _declared(name, stand_ins)
    new = stand_in.spec(agent, argument) if stand_in.mode is not None else f"standin:{agent}"
    return (f"--llm {text}: the old spelling of {new}; it is read for this release only "
            f"(pddlkit llm list shows every stand-in)")


def knows(spec: Any, stand_ins: Sequence[StandIn], agent: str) -> Optional[str]:
    """What the stand-in ``spec`` names knows (its row label, ``stand-in (...)``); the
    default's for None or ""; None for an LLM spec."""
    if spec in (None, ""):
        chosen = _default(stand_ins)
    else:
        try:
            found = parse_stand_in(spec, stand_ins, agent)
        except StandInError:
            return None
        if found is None:
            return None
        chosen = _declared(found[0], stand_ins)
    return chosen.knows if chosen is not None else None


def load(argument: Optional[str], **options: Any):
    """The ``standin`` kind of ``pddlkit.llms``: a stand-in is no model, so building one
    outside its agent is refused with the command that runs it."""
    from pddlkit.llm.errors import LLMSpecError

    agent = (argument or "").partition(":")[0]
    raise LLMSpecError(f"standin:{argument or ''} is an offline stand-in, not a model: it plays "
                       f"only through its agent",
                       hint=f"pddlkit run {agent or 'AGENT'} --llm standin:{argument or 'AGENT'}"
                       f" (pddlkit llm list shows every stand-in)")

