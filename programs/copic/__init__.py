"""CoPiC (seed 000): planning programs chosen by the LoRA critic and evolved from their results
(``pddlkit.programs.copic``).

- :mod:`.loop`: the algorithm (:class:`~.loop.Copic`, :class:`~.loop.CopicConfig`): n programs
  per task type in sandbox workers, critic scoring or a uniform choice, PPO every K steps,
  evolution every N episodes below the threshold, frozen deployment, the world-model filter.
- :mod:`.world`: the :class:`~.world.ProgramWorld` protocol; :mod:`.sc2_world`,
  :mod:`.household_world` (household and ALFWorld, with the agent API of
  :mod:`.household_agent`), :mod:`.nethack_world`.
- :mod:`.standin`: the offline program writer (:mod:`.sc2_programs`,
  :mod:`.household_programs`, :mod:`.nethack_programs`).
- :mod:`.runner` and :mod:`.cli`: ``pddlkit run copic`` and the ``copic`` bench agent.
"""
