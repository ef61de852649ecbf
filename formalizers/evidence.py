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


def believed_states(domain_text: str, problem_text: str, steps: list[str],
                    one_place: Iterable[str] = ()) -> Optional[Beliefs]:
    """The :class:`Beliefs` along ``steps``; None when the files cannot be read (a planned
    pair always can). ``one_place``: predicates of one argument of which one atom holds
    whatever the domain's schemas say (the player's place while the model writes the
    domain, :class:`~.base.KeepsOneValue`), kept so along the plan (:func:`one_place_kept`).
    Why: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at
    2559e99), its gotolocation added the new place and deleted none, so every command after
    a plan's "go to cabinet 1" was believed done at two places, did not match the place the
    game named, and was dropped as evidence: the four refused "take creditcard 2 from
    cabinet 1" (the cabinet closed) refuted no pickupobject."""
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
            states.append(one_place_kept(states[-1], tried.successor, set(one_place)))
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


def one_place_kept(before, after, predicates: set):
    """``after`` with the player only where the step put it: a step that adds an atom of one
    of ``predicates`` (of one argument: where the player is) leaves no other atom of it.
    Why: facts progressed through the model's own schemas, and Qwen2.5-Coder 1.5B's
    gotolocation added ``(player ?to)`` and deleted nothing (the household's dev seed 1 at
    a516ea4: after two moves the player was believed at the sinkbasin and the cabinet, and
    at a third place after each next move)."""
    added = {a for a in after.atoms if a[0] in predicates and len(a) == 2
             and a not in before.atoms}
    if not added:
        return after
    from pddlkit.semantics.state import State

    gone = {a[0] for a in added}
    return State([a for a in after.atoms if a[0] not in gone or len(a) != 2 or a in added],
                 after.fluents)
