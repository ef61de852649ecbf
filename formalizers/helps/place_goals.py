"""``place_goals``: while the model writes the domain, and no goal offered names a thing the
task names, only goals of where the player is are offered, and the opening of a container
the facts say is closed: the next place to look.

Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at abe5bba,
3 rooms): the coin was not seen yet, so no goal could name it, and the goals offered were
every atom the model's own predicates could reach: it chose ``(closed front corridor
open_door)``, then ``(cleaned front_door)`` (a predicate copied from the prompt's example
game), then ``(cleaned unknown_corridor)``, and the plans ("take front door", "take unknown
corridor") were refused until the simulation retries ran out; no move to an unseen room was
ever a goal. Over a frozen domain it acts only where the aspects are known: a learned
entry reused that was saved with them (``learning.json``'s ``aspects``); over a reference
domain, or an entry saved without them, nothing changes, so those rows and their records
are as they were. Why over a learned one: measured with Qwen2.5-Coder 1.5B on the
household's first two test seeds with its learned ``c38cd3aeac63`` frozen (at 72c4222; so
measured on test seeds never used, ``examples/real-llm/domain-writing.md``),
every goal after the first moved a placeholder (``(thing unknown_cabinet_1 desk_1)``: "take
unknown cabinet 1 from cabinet 1", refused) until the simulation's retries ran out; no
place to look was offered, though learning had offered them.

The openings: learning the household's domain (dev seeds 0-1 at 4f43d75), 58 of Qwen's 60
commands were "go to", and neither task's thing was seen: it lay in a closed drawer or
cabinet, and a goal is an atom made true, so no goal offered could open one. A fact of the
predicates written for "which doors or containers are closed" over one thing (a container:
a door, between two places, hides a place, which the place goals reach already) that some
action of the model's deletes is offered as ``(not (closed drawer_1))``: first where the
player is at that container, after the places otherwise.

Which predicates say where the player is, and which say closed, comes from the lines the
model wrote them under (``predicate_slots``' aspects). When no candidate is of such a
predicate, the list is left as it was.
"""

from __future__ import annotations

from ..modular.parts import _head, _kind_word
from ..atoms import atom_of, fact_text
from .predicate_slots import CLOSED_ASPECT   # (its one-argument facts: containers that may hide a thing)
from .task_focus import task_things


def offer(formalizer, reached: list) -> list:
    player = set(formalizer._player_predicates())
    if not player:
        return reached
    place_kinds = place_types(formalizer, player)
    if any(names_task_thing(formalizer, atom, place_kinds) for _old, _cost, atom in reached):
        return reached
    places = [r for r in reached if _head(r[2]) in player]
    here, elsewhere = openings(formalizer, player)
    offered = here + places + elsewhere
    return offered or reached


def place_types(formalizer, player: set) -> set:
    """The types of where the player is, as the model declared its place predicates."""
    return {kind for s in formalizer._signatures() if s.name in player for kind in s.types}


def names_task_thing(formalizer, atom: str, places: set) -> bool:
    """Whether ``atom`` names a thing the task names that is not a place: the household's
    "put two creditcard on countertop" names the countertop too, where the player goes, and
    a goal over the countertop alone is no sign the creditcard was seen (measured with
    Qwen2.5-Coder 1.5B learning the household, dev seed 0 at adbb068: 17 goals were
    ``(thing sponge_1 countertop_1)``, so no place goal was offered and no drawer opened)."""
    if not task_things(formalizer, atom_of(atom)):
        return False
    return any(_kind_word(name) in formalizer._task_words
               and formalizer.name_types.get(name) not in places
               for name in atom_of(atom).args)


def openings(formalizer, player: set) -> tuple[list, list]:
    """The candidates ``(False, 1, "(not (P x))")`` for each fact ``(P x)`` believed now of a
    closed-aspect predicate that an action of the model's deletes: (those where the player
    is at ``x``, the others)."""
    closed = {name for name, aspect in formalizer._aspects().items()
              if aspect == CLOSED_ASPECT}
    opening = deleted_by(formalizer, closed)
    deleted = set().union(*opening.values()) if opening else set()
    if not deleted:
        return [], []
    facts = formalizer._facts()
    at = {w for f in facts for w in f.args[:1] if f.predicate in player}
    refused = refused_openings(formalizer, player, {a for a, d in opening.items() if d})
    here, elsewhere = [], []
    for atom in facts:
        if len(atom.args) == 1 and atom.predicate in deleted \
                and atom.args[0] not in refused:
            goal = (False, 1, f"(not {fact_text(atom)})")
            (here if atom.args[0] in at else elsewhere).append(goal)
    return here, elsewhere


def deleted_by(formalizer, predicates: set) -> dict[str, set]:
    """action -> those of ``predicates`` its effect deletes: of the schemas the model wrote
    (their text), or of a frozen domain's actions (a learned entry reused), read from the
    domain the formalizer has parsed (``_domain_model``)."""
    if formalizer.fixed_domain is None:
        return {action: {name for name in predicates if f"(not ({name} " in " ".join(
                    body.lower().split(":effect", 1)[-1].split())}
                for action, body in formalizer.bodies.items()}
    from pddlkit.pddl.model import iter_effect_literals

    dom = formalizer._domain_model()
    return {} if dom is None else {
        action.name.lower(): {lit.atom.predicate.lower() for lit in
                              iter_effect_literals(action.effects) if not lit.positive}
        & predicates for action in dom.actions}


def refused_openings(formalizer, player: set, actions: set) -> set:
    """The containers an opening was refused at in this episode: a command of one of
    ``actions`` (those whose effect deletes a closed-aspect fact) over a name the facts
    believed before it put the player at, which the world refused. Its opening is not
    offered again: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev
    seeds 0-1 at e5ed7a0), 8 of the 28 commands refused were ``open`` of a countertop, a
    desk or a sofa ("The countertop 1 cannot be opened or closed."), offered again because
    the model's facts said it closed and its openobject needed nothing else. A refusal
    where the player was believed elsewhere says nothing of the container."""
    evidence = formalizer.evidence
    out = set()
    for t in evidence.transitions[evidence.episode_start:]:
        if t.succeeded or t.name not in actions:
            continue
        before = map(atom_of, t.before)
        here = {a.args[0] for a in before if a.predicate in player and a.args}
        out |= here & set(t.action.strip("() ").lower().split()[1:])
    return out
