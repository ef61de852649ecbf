"""What each command the agent ran is evidence of (issue 75): the facts believed before it,
the ground action it stood for and whether the world accepted it, written to the record as a
``transition`` event, so a domain can be checked against every one of them
(:func:`pddlkit.semantics.transitions.check_transitions`, and :func:`transitions` here to read
them back from a record).

The facts believed before a step are the planned problem's ``:init`` progressed through the
plan's earlier steps by the files' own domain: what the formalizer believed, not the
simulator's state (nothing here reads it). So the evidence is as good as the beliefs: a fact
the model got wrong makes a transition look like a refusal the schema should have
predicted. The facts read after a step come with the next files; these events leave
``after`` empty, and a transition read back carries preconditions as evidence, not effects.
"""

from __future__ import annotations

from typing import Iterable, Optional


def believed_states(domain_text: str, problem_text: str, steps: list[str]) -> Optional[list]:
    """The state before each step (``steps[k]`` runs in ``states[k]``), as far as the files'
    domain applies them; None when the files cannot be read (a planned pair always can)."""
    try:
        from pddlkit.pddl.reader import parse_domain, parse_problem
        from pddlkit.semantics.simulate import simulate
        from pddlkit.semantics.world import World

        world = World(parse_domain(domain_text), parse_problem(problem_text))
        states = [world.initial_state]
        for step in steps[:-1]:
            tried = simulate(world, states[-1], step)
            if not tried.applicable:
                break
            states.append(tried.successor)
        return [world, *states]
    except Exception:   # noqa: BLE001 - evidence is never worth a crashed episode
        return None


def transition_event(world_and_states: Optional[list], k: int, command: str, action: str,
                     succeeded: bool) -> Optional[dict]:
    """The ``transition`` event's fields for step ``k`` of a plan, or None past what the
    files' domain could progress."""
    if world_and_states is None or k + 1 >= len(world_and_states):
        return None
    from pddlkit.semantics.state import format_atom

    world, state = world_and_states[0], world_and_states[k + 1]
    return {"command": command, "action": action, "succeeded": succeeded,
            "before": sorted(format_atom(a) for a in state.atoms),
            "objects": {name: types[0] for name, types in world.object_types.items() if types}}


def transitions(events: Iterable[dict]) -> list:
    """The ``transition`` events of a record, as :class:`~pddlkit.semantics.transitions.
    Transition` (``after`` left empty: see the module)."""
    from pddlkit.semantics.transitions import Transition

    return [Transition(e["action"], frozenset(e["before"]), bool(e["succeeded"]), None,
                       dict(e.get("objects") or {}),
                       f"episode {e.get('episode')}, step {e.get('step')}: {e['command']}")
            for e in events if e.get("type") == "transition"]

