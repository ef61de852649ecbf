"""The PDDL language core: object model (model), reader, writer, plan files.

Import from the submodules (``pddlkit.pddl.reader`` ...) or from ``pddlkit`` itself.
"""
