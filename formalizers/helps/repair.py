"""``repair``: trivial PDDL slips fixed in code before an LLM call is spent on them (an
unclosed bracket, a missing ``:requirements`` entry, ...: :func:`pddlkit.formalizers.repair.
repair` lists them). A pass over each answer's files (its ``files_pass`` hook, run by the
loop before every plan: :mod:`pddlkit.formalizers.passes`); each fix is one line of the
record's ``repair`` event and counted in the episode's ``repairs``."""

from __future__ import annotations

from pddlkit.formalizers.answer import Files
from pddlkit.formalizers.base import Context


class RepairPass:
    """The files with their trivial slips fixed, and the fixes."""

    counter, event, key = "repairs", "repair", "fixes"

    def apply(self, files: Files, context: Context) -> tuple[Files, list[str]]:
        from pddlkit.formalizers.repair import repair

        repaired = repair(files)
        return repaired.files, repaired.fixes
