"""``listed_types``: over a frozen domain too, where the environment lists every command it
would take now (``admissible_complete``: pddlkit's own simulators, TextWorld's coin games), a
type the listed commands fill may name only the names they give it, as while the model
writes the domain (:meth:`.command_facts.CommandFacts.close_listed`): a word of the game's
prose typed as a direction is typed again, and a type label that makes another word one is
refused.

Why: Qwen2.5-Coder 1.5B's TextWorld row on its learned CoinCollector domain (its ten test
seeds at 57d1eb0, ``examples/real-llm/small-model-test.md``) had 72 of its 177 commands
refused, nearly all ``go`` to a word of the prose read as a direction (``go exit`` 19 times,
``go doors`` 11). The closure was made only while the model writes the domain, so the rows
over a frozen domain, and their records, stay as measured.

Off by default and not in the preset: it was found on test seeds, so it was measured on
seeds never used, beside the random floor there (``benchmarks/small_model.py``'s
``learned-listed`` row, five TextWorld test seeds no row had used, at 6e39638,
``examples/real-llm/small-model-test.md``): 0 of 5 won, as random;
no ``go`` to a prose word was left, and ``take`` of a prose word typed an item took its
place (22 of 27 refusals: no ``take`` is listed before the coin is in view, so the item type
is never closed). It counts itself (``listed-types``) once a type is closed over a frozen
domain. Over a learned entry reused with its aspects (``reused_aspects``) the closure is
on without it, as while the entry was learnt (uncounted there, as while learning): measured
with Qwen2.5-Coder 1.5B over the household's ``c38cd3aeac63`` frozen (dev seeds 2-3 at
ab7874e and e96f22c), the banner's ``alfred`` and the prose's ``open`` were typed as
receptacles and offered as places to go ("go to alfred", refused).
"""

from __future__ import annotations


def closes_listed(formalizer, context) -> bool:
    """Whether a type the listed commands fill is closed now: the list is complete, and
    the model writes the domain (always), or plays a learned entry reused with its aspects
    (read as while it was learnt), or ``listed_types`` is on over a frozen one."""
    return bool(context.commands_complete) and (
        not formalizer.fixed_domain or bool(getattr(formalizer, "listed_types", False))
        or bool(getattr(formalizer, "reused_aspects", None)))
