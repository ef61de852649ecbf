"""The benchmark harness: sweeps of agents x environments x difficulty x seeds x LLM specs.

``pddlkit bench CONFIG`` expands a TOML or YAML config into cells (:mod:`.config`), runs the
cells not already in the results file on local processes or Ray tasks (:mod:`.executors`),
appends one JSON row per episode as each finishes (:mod:`.results`), and ``pddlkit report``
turns the rows into the papers' tables and plots (:mod:`.report`, :mod:`.plots`).

Agents are plug-ins: the entry-point group ``pddlkit.agents`` maps a name to a function
``run(cell: dict) -> dict`` that plays one episode and returns its metrics. The harness knows
nothing of the environments or the formalizers; ``pddlego`` and ``plangen`` are registered by
``pddlkit.formalizers`` the way a third party would register its own.
"""

from .config import Cell, Sweep, load_sweep
from .results import ResultsFile
from .runner import run_sweep

__all__ = ["Cell", "Sweep", "load_sweep", "ResultsFile", "run_sweep"]
