"""Text environments as PDDL worlds (``pddlkit.envs``).

Home of CoinCollector, the ALFWorld-style household and the adapters to real TextWorld and
ALFWorld games, added by the text-environments issue. The core never imports this package.
"""
