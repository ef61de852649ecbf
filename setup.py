"""The package list, computed: every folder under the mapped source folders of
``[tool.setuptools] package-dir`` (pyproject.toml) whose name is a Python identifier is a
package, code or data (prompt templates, bundled PDDL, learned domains). Listing them by hand
missed data folders, which setuptools then warned it would ignore; the library of learned
domains also grows a folder per entry. Everything else is in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
ROOTS = {"pddlkit": "pddlkit", "pddlkit.formalizers": "formalizers",
         "pddlkit.programs": "programs", "pddlkit.envs": "envs", "pddlkit.critic": "critic",
         "pddlkit.skills": "skills", "pddlkit.domains": "domains"}
SKIP = {"__pycache__"}


def packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        base = ROOT / folder
        for path in [base, *sorted(p for p in base.rglob("*") if p.is_dir())]:
            rel = path.relative_to(base).parts
            if any(part in SKIP or not part.isidentifier() for part in rel):
                continue
            found.append(".".join((name, *rel)))
    return found


setup(packages=packages())
