"""Docstring markup as plain text: what help screens and listings print from docstrings."""

from __future__ import annotations

import re

_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")


def plain(text: str) -> str:
    """Docstring markup as plain text for the terminal: ``code`` and :role:`target` lose their
    marks (a ``~`` target keeps only its last name)."""
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2),
                     text)
    return text.replace("``", "")
