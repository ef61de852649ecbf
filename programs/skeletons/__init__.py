"""Program skeletons for IPP's ``skeleton`` option (issue 76, off by default): tested helpers
over a task's own API, so the model writes the body of ``solve`` only.

Why: Qwen2.5-Coder 1.5B's GRASP and DoorKey programs spent their rounds on the search itself
(a DoorKey program searched from (0, 0), a wall, and returned None; GRASP programs crashed
in their own path code). A person writing these programs would import a path search; the
skeleton gives the model one, so what is measured is the strategy.

Each skeleton is a module of this package: the tests import and check its helpers here, on
the host (it is pddlkit's code, not generated code). :func:`skeleton_source` gives its text
without the module docstring, which IPP runs after the model's code, in the sandbox;
:func:`load_skeleton` adds what the prompts show (each helper's signature and docstring, and
the constants) and the names it defines. Shown whole, the helpers were copied into the
answer by Qwen2.5-Coder 1.5B (GRASP, 2026-12-02: the answer ran to its 1,000-token cap on the
copy before ``solve`` was written); the names let IPP drop such copies from the model's
code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent

#: the skeleton of each task (IPP's task names, MiniGrid's by their game)
SKELETONS = {"grasp": "grasp", "minigrid-doorkey": "minigrid", "minigrid-unlock": "minigrid",
             "minigrid-unlockpickup": "minigrid"}


def skeleton_source(task: str) -> Optional[str]:
    """The helpers' source for ``task`` (its module without the docstring), or None when the
    task has no skeleton."""
    name = SKELETONS.get(task)
    if name is None:
        return None
    text = (HERE / f"{name}.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    first = tree.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        text = "\n".join(text.split("\n")[first.end_lineno:])
    return text.strip() + "\n"


@dataclass(frozen=True)
class Skeleton:
    """A task's helpers as IPP uses them: ``source`` (run after the model's code), ``api``
    (what the prompts show: the imports and constants as written, each function as its
    signature and docstring with ``...`` for the body) and ``names`` (what it defines at the
    top level, so a copy in the model's code can be dropped)."""

    source: str
    api: str
    names: frozenset


def load_skeleton(task: str) -> Optional[Skeleton]:
    """``task``'s :class:`Skeleton` (its module read and parsed once), or None when the task
    has none."""
    source = skeleton_source(task)
    if source is None:
        return None
    lines = source.split("\n")
    shown, names = [], set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
            first = node.body[0]
            head = lines[node.lineno - 1:first.lineno - 1]
            if ast.get_docstring(node) is not None:
                head += lines[first.lineno - 1:first.end_lineno]
            shown.append("\n".join(head + [" " * first.col_offset + "..."]))
            continue
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        shown.append("\n".join(lines[node.lineno - 1:node.end_lineno]))
    return Skeleton(source, "\n\n".join(shown) + "\n", frozenset(names))
