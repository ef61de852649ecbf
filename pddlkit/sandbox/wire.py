"""The reply channel's framing and the depth check both ends use.

Why a frame of two parts: a call's reply is a header line (a JSON object: ok, error, stdout,
seconds, and ``value_bytes``) followed, when the call returned a value, by exactly
``value_bytes`` bytes of the value's JSON and a newline. The host can then refuse an oversized
value or header *before* decoding it (each part has its own cap: ``Policy.max_reply`` for the
value, :func:`header_cap` for the rest), reads each part in linear time, and never re-encodes
a value the worker already encoded.

Why a depth limit (``Policy.max_depth``): JSON decoding recurses, so a value nested 2,000
deep raised ``RecursionError`` in the host. :func:`too_deep` finds the nesting without
decoding (strings removed with a few ``bytes`` operations, then a running sum over the brackets),
a few passes of ``bytes.replace`` removing the innermost pairs, then, for a value deeper
than those passes, a running sum over the runs of brackets left, which stops as soon as it
passes the limit: linear in the reply); the worker refuses such a value as a bad return, and the host refuses it
again in case the worker was tampered with.

Imported by the worker as a top-level module (see :mod:`.worker`) and by the host as
``pddlkit.sandbox.wire``: the standard library only.
"""

from __future__ import annotations

import re

_BRACKETS = b"[]{}"
_OTHERS = bytes(b for b in range(256) if b not in _BRACKETS)
#: every bracket as a square one (depth does not care which kind)
_SQUARE = bytes.maketrans(b"{}", b"[]")
#: a run of opening or of closing brackets
_RUNS = re.compile(rb"\[+|\]+")
#: passes that each remove the innermost pairs before the running sum takes over: a value
#: a few levels deep (every plan, list of actions, table) never needs the sum
QUICK_PASSES = 6
#: room in a header beside the printed output: messages, the source line, advice, numbers
HEADER_ROOM = 64 * 1024
#: the longest text kept in an error's message, source line or advice
TEXT_CAP = 2000


def header_cap(max_output: int) -> int:
    """The most bytes a reply's header may take: the printed output at its cap, every
    character escaped as ``\\uXXXX`` (6 bytes), plus :data:`HEADER_ROOM`."""
    return 6 * int(max_output) + HEADER_ROOM


def depth(data: bytes, limit: int = 1 << 30) -> int:
    """How deeply the JSON text ``data`` nests arrays and objects (0 for a scalar), counted
    up to ``limit + 1`` (then it stops: deeper than the limit is all a caller needs)."""
    # escapes first (an escaped backslash, then an escaped quote: JSON reads escapes left to
    # right, as ``replace`` does), so every quote left opens or closes a string; the text
    # between them alternates outside, inside, outside...
    plain = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = b"".join(plain.split(b'"')[::2]).translate(_SQUARE, _OTHERS)
    level = 0
    while skeleton and level < QUICK_PASSES:
        shorter = skeleton.replace(b"[]", b"")
        if len(shorter) == len(skeleton):  # unbalanced: not JSON, call it too deep
            return limit + 1
        skeleton, level = shorter, level + 1
    if not skeleton:
        return level
    # deeper still: a running sum over the runs of brackets left, stopped past the limit
    top = now = 0
    for run in _RUNS.finditer(skeleton):
        if run.group()[0] == 91:  # "["
            now += run.end() - run.start()
            if now > top:
                top = now
                if level + top > limit:
                    return limit + 1
        else:
            now -= run.end() - run.start()
    return level + top


def too_deep(data: bytes, limit: int) -> bool:
    """Whether ``data`` nests deeper than ``limit`` (no work when it has fewer brackets)."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    return depth(data, limit) > limit
