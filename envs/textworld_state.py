"""A running TextWorld game's whole state, taken and put back in place (snapshot/restore).

Why: :class:`~pddlkit.envs.textworld_adapter.TextWorldEnv` restored a snapshot by resetting
the game and replaying every command since (exact, since the games are deterministic), and
a replayed command costs what a played one does: TextWorld's state tracking works out every
applicable action after each (``GameProgression.update``). An explorer that restores at
every branch, or a PDDLego+ loop that undoes a failed plan late in a game, paid for the
whole history each time: the breadth-first search of ``tw-simple`` (613 states) spent 72%
of its time in restores. TextWorld's own ``Environment.copy()`` starts a new interpreter for
each copy (about 90 ms), slower than the replay it would save.

So a snapshot keeps what a step changes, and nothing else: the interpreter's memory through
Jericho's own ``get_state()``/``set_state()`` (RAM, stack, registers and the random number
generator: what TextWorld itself uses to read "look" and "inventory" without a turn), and,
for each of TextWorld's wrappers, the attributes its ``copy()`` copies (the game state dicts,
the quest progression, the last action, the move count). The game, the Inform7 grammar and
the file names are shared, as ``copy()`` shares them. What a later step changes in place
(the quest progression, lists) is copied when taken and again when put back, so one snapshot
can be restored any number of times; values that were one object (each wrapper's ``state``
is the same dict, which holds the progression) stay one object. A snapshot holds the
interpreter's memory (about 41 KB for ``tw-simple``: 39 KB of RAM, a 2 KB stack) and the
progression's facts, where a replayed one held only its commands: an explorer that keeps a
snapshot per state it found (613 there) holds some tens of megabytes.

Where the layers are not the ones this was written against (another TextWorld release, an
interpreter that is not Jericho), :func:`take` returns ``None`` and the adapter replays, as
before. ``tests/test_envs_textworld.py`` checks, on random walks, that a game restored here
answers every next command as the replayed one does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

#: per wrapper class, the attributes a step changes (the others are shared, as in ``copy()``)
STEPPED = {
    "TWInform7": (),
    "StateTracking": ("_game_progression", "state", "_last_action", "_previous_winning_policy",
                      "_current_winning_policy", "_moves"),
    "Inform7Data": ("state", "_tracked_infos", "_prev_state"),
    "GameData": ("state",),
    "JerichoEnv": ("state", "_reset"),
}


@dataclass(frozen=True)
class EngineState:
    """The interpreter's memory and each wrapper's stepped attributes, as copies."""

    interpreter: tuple
    layers: tuple[tuple[tuple[str, Any], ...], ...]
    last: Any


def _layers(env: Any) -> Optional[list]:
    """The wrapper chain down to the interpreter, or ``None`` if any layer is unknown."""
    chain = []
    while env is not None:
        if type(env).__name__ not in STEPPED:
            return None
        chain.append(env)
        env = getattr(env, "_wrapped_env", None)
    if not chain or getattr(chain[-1], "_jericho", None) is None:
        return None
    return chain


def _copy(value: Any, memo: dict) -> Any:
    """A copy of a stepped value, one per original object (``memo``). A state dict
    (``GameState``) is copied shallowly: a step makes a new one and leaves the old one as it
    was, except for what it holds that a step changes in place (the quest progression, copied
    first), which the copy holds as its copy; ``GameState.copy()`` deep-copies the game too
    (about 90 ms). Anything else with a ``copy()`` (the progression, a list) is copied by it."""
    if value is None or isinstance(value, (bool, int, float, str, tuple)):
        return value
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, dict):
        copied = type(value)(value)
        for key, item in copied.items():
            if id(item) in memo:
                copied[key] = memo[id(item)]
    elif callable(getattr(value, "copy", None)):
        copied = value.copy()
    else:
        copied = value
    memo[id(value)] = copied
    return copied


def take(env: Any, last: Any) -> Optional[EngineState]:
    """The state of ``env`` (the object ``textworld.start`` returned) and of ``last`` (the
    last state dict the adapter read); ``None`` where it cannot be taken."""
    chain = _layers(env)
    if chain is None:
        return None
    memo: dict = {}
    try:
        layers = tuple(tuple((name, _copy(getattr(layer, name), memo))
                             for name in STEPPED[type(layer).__name__])
                       for layer in chain)
        return EngineState(chain[-1]._jericho.get_state(), layers, _copy(last, memo))
    except AttributeError:
        return None


def put(env: Any, saved: EngineState) -> Any:
    """Put ``saved`` back into ``env``; returns the restored ``last``. The caller checked that
    ``env`` runs the game ``saved`` was taken from."""
    chain = _layers(env)
    if chain is None or len(chain) != len(saved.layers):
        raise ValueError("the TextWorld environment is not the one the snapshot was taken of")
    chain[-1]._jericho.set_state(saved.interpreter)
    memo: dict = {}
    for layer, attributes in zip(chain, saved.layers):
        for name, value in attributes:
            setattr(layer, name, _copy(value, memo))
    return _copy(saved.last, memo)
