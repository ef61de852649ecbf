"""CoPiC (seed 000): planning programs chosen by the LoRA critic and evolved from their results
(``pddlkit.programs.copic``). Built piece by piece; so far the StarCraft II programs of the
offline stand-in writer (:mod:`.sc2_programs`)."""
