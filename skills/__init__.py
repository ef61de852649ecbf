"""Skill planners: an LLM plans over parameterized skills that a controller runs (DEPS here).

Packaged as ``pddlkit.skills``; the core knows nothing of it (front ends plug in through entry
points)."""
