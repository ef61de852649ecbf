"""The PDDL language core: object model, reader, writer, plans."""

from .model import *  # noqa: F401,F403
from .reader import parse_domain, parse_problem, read_domain, read_problem  # noqa: F401
