"""PDDLego+'s offline formalizers as ``--llm`` names them (:mod:`pddlkit.agents.standins`):
``standin:pddlego`` reads the PDDL from the environment's own observations;
``standin:pddlego:noisy[:RATE]`` does so with slips injected at RATE. The old spellings
``observation`` and ``noisy:RATE`` were removed (issue 74): they are refused with the new
spelling named. The names below (``observation``, ``noisy``) are what the formalizer code
compares, not spellings ``--llm`` reads."""

from pddlkit.agents.standins import StandIn, rate

STAND_INS = (
    StandIn("observation", mode="",
            knows="stand-in (PDDL from the environment's own observations)"),
    StandIn("noisy", rate, "standin:pddlego:noisy:0.3", mode="noisy", form="RATE",
            knows="stand-in (observation PDDL with injected slips)"))
