"""``try_untried``: with ``--schema-check``, while the model writes the domain, a command the
game lists now, of an action no command has run for yet, is run once as a one-command plan
(code's step, not the planner's), so the schema check sees what it does. Not in the preset.

Why: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seeds 0-1 at
e99f859 and bb67ced): a schema is checked only against the commands that ran, and the model's
first pickupobject and putobject added ``(clean ?o)`` or ``(hot ?o)`` (the slot grammar's
one changing line, the last); no goal needed them, so no plan took or put anything, and
nothing refuted them. Asked which action makes a held fact true, the model chose putobject
("move {o} to {r}") over pickupobject; of six wordings of that question tried on the
running server, two named the take. What a command does is what the world shows, not what
a small model guesses: "take cd 1 from countertop 1" answered "You pick up the cd 1 from
the countertop 1.", and the held fact read from it refutes a pickupobject that does not
add it (``schema_check``'s effect-missing finding, then the rewrite with that line listing
the atom after). Mahdavi et al. (2024) refine an LLM's domain from such exploration walks.

The rule: before the goal is asked for (an update, not after an error), the first command of
the environment's list (its order) whose action has a schema, has no transition yet (in
this learning run), was not tried this episode, and whose words name every parameter,
each a name the facts or the typed names know. The step costs one action of the budget
and is counted as the help acting; its transition and what the answer after it states
are evidence as any one-command plan's. The files recorded for the step are the model's
(with the goal it last wrote).
"""

from __future__ import annotations

from typing import Optional

from pddlkit.formalizers.base import SIMULATION_ERROR, SOLVER_ERROR, Context


def untried_command(formalizer, context: Context, signatures: dict
                    ) -> Optional[tuple[str, str]]:
    """(the listed command, its action as ``(name arg ...)``) to run once, or None (see the
    module)."""
    from pddlkit.formalizers.modular.parts import _bind_command

    if context.kind in (SOLVER_ERROR, SIMULATION_ERROR) or not formalizer.bodies:
        return None
    ran = {t.name for t in formalizer.evidence.transitions}
    known = set(formalizer._fact_types()) | set(formalizer.name_types)
    for command in context.valid_actions:
        bound = _bind_command(str(command), signatures)
        if bound is None:
            continue
        name, binding = bound
        params = [v.lower() for v, _t in signatures[name][0]]
        if name not in formalizer.bodies or name.lower() in ran \
                or name in formalizer.tried_untried or not params \
                or any(v not in binding or binding[v] not in known for v in params):
            continue
        return str(command), "(" + " ".join([name] + [binding[v] for v in params]) + ")"
    return None
