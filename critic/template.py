"""The critic's prompt: a template file with ``$task``, ``$observation``, ``$history`` and
``$candidates`` (``string.Template``, as the other front ends' prompts, so braces and
parentheses in observations need no escaping).

A critic learns on the exact text its template renders, so the template's SHA-256 is saved with
the adapters and checked when they are loaded (:mod:`pddlkit.critic.checkpoint`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, Union

BUNDLED = Path(__file__).resolve().parent / "prompts"
FIELDS = ("task", "observation", "history", "candidates")


@dataclass(frozen=True)
class PromptTemplate:
    text: str
    source: str = "<string>"

    @classmethod
    def load(cls, path: Union[str, Path, None] = None) -> "PromptTemplate":
        """A template file; ``None`` is the bundled TWOSOME-style one; a bare name such as
        ``"twosome"`` is a bundled file."""
        if path is None:
            path = BUNDLED / "twosome.txt"
        elif not Path(path).exists() and (BUNDLED / f"{path}.txt").is_file():
            path = BUNDLED / f"{path}.txt"
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"critic prompt template {path} does not exist (bundled: "
                                    f"{', '.join(p.stem for p in BUNDLED.glob('*.txt'))})")
        return cls(path.read_text(), str(path))

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def render(self, task: str = "", observation: str = "", history: Sequence[str] = (),
               candidates: Sequence[str] = ()) -> str:
        """The prompt text; the history is one line per earlier step, the candidates a
        comma-separated list (an empty history leaves no blank line)."""
        from pddlkit.llm.prompts import PromptFile

        # strict: a placeholder nobody fills (a typo in a user's template) is an error
        text = PromptFile(self.text, self.source).fill(
            task=task.strip(), observation=" ".join(observation.split()),
            history="\n".join(history), candidates=", ".join(candidates))
        return "\n".join(line for line in text.splitlines() if line.strip()).strip()
