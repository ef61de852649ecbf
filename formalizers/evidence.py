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

from dataclasses import dataclass
from typing import Iterable, Optional


@dataclass(frozen=True)
class Beliefs:
    """What the formalizer believed along one plan: ``states[k]`` is the state before step k
    (as far as the files' domain applies the steps), ``objects`` name -> type."""

    states: list
    objects: dict

    def event(self, k: int, command: str, action: str, succeeded: bool) -> Optional[dict]:
        """The ``transition`` event's fields for step ``k``, or None past what the files'
        domain could progress."""
        if k >= len(self.states):
            return None
        from pddlkit.semantics.state import format_atom

        return {"command": command, "action": action, "succeeded": succeeded,
                "before": sorted(format_atom(a) for a in self.states[k].atoms),
                "objects": self.objects}


def believed_states(domain_text: str, problem_text: str, steps: list[str]
                    ) -> Optional[Beliefs]:
    """The :class:`Beliefs` along ``steps``; None when the files cannot be read (a planned
    pair always can)."""
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
        return Beliefs(states, {name: types[0] for name, types in world.object_types.items()
                                if types})
    except Exception:   # noqa: BLE001 - evidence is never worth a crashed episode
        return None


def transitions(events: Iterable[dict]) -> list:
    """The ``transition`` events of a record, as :class:`~pddlkit.semantics.transitions.
    Transition` (``after`` left empty: see the module), each with the atoms a
    ``transition-observed`` event says the observation after it stated (a one-command plan's,
    with ``schema_check``: :mod:`.helps.schema_check`)."""
    import dataclasses

    events = list(events)
    said = [e for e in events if e.get("type") == "transition-observed"]
    observed = {(e.get("episode"), e["where"]): frozenset(e["observed"]) for e in said
                if "observed" in e}
    held: dict = {}     # what a refusal said held before the refused command
    for e in said:
        if "held before" in e:
            held.setdefault((e.get("episode"), e["where"]), []).append(e["held before"])
    dropped = {(e.get("episode"), e["where"]) for e in said if "not evidence" in e}
    # a longer plan's later commands, given facts a refuted schema carried the player into
    # (``SchemaEvidence.place_unstated``): out of the evidence in play, so out here too
    dropped |= {(e.get("episode"), where) for e in said for where in e.get("dropped", ())}
    out = []
    for e in events:
        if e.get("type") == "transition":
            # a record's episodes are numbered by their seeds: said as seeds
            t = as_transition(e, f"seed {e.get('episode')}, step {e.get('step')}: "
                                 f"{e['command']}")
            key = (e.get("episode"), f"step {e.get('step')}: {e['command']}")
            if key in dropped:   # refused for a name the world has not: no evidence
                continue
            seen = observed.get(key)
            t = dataclasses.replace(t, observed=seen) if seen is not None else t
            for literal in held.get(key, ()):
                fact = literal[len("(not "):-1].strip() if literal.startswith("(not ") else ""
                t = dataclasses.replace(t, before=t.before - {fact} if fact
                                        else t.before | {literal})
            out.append(t)
    return out


def as_transition(event: dict, where: str = "", answer: str = ""):
    """One ``transition`` event's fields as a :class:`~pddlkit.semantics.transitions.
    Transition` (``after`` left empty: see the module), with the world's ``answer``."""
    from pddlkit.semantics.transitions import Transition

    return Transition(event["action"], frozenset(event["before"]), bool(event["succeeded"]),
                      None, dict(event.get("objects") or {}), where, answer=answer)
