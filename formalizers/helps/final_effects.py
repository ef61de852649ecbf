"""``final_effects`` (issue 75; in the ``--small-model`` preset since 2026-12-07): while the
model writes the domain, the world's answer to the command that won an episode is read like
any other observation (one facts call per sentence), so the winning command's schema meets
what it did.

Why: ``schema_check`` checks a schema's effects only against the facts read from the
observation after a one-command plan, and that reading happens when the formalizer is next
asked for files; after a win nothing asks it, so the last command of every won episode was
never evidence for effects. In CoinCollector that command is always ``take coin``, so
``take``'s effect was never checked at all: the learned domain
``domains/learned/coin-collector/7bbe41a16326`` (Qwen2.5-Coder 1.5B, dev seeds 1-3 at
1886144) leaves the coin in the room after taking it, which every one of its 20 test
episodes' takes disagrees with by the simulator's rules (``benchmarks/learned_transitions.py``:
``take successor: extra (thing ?i ?r)``). "You take the coin." read as ``(holding coin)``
refutes that take through ``check_transitions``' whereabouts rule (a thing held is at no
place), and the next episode asks for take again with that finding.

What it costs: one facts call per sentence of the last answer, once per won episode. The
finding is acted on in the next episode (``--keep-domain``: ``pddlkit learn-domain``), so it
needs two episodes or more; the last episode's is recorded (a ``transition-observed``
event), but learn-domain's check before saving reads the transitions without the
whereabouts rule, and does not see it. In the preset: in both learning runs measured
(dev seeds 1-3, 2e889f5 and 9790032) it refuted the take that left the coin and the rewrite
deleted it; a recorded learning run replays with the helps its record names, so the runs
recorded before it replay as they were.

The loop asks for the reading (:class:`..base.ReadsTheLastAnswer`); the modular formalizer
reads through its own facts part (``Writing.read_last``).
"""

from __future__ import annotations


def wanted(formalizer) -> bool:
    """Whether the last answer is read: the help is on, the model writes the domain
    (``schema_check``, no frozen domain), and a one-command plan's observation is awaited
    (the winning command ran alone, so its answer is what it did)."""
    return bool(getattr(formalizer, "final_effects", False) and formalizer.schema_check
                and formalizer.fixed_domain is None and formalizer.evidence.awaiting)
