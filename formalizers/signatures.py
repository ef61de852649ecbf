"""The actions a formalizer must write, as data: each one's name, typed parameters and the
environment's command for it (issue 74: "structure as data").

Why: the prompts show the actions as text (``1. :action move  (command: move {dir})`` then
``:parameters (?from - room ?to - room ?dir - direction)``), and the modular formalizer and
the constrained decoder used to read that text back with regular expressions. A
:class:`Signatures` is the records and the text together: :func:`.prompts.env_signatures`
builds the records from the environment (its PDDL domain, or its declared
``action_signatures``) and renders the text once; a formalizer reads the records
(:meth:`Signatures.by_name`, or the tuple itself, whose items are the grammars'
:class:`~pddlkit.pddl.grammars.ActionSignature`), a prompt reads ``str(signatures)``. Text
a caller writes by hand (a ``Context`` made in a test or by an own driver) is read once,
where the Context is made (:meth:`Signatures.read`).

An action whose parameters are not all ``?variables`` (a domain's ``(either a b)`` type)
is shown in the text and has no record, as when the text was parsed back: no grammar here
takes such a type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional

from pddlkit.pddl.grammars import ActionSignature, parse_signatures, read_parameters


@dataclass(frozen=True)
class CommandSignature(ActionSignature):
    """An action with the environment's command template that performs it (``take {o}
    from {r}``; the action's name where the environment has none)."""

    command: str = ""


class Signatures(tuple):
    """The actions (:class:`CommandSignature`, in the prompt's order) and the text the
    prompts show; ``str()`` is the text."""

    text: str

    def __new__(cls, items: Iterable[CommandSignature] = (), text: Optional[str] = None
                ) -> "Signatures":
        made = super().__new__(cls, tuple(items))
        made.text = render(made) if text is None else text
        return made

    def __str__(self) -> str:
        return self.text

    def by_name(self) -> dict[str, tuple[tuple[tuple[str, str], ...], str]]:
        """action -> (parameters, command template)."""
        return {s.name: (s.parameters, s.command or s.name) for s in self}

    @classmethod
    def read(cls, text: str) -> "Signatures":
        """The records of a text written as the prompts write it."""
        commands = dict(re.findall(r":action\s+(\S+)\s+\(command:\s*([^)]*)\)", text))
        return cls((CommandSignature(s.name, s.parameters, commands.get(s.name, s.name))
                    for s in parse_signatures(text)), text)


def signature(index: int, action: str, command: str, parameters: str) -> tuple[
        Optional[CommandSignature], str]:
    """One action's record (None when its parameters are not all ``?variables``) and its
    lines of the text (``index`` counts from 1)."""
    params = read_parameters(parameters)
    record = CommandSignature(action, params, command) if params is not None else None
    return record, _lines(index, action, command, parameters)


def render(items: Iterable[CommandSignature]) -> str:
    """The text of records made without one (the prompts' form)."""
    return "\n".join(_lines(k, s.name, s.command or s.name,
                            " ".join(f"{v} - {t}" if t else v for v, t in s.parameters))
                     for k, s in enumerate(items, 1))


def _lines(index: int, action: str, command: str, parameters: str) -> str:
    """One action as the prompts show it."""
    return f"{index}. :action {action}  (command: {command})\n:parameters ({parameters})"
