"""Run code an LLM wrote, never in the host process (see the README's Sandbox section).

``SandboxWorker(source, policy).call(...)`` runs one program's entry function in a persistent
worker process; ``SandboxPool(source, policy).map(inputs)`` scores a program over a data set
on every core, in order, resumable. Faults come back as :class:`ProgramError` data.
"""

from .errors import ErrorKind, ProgramError
from .host import CallResult, SandboxWorker, network_isolated
from .policy import DEFAULT_POLICY, STDLIB_ALLOWED, Policy
from .pool import SandboxPool, score_program

__all__ = ["ErrorKind", "ProgramError", "CallResult", "SandboxWorker", "Policy",
           "DEFAULT_POLICY", "STDLIB_ALLOWED", "network_isolated", "SandboxPool",
           "score_program"]
