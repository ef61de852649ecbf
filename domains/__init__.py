"""Bundled PDDL files: reference models of pddlkit's environments and learned domains.

Installed as ``pddlkit.domains`` so the files travel with the wheel; ``path()`` finds them.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent


def path(relative: str) -> Path:
    """The absolute path of a bundled file, e.g. ``path("coin-collector/domain.pddl")``."""
    p = ROOT / relative
    if not p.is_file():
        available = sorted(str(x.relative_to(ROOT)) for x in ROOT.rglob("*.pddl"))
        raise FileNotFoundError(f"no bundled file {relative!r}; available: {available}")
    return p
