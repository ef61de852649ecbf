"""``unlisted_refusals``: with ``--schema-check``, where the environment lists every command it
would take now (``admissible_complete``: pddlkit's own simulators), a command of the model's
actions over the objects believed that the list leaves out is evidence the world would refuse
it: a schema whose precondition holds there is refuted and asked for again. Not in the preset:
with the predicates Qwen2.5-Coder 1.5B writes it refuted every close-door, and learning saved
nothing. The modular formalizer adds these transitions to the schema check's evidence at each
step (``ModularFormalizer._list_commands``).

With the help off, the schema check still takes the left-out commands of the actions whose
schema has no precondition (:func:`unconditional`): such a schema allows its command over
any objects at any time, so a complete list that leaves one out refutes it whatever the
facts believed. Measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seeds
0-1 at 8a4e8e9): its sliceobject had no precondition and an effect that made every
predicate true, so plans reached their goals through it, over words no game object has
("slice textworld with textworld", "slice room with room"): 7 of the 15 refusals, none
evidence (the world said there was no such thing), until the simulation retries ran out."""

from __future__ import annotations

import re

from pddlkit.formalizers.base import Context


def unlisted(context: Context, signatures: dict, bodies, objects: dict[str, str],
             facts) -> list:
    """With ``schema_check``, where the environment's list of admissible commands is complete
    (``Context.commands_complete``): the commands of the model's actions, over the objects
    believed, that the list leaves out, as transitions the world would refuse (evidence that
    a schema allowing one is too weak). Taken in turn from each action (each command's words
    filled with the believed objects of their parameters' types; the unnamed parameters left
    as variables), at most :data:`pddlkit.formalizers.helps.schema_check.LISTED_PER_STEP`.
    Why: measured with
    Qwen2.5-Coder 1.5B learning CoinCollector's domain on dev seeds 1-3 (1886144), the three
    games' 14 commands were all explained and the domain was saved, yet its ``close-door``
    needs no door (nothing in it says one exists) and ``open-door`` opens a door from one side
    only: no learning game ran those commands where the world refuses them, and a planner that
    trusts the schema then does. The list the game shows at each step already says which
    door commands it would take; the ones it leaves out are the refusals no game had to run."""
    from itertools import product

    from pddlkit.semantics.transitions import Transition

    from pddlkit.formalizers.helps.schema_check import LISTED_PER_STEP

    shown = {" ".join(str(c).lower().split()) for c in context.valid_actions}
    step = len(context.memory.history)
    per_action: list[list] = []
    for name in sorted(bodies):
        if name not in signatures:
            continue
        params, template = signatures[name]
        slots = re.findall(r"\{(\w+)\}", template)
        kinds = {v.lower(): (t or "").lower() for v, t in params}
        if not slots or any("?" + s.lower() not in kinds for s in slots):
            continue
        choices = [sorted(n for n, k in objects.items() if k.lower() == kinds["?" + s.lower()])
                   for s in slots]
        if not all(choices):
            continue
        found = []
        for values in product(*choices):
            command = template
            for slot, value in zip(slots, values):
                command = command.replace("{" + slot + "}", value.replace("_", " "))
            if " ".join(command.lower().split()) in shown:
                continue
            binding = {"?" + s.lower(): v for s, v in zip(slots, values)}
            action = "(" + " ".join([name] + [binding.get(v.lower(), v.lower())
                                              for v, _t in params]) + ")"
            found.append(Transition(action, frozenset(facts), False, objects=dict(objects),
                                    where=f"step {step}: '{command}' not listed"))
            if len(found) >= LISTED_PER_STEP:
                break
        per_action.append(found)
    taken = []
    while len(taken) < LISTED_PER_STEP and any(per_action):
        for found in per_action:
            if found and len(taken) < LISTED_PER_STEP:
                taken.append(found.pop(0))
    return taken


def unconditional(bodies: dict) -> dict:
    """The schemas (action -> body) with no precondition, or an empty one (``(and)``)."""
    out = {}
    for name, body in bodies.items():
        text = " ".join(body.lower().split())
        if ":precondition" not in text:
            out[name] = body
            continue
        precondition = text.split(":precondition", 1)[1].split(":effect", 1)[0].strip()
        if precondition in ("", "()", "(and)", "(and )"):
            out[name] = body
    return out
