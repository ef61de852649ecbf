"""MiniGrid helpers: finding a cell, turning and walking with the agent's facing (IPP's
skeleton)."""
from collections import deque

STEP = {"UP": (-1, 0), "RIGHT": (0, 1), "DOWN": (1, 0), "LEFT": (0, -1)}
CLOCKWISE = ["UP", "RIGHT", "DOWN", "LEFT"]


def find(grid, kind):
    """(row, column) of the first cell holding `kind` ("AGENT", "KEY", "DOOR", ...), or
    None."""
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == kind:
                return (r, c)
    return None


def turned(facing, action):
    """The facing after the turn `action` ("LEFT" or "RIGHT")."""
    k = CLOCKWISE.index(facing)
    return CLOCKWISE[(k + (1 if action == "RIGHT" else -1)) % 4]


def ahead(cell, facing):
    """The cell in front of `cell` when facing `facing`."""
    dr, dc = STEP[facing]
    return (cell[0] + dr, cell[1] + dc)


def walk(grid, start, facing, goal, stand_on=True, open_cells=()):
    """The shortest actions (LEFT, RIGHT, MOVE) from `start` facing `facing` to stand on
    `goal` (stand_on=True) or to stand next to it facing it (stand_on=False, to PICKUP a key
    or UNLOCK a door); with the final (cell, facing). The agent walks on "", "GOAL" and
    "AGENT" cells and on `open_cells` (an unlocked door, a key already picked up). Returns
    (actions, cell, facing), or None when no walk exists."""
    goal = tuple(goal)
    passable = {tuple(c) for c in open_cells}

    def can_enter(cell):
        r, c = cell
        return (0 <= r < len(grid) and 0 <= c < len(grid[r])
                and (grid[r][c] in ("", "GOAL", "AGENT") or cell in passable))

    def done(cell, face):
        return cell == goal if stand_on else ahead(cell, face) == goal

    state = (tuple(start), facing)
    seen = {state: []}
    queue = deque([state])
    while queue:
        cell, face = queue.popleft()
        if done(cell, face):
            return seen[(cell, face)], cell, face
        options = [("LEFT", (cell, turned(face, "LEFT"))),
                   ("RIGHT", (cell, turned(face, "RIGHT")))]
        if can_enter(ahead(cell, face)):
            options.append(("MOVE", (ahead(cell, face), face)))
        for action, nxt in options:
            if nxt not in seen:
                seen[nxt] = seen[(cell, face)] + [action]
                queue.append(nxt)
    return None
