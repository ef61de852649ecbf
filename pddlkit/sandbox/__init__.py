"""Run code an LLM wrote, never in the host process (see the README's Sandbox section).

``SandboxWorker(source, policy).call(...)`` runs one program's entry function in a persistent
worker process; ``SandboxPool(source, policy).map(inputs)`` scores a program over a data set
on every core, in order, resumable. Faults come back as :class:`ProgramError` data.

Workers start inside bubblewrap where it works (:mod:`.kernel`), so the boundary is the
kernel's; the audit hook and import policy inside the worker are defense in depth.
``worker.isolation["guarantees"]`` says who keeps what.
"""

from .errors import ErrorKind, ProgramError
from .host import CallResult, SandboxWorker, network_isolated
from .kernel import KernelIsolationUnavailable
from .policy import DEFAULT_POLICY, STDLIB_ALLOWED, Policy
from .pool import SandboxPool, score_program

__all__ = ["ErrorKind", "ProgramError", "CallResult", "SandboxWorker", "Policy",
           "DEFAULT_POLICY", "STDLIB_ALLOWED", "network_isolated", "SandboxPool",
           "score_program", "KernelIsolationUnavailable"]
