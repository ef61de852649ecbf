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

Why one grammar: each front end once had its own spelling (``noisy:R``, ``standin:M,M``,
``standin:A;;C``, ``standin-off``, ``standin-noisy``, ``observation``), read by its own code at
run time, so ``standin:abc`` ended in "could not convert string to float" and ``standin:7`` was
taken as an error rate of 700%. Those old spellings were read for one release, with a
deprecation line, and are now refused (issue 74): each is a :class:`StandInError` that names
the new spelling to write (``noisy:0.3: this spelling was removed; write
standin:pddlego:noisy:0.3``), so a command line, a sweep or a Python caller still using one
stops at once, told the fix, instead of playing something else (``noisy`` is also no OpenAI
model: :data:`pddlkit.llm.spec.STAND_IN_WORDS`).

    STAND_INS = (StandIn("standin", rate, default=0.3, mode="", form="RATE"),
                 StandIn("standin-off", rate, default=0.3, mode="off", form="RATE"))
    parse_stand_in("standin:deps:0.5", STAND_INS, "deps")       # ("standin", 0.5)
    parse_stand_in("standin:deps:off", STAND_INS, "deps")       # ("standin-off", 0.3)
    parse_stand_in("standin:0.5", STAND_INS, "deps")            # StandInError: removed; write
                                                                #   standin:deps:0.5
    parse_stand_in("openai:gpt-4o", STAND_INS, "deps")          # None: an LLM spec

A stand-in's ``name`` (``standin-off``, ``noisy``, ``observation``) stays what the agent's own
code compares (``parse_stand_in`` gives it back); it is not a spelling ``--llm`` reads.
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
    """One stand-in: ``name`` (what :func:`parse_stand_in` gives back, for the agent's own
    code), ``argument`` (reads the text after the mode, raising ValueError or
    argparse.ArgumentTypeError for a bad one; None: it takes none), ``example`` (a good spec,
    for messages) and ``default`` (the argument's value when none is written)."""

    name: str
    argument: Optional[Callable[[str], Any]] = None
    example: str = ""
    default: Any = None
    #: how the argument is written in a listing: "RATE", "MISTAKE,..."
    form: str = ""
    #: its mode in the grammar ``standin:<agent>[:<mode>]``: "" for the agent's default, a
    #: word for another
    mode: str = ""
    #: what it knows, for ``pddlkit llm list`` and the row's stand-in label
    knows: str = ""

    def spelled(self, agent: str) -> str:
        """The spec a listing shows: ``standin:<agent>[:mode][:FORM]``."""
        argument = f"[:{self.form or 'ARG'}]" if self.argument else ""
        return self.spec(agent) + argument

    def spec(self, agent: str, argument: str = "") -> str:
        """This stand-in's spelling with ``argument`` (text) written."""
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


def _agent_names() -> set[str]:
    """The installed agents' names (their ``pddlkit.agents`` entry points; read here, not
    through the registry, which imports this module)."""
    from ..plugins import entry_points_of

    return {ep.name for ep in entry_points_of("pddlkit.agents")}


def _modes(stand_ins: Sequence[StandIn], agent: str) -> str:
    return ", ".join(s.spelled(agent) for s in stand_ins)


def _new_spelling(spec: str, stand_ins: Sequence[StandIn], agent: str) -> tuple[str, Any]:
    """``standin:<agent>[:mode][:argument]`` read against ``agent``'s stand-ins."""
    rest = spec.split(":", 2)[2] if spec.count(":") >= 2 else ""
    default = _default(stand_ins)
    mode, sep, argument = rest.partition(":")
    chosen = next((s for s in stand_ins if s.mode and s.mode == mode), None)
    if chosen is not None:
        return _read(chosen, spec, argument if sep else None)
    if not rest:
        if default is None:
            raise StandInError(f"{spec}: {agent} has no default stand-in; name a mode: "
                               f"{_modes(stand_ins, agent)}")
        return _read(default, spec, None)
    if default is not None and default.argument is not None:
        return _read(default, spec, rest)
    words = [s.mode for s in stand_ins if s.mode]
    close = difflib.get_close_matches(mode, words, n=1, cutoff=0.6)
    raise StandInError(f"{spec}: {agent} has no stand-in mode {mode!r}"
                       + (f" (did you mean {close[0]!r}?)" if close else "")
                       + f"; its stand-ins: {_modes(stand_ins, agent) or 'none'}")


#: a word every front end once read as its default stand-in, whatever the agent
_OLD_DEFAULT = "observation"


def removed(text: str, new: str) -> str:
    """The refusal of an old spelling ``text``, naming the ``new`` one to write."""
    return (f"{text}: this spelling was removed; write {new} (pddlkit llm list shows every "
            f"stand-in)")


def _instead(text: str, stand_ins: Sequence[StandIn], agent: str) -> Optional[str]:
    """The new spelling of ``text`` when it is an old spelling of one of ``stand_ins``
    (``noisy:0.3``, ``observation``, ``standin-off:0.4``, ``standin:0.5``, ``standin:M,M``):
    with its argument when that reads, else the form to write; None for anything else. A
    ``standin:X`` whose ``standin:<agent>:X`` is bad too is a StandInError saying why."""
    name, sep, argument = text.partition(":")
    if name == "standin" and sep:           # standin:0.5: the agent was not named
        new = f"standin:{agent}" + (f":{argument}" if argument else "")
        try:
            _new_spelling(new, stand_ins, agent)
        except StandInError as exc:     # nor is it a good new spelling: why, in its words
            raise StandInError(f"{text}: this spelling was removed; the agent goes first, and "
                               f"{exc}") from None
        return new
    chosen = next((s for s in stand_ins if s.name == name and name != "standin"), None)
    if chosen is None and name == _OLD_DEFAULT:
        chosen = _default(stand_ins)
    if chosen is None:
        return None
    if not (sep and chosen.argument):
        return chosen.spec(agent)
    try:
        _read(chosen, text, argument)
    except StandInError:
        return chosen.spelled(agent)
    return chosen.spec(agent, argument)


def parse_stand_in(spec: Any, stand_ins: Sequence[StandIn],
                   agent: str) -> Optional[tuple[str, Any]]:
    """(name, argument) when ``spec`` names one of ``agent``'s ``stand_ins`` in the grammar
    ``standin:<agent>[:mode][:argument]`` (or a bare ``standin``, the default), the argument
    read, or the stand-in's default when none is written; None when it names none of them (an
    LLM spec, or not a string). :class:`StandInError` naming the spec when its argument or
    mode is bad, when it names another agent's stand-in, or when it is an old spelling
    (``noisy:0.3``, ``standin-off``, ``standin:0.5``): removed, the new one named."""
    if not isinstance(spec, str):
        return None
    text = spec.strip()
    if text == "standin":     # the agent's default stand-in, whatever its name
        default = _default(stand_ins)
        return _read(default, text, None) if default is not None else None
    name, sep, argument = text.partition(":")
    if name == "standin" and sep:
        owner = argument.partition(":")[0]
        if owner == agent:
            return _new_spelling(text, stand_ins, agent)
        agents = _agent_names()
        if owner in agents:
            mine = _modes(stand_ins, agent)
            raise StandInError(f"{text}: a stand-in of {owner}, not of {agent}"
                               + (f"; {agent}'s stand-ins: {mine}" if mine else ""))
        close = difflib.get_close_matches(owner, sorted(agents), n=1, cutoff=0.75)
        if close:     # standin:depps:0.3: a slip in the agent's name, not an old spelling
            raise StandInError(f"{text}: there is no agent {owner!r} (did you mean "
                               f"{close[0]!r}?); {agent}'s stand-ins: "
                               f"{_modes(stand_ins, agent) or 'none'}")
    new = _instead(text, stand_ins, agent) if stand_ins else None
    if new is not None:
        raise StandInError(removed(text, new))
    return None


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
        chosen = next(s for s in stand_ins if s.name == found[0])
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

