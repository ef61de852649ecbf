"""A frozen domain is planned with only the actions the environment has a command for
(issue 75: a domain learned in one game, reused in another).

A domain the library holds was learned where its actions had commands; a game it is reused in
may have fewer. CoinCollector's learned domain has ``open-door`` and ``close-door``; TextWorld's
coin games play with CoinCollector's commands but have no door command (their commands are
``move`` and ``take``). A plan with a door action is refused before it runs ("no command for
the action 'close-door'"), and the episode spends its solver retries on it: measured with
the random model on TextWorld's coin game (level 5, dev seeds 0-4, the learned CoinCollector
domain frozen, at 146e687), 5 of the 44 solver errors were such refusals (seeds 1 and 2).
The planner cannot choose an action no command runs, so such an action is left out of the
domain the episode plans with, and a ``domain-actions-left-out`` event names it.

Nothing is left out when every action has a command (every environment's own reference domain,
so the rows over it are as they were), when no action would be left, or when the domain cannot
be read (the loop's checks then say why, as before).
"""

from __future__ import annotations

import dataclasses


def commands_only(domain: str, env) -> tuple[str, list[str]]:
    """(``domain`` less the actions ``env``'s ``action_schema`` has no command for, the names
    left out); ``domain`` as it is, and ``[]``, when none is left out."""
    from pddlkit.diagnostics import Severity
    from pddlkit.pddl.reader import read_domain
    from pddlkit.pddl.writer import write_domain

    commands = {template.action.lower() for template in env.action_schema}
    dom, diagnostics = read_domain(domain)
    if dom is None or not commands or any(d.severity == Severity.ERROR for d in diagnostics):
        return domain, []   # the loop's checks say what is wrong with it, as before
    kept = tuple(a for a in dom.actions if a.name.lower() in commands)
    left = [a.name for a in dom.actions if a.name.lower() not in commands]
    if not left or not kept:
        return domain, []
    return write_domain(dataclasses.replace(dom, actions=kept)), left


def playable_domain(domain: str, env, emit) -> tuple[str, list[str]]:
    """:func:`commands_only` (the domain an episode plans with, the actions left out), with a
    ``domain-actions-left-out`` event (through ``emit``) naming what was left out."""
    playable, left = commands_only(domain, env)
    if left:
        emit("domain-actions-left-out", actions=left,
             why="the environment has no command for them; a plan with one could not run")
    return playable, left
