"""Program skeletons for IPP's ``skeleton`` option (issue 76, off by default): tested helpers
over a task's own API, so the model writes the body of ``solve`` only.

Why: Qwen2.5-Coder 1.5B's GRASP and DoorKey programs spent their rounds on the search itself
(a DoorKey program searched from (0, 0), a wall, and returned None; GRASP programs crashed
in their own path code). A person writing these programs would import a path search; the
skeleton gives the model one, so what is measured is the strategy.

Each skeleton is a module of this package: the tests import and check its helpers here, on
the host (it is pddlkit's code, not generated code). :func:`skeleton_source` gives its text
without the module docstring; IPP shows that text in its prompts and runs it after the
model's code, in the sandbox, so a helper the model redefines is ours again when ``solve``
runs (the prompt says so).
"""

from __future__ import annotations

import ast
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
