"""Prompt files: one template syntax and one loader for every front end.

Every bundled prompt is a text file with ``$name`` placeholders (``string.Template``: PDDL's
parentheses, JSON's braces and Python's dict literals need no escaping; ``$$`` is a dollar
sign). :func:`read_prompt` reads one from a front end's prompt folder and says which files the
folder has when the name is wrong; :func:`fill` substitutes the values and, unlike
``safe_substitute``, refuses a template that names a value nobody gave (a ``$tsk`` typo in a
user's own prompt would otherwise reach the LLM as written), naming the file, the placeholder
and the values there are. Values given but not used are fine: one set of values serves
templates that show more or less of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, Union


class PromptTemplateError(ValueError):
    """A prompt template names a value that was not given (or is not a valid template)."""


@dataclass(frozen=True)
class PromptFile:
    """A prompt template and where it came from (for error messages)."""

    text: str
    source: str = "<string>"

    @property
    def fields(self) -> set[str]:
        """The placeholder names the template uses."""
        names = set()
        for match in Template.pattern.finditer(self.text):
            name = match.group("named") or match.group("braced")
            if name:
                names.add(name)
        return names

    def fill(self, **values: Any) -> str:
        """The template with ``values`` substituted (each converted with ``str``)."""
        missing = sorted(self.fields - set(values))
        if missing:
            raise PromptTemplateError(
                f"prompt {self.source}: no value for {', '.join('$' + m for m in missing)}; "
                f"the values here are {', '.join('$' + v for v in sorted(values)) or '(none)'} "
                f"(write $$ for a dollar sign)")
        try:
            return Template(self.text).substitute({k: str(v) for k, v in values.items()})
        except ValueError as exc:   # a lone "$" or "$1"
            raise PromptTemplateError(f"prompt {self.source}: {exc} (write $$ for a dollar "
                                      f"sign)") from None


def read_prompt(folder: Union[str, Path], name: str) -> PromptFile:
    """``folder/name`` as a :class:`PromptFile`; FileNotFoundError naming the files there."""
    path = Path(folder) / name
    if not path.is_file():
        there = sorted(p.name for p in Path(folder).glob("*.txt")) if Path(folder).is_dir() else []
        raise FileNotFoundError(f"no prompt {name} in {folder}"
                                + (f"; the prompts there: {', '.join(there)}" if there else ""))
    return PromptFile(path.read_text(encoding="utf-8"), str(path))


def fill(template: Union[str, PromptFile], **values: Any) -> str:
    """``template`` (text or a :class:`PromptFile`) with ``values`` substituted, strictly."""
    file = template if isinstance(template, PromptFile) else PromptFile(template)
    return file.fill(**values)
