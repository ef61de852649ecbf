"""The offline stand-ins an agent takes for ``--llm``, and the one parser of their specs.

Why: each front end has stand-ins written ``NAME[:ARGUMENT]`` (DEPS's ``standin:0.3``, PLAP's
``standin-noisy:0.5``, PDDLego+'s ``noisy:0.2``, IPP's ``standin:carry,cost``), and each once
read its argument itself, at run time: ``standin:abc`` ended in "could not convert string to
float" and ``standin:7`` was taken as an error rate of 700%. An agent now declares its stand-ins
(:class:`StandIn`, in :attr:`~.spec.AgentSpec.stand_ins`) and :func:`parse_stand_in` reads
them, on the command line (argparse, before anything loads) and in the front end alike, so a
bad argument is refused with the spec named and an example of a good one.

    STAND_INS = (StandIn("standin", rate, "standin:0.3", default=0.3),
                 StandIn("observation"))
    parse_stand_in("standin:0.5", STAND_INS)   # ("standin", 0.5)
    parse_stand_in("openai:gpt-4o", STAND_INS)  # None: an LLM spec, not a stand-in
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

    def spelled(self) -> str:
        """``name`` or ``name[:FORM]``, for listings of an agent's stand-ins."""
        return f"{self.name}[:{self.form or 'ARG'}]" if self.argument else self.name


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


def parse_stand_in(spec: Any, stand_ins: Sequence[StandIn]) -> Optional[tuple[str, Any]]:
    """(name, argument) when ``spec`` names one of ``stand_ins`` (the argument read, or the
    stand-in's default when none is written); None when it names none of them (an LLM spec,
    or not a string); :class:`StandInError` naming the spec when its argument is bad."""
    if not isinstance(spec, str):
        return None
    name, sep, argument = spec.strip().partition(":")
    for stand_in in stand_ins:
        if name != stand_in.name:
            continue
        if not sep or (not argument and stand_in.argument is not None):
            return stand_in.name, stand_in.default
        example = f" (e.g. {stand_in.example})" if stand_in.example else ""
        if stand_in.argument is None:
            raise StandInError(f"{spec}: the stand-in {name!r} takes no argument; write "
                               f"{name}")
        try:
            return stand_in.name, stand_in.argument(argument)
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise StandInError(f"{spec}: {exc}{example}") from None
    return None
