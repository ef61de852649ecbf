"""GRASP helpers: moves, a shortest path and the nearest cell of a kind (IPP's skeleton)."""
from collections import deque

MOVES = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}
DIAGONAL_MOVES = {"UPLEFT": (-1, -1), "UPRIGHT": (-1, 1), "DOWNLEFT": (1, -1),
                  "DOWNRIGHT": (1, 1)}


def moves(is_diagonals_allowed):
    """The move names and their (row, column) steps."""
    return {**MOVES, **DIAGONAL_MOVES} if is_diagonals_allowed else dict(MOVES)


def can_enter(grid, cell):
    """Whether `cell` (row, column) is on the grid and not an obstacle."""
    r, c = cell
    return 0 <= r < len(grid) and 0 <= c < len(grid[0]) and grid[r][c] != "O"


def shortest_paths(grid, start, is_diagonals_allowed):
    """For every cell reachable from `start`: the list of move names of a shortest walk."""
    start = tuple(start)
    paths = {start: []}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for name, (dr, dc) in moves(is_diagonals_allowed).items():
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt not in paths and can_enter(grid, nxt):
                paths[nxt] = paths[cell] + [name]
                queue.append(nxt)
    return paths


def path_to(grid, start, goal, is_diagonals_allowed):
    """The move names of a shortest walk from `start` to `goal`, or None if none exists."""
    return shortest_paths(grid, start, is_diagonals_allowed).get(tuple(goal))


def nearest(grid, start, value, is_diagonals_allowed, skip=()):
    """(cell, moves) of the nearest reachable cell holding `value` (such as "E") that is not
    in `skip`, or None when there is none."""
    paths = shortest_paths(grid, start, is_diagonals_allowed)
    found = [(len(p), cell) for cell, p in paths.items()
             if grid[cell[0]][cell[1]] == value and cell not in set(map(tuple, skip))]
    if not found:
        return None
    _, cell = min(found)
    return cell, paths[cell]
