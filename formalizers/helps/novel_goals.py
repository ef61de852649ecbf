"""``novel_goals``: only atoms never true so far in the episode are offered while any is
reachable. Why: a goal true in an earlier state takes the agent back where it has been
(measured with Qwen2.5-Coder 1.5B on CoinCollector dev seeds: the goal ``(at kitchen)`` chosen
again and again). The atoms left out are kept on the formalizer (``_been``), so an answer that
picks one is told it was reached already."""

from __future__ import annotations


def offer(formalizer, reached: list) -> list:
    if not any(not old for old, _cost, _atom in reached):
        return reached
    formalizer._been = {atom for old, _cost, atom in reached if old}
    return [r for r in reached if not r[0]]
