"""PLAP (seed 002): an LLM plans over parameterized skills; a receding-horizon executor plays
them on the real MicroRTS engine."""
