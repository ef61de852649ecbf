"""A breadth-first explorer over any TextEnv, using only what the environment returns.

It knows nothing of the game's internals: the commands it tries are the admissible commands
in ``info``, a state is recognised by what "look" and "inventory" say, and it moves between
states with snapshot()/restore(). Used to check that an environment (or an adapter to a real
game) can be won, and as a baseline agent that needs no model.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Optional

INFORMATIONAL = ("look", "look around", "inventory", "examine")


@dataclass
class Exploration:
    won: bool
    commands: list[str] = field(default_factory=list)
    states: int = 0
    steps: int = 0


def breadth_first(env, seed: Optional[int] = None, max_states: int = 5000,
                  look: str = "look", inventory: str = "inventory") -> Exploration:
    """Shortest command sequence to a win (by the states seen), or won=False within limits."""
    env.reset(seed)
    steps = 0

    def key() -> tuple:
        """What the player can tell about the state: the room, what it holds, and what it may
        do (a locked and an unlocked door look alike but admit different commands). Leaves
        the state changed only by 'look' and 'inventory'; the caller restores before moving on."""
        nonlocal steps
        steps += 2
        commands = tuple(sorted(env.admissible_commands()))
        return env.step(look).observation, env.step(inventory).observation, commands

    start = env.snapshot()
    queue = deque([(start, [])])
    visited = {key()}
    while queue and len(visited) < max_states:
        snap, path = queue.popleft()
        env.restore(snap)
        commands = [c for c in env.admissible_commands()
                    if not c.startswith(INFORMATIONAL)]
        for i, command in enumerate(commands):
            if i:
                env.restore(snap)
            result = env.step(command)
            steps += 1
            if result.won:
                return Exploration(True, path + [command], len(visited), steps)
            if result.terminated or result.truncated or result.error:
                continue
            child = env.snapshot()
            k = key()
            if k not in visited:
                visited.add(k)
                queue.append((child, path + [command]))
    return Exploration(False, [], len(visited), steps)
