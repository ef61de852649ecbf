"""``declare_objects``: the objects a problem file uses without declaring them, declared in
code and typed by the predicates they fill (:func:`pddlkit.formalizers.objects.
declare_objects`; a name the predicates give two types is left alone). A pass over
each answer's files (its ``files_pass`` hook: :mod:`pddlkit.formalizers.passes`); each name
declared is one line of the record's ``objects-declared`` event and counted in the episode's
``objects_declared``."""

from __future__ import annotations

from pddlkit.formalizers.answer import Files
from pddlkit.formalizers.base import Context


class DeclarePass:
    """The files with the undeclared objects declared, and what was declared."""

    counter, event, key = "objects_declared", "objects-declared", "fixes"

    def apply(self, files: Files, context: Context) -> tuple[Files, list[str]]:
        from pddlkit.formalizers.objects import declare_objects

        return declare_objects(files)
