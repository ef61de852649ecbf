"""pddlkit: plan through a symbolic world model."""
__version__ = "0.1.0"
