"""The reply channel's framing, the checks both ends make before decoding, and the JSON
codec both ends use.

Why a frame of two parts: a call's reply is a header line (a JSON object: ok, error, stdout,
seconds, and ``value_bytes``) followed, when the call returned a value, by exactly
``value_bytes`` bytes of the value's JSON and a newline. The host can then refuse an oversized
value or header *before* decoding it (each part has its own cap: ``Policy.max_reply`` for the
value, :func:`header_cap` for the rest), reads each part in linear time, and never re-encodes
a value the worker already encoded.

Why a look at the value before it is decoded (:func:`shape`, one pass over the bytes in
chunks of :data:`CHUNK`, strings skipped): decoding costs the host far more than the bytes
it reads. JSON decoding recurses, so a value nested 2,000 deep raised ``RecursionError`` in
the host (``Policy.max_depth``); and every list, dict and number is a Python object, so a
16 MiB reply of empty lists became 400 MiB in the host, and three of them in one ``map()``
2.4 GB (``Policy.max_reply_elements``). Both are counted without decoding, in memory that
stays a small part of the reply (a chunk's pieces, and one byte per bracket: the brackets are
bounded by the element cap, which is checked first); the worker refuses such a value as a bad
return, and the host refuses it again in case the worker was tampered with.

Why a codec of its own (:func:`encode`, :func:`decode`): the worker shares its interpreter
with the program, which can replace ``json.loads``, ``json.dumps`` or anything in the
``json`` package's modules; a program that did changed the answer of its own later calls.
The functions here hold the C encoder and scanner themselves, taken when this module was
imported (in the worker, before any program exists), and look nothing up in ``json`` when
they run. They also refuse what ``json.loads`` accepts but JSON is not: ``NaN``,
``Infinity``, ``-Infinity``, and numbers such as ``1e999`` that overflow to infinity
(:func:`shape` says whether a number in the text could; only then is each float checked,
so the common case keeps the C scanner's own float parsing).

Imported by the worker as a private module (see :mod:`.worker`) and by the host as
``pddlkit.sandbox.wire``: the standard library only.
"""

from __future__ import annotations

import json.decoder
import json.encoder
import json.scanner
import re

_BRACKETS = b"[]{}"
#: every bracket as a square one (depth does not care which kind)
_SQUARE = bytes.maketrans(b"{}", b"[]")
#: bytes that are neither a bracket nor a separator (deleted from a chunk's skeleton)
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"[]{},:")
#: a run of opening or of closing brackets
_RUNS = re.compile(rb"\[+|\]+")
#: a number that may overflow a float has an exponent of 100 or more (or a long run of
#: zeros after the ``e``), or 200 digits in a row (with an exponent under 100, a float needs
#: 210 integer digits to pass 1.8e308); each is shorter than :data:`_TAIL`. The digits are
#: found with ``translate`` and ``find`` (a regular expression tried at every byte took 1.5 s
#: over 16 MiB), the exponents by a search that runs only where a digit precedes an ``e``
_BIG_EXPONENT = re.compile(rb"[eE]\+?0*[1-9][0-9][0-9]|[eE]\+?0{100}")
#: digits as ``0``, ``e`` and ``E`` as ``e``, the rest as spaces
_NUMBERISH = bytes(0x30 if 0x30 <= b <= 0x39 else 0x65 if b in b"eE" else 0x20
                   for b in range(256))
_DIGIT_RUN = b"0" * 200
_TAIL = 256
#: the bytes read at a time by :func:`shape` (its transient memory is a few times this)
CHUNK = 1 << 16
#: passes that each remove the innermost pairs before the running sum takes over: a value
#: a few levels deep (every plan, list of actions, table) never needs the sum
QUICK_PASSES = 6
#: room in a header beside the printed output: messages, the source line, advice, numbers
HEADER_ROOM = 64 * 1024
#: the longest text kept in an error's message, source line or advice
TEXT_CAP = 2000

_INF = float("inf")


def header_cap(max_output: int) -> int:
    """The most bytes a reply's header may take: the printed output at its cap, every
    character escaped as ``\\uXXXX`` (6 bytes), plus :data:`HEADER_ROOM`."""
    return 6 * int(max_output) + HEADER_ROOM


class Shape:
    """What :func:`shape` found: ``elements`` (an upper bound on the list items, dict entries,
    lists and dicts), ``depth`` (the nesting, or on the quick path an upper bound of it within
    the limit; ``None`` when counting stopped at the element cap), and ``big_numbers``
    (whether a number in the text could overflow a float)."""

    __slots__ = ("elements", "depth", "big_numbers")

    def __init__(self, elements: int, depth, big_numbers: bool) -> None:
        self.elements, self.depth, self.big_numbers = elements, depth, big_numbers


def shape(data, max_elements: int = 1 << 62, depth_limit: int = 1 << 30,
          quick: bool = True) -> Shape:
    """The cost of decoding the JSON text ``data`` (bytes or bytearray), without decoding
    it: one pass in chunks, strings skipped. Counting stops past ``max_elements`` (the
    depth is then not computed), and the depth is counted up to ``depth_limit + 1``.

    ``quick``: a text shorter than ``max_elements`` with no more brackets than
    ``depth_limit`` (every plan, every small answer) is within both caps whatever its
    strings hold, so only its numbers are looked at, in place (the full pass cost a call
    20 µs more, on both ends)."""
    n = len(data)
    if quick and n < max_elements:
        brackets = data.count(b"[") + data.count(b"{")
        if brackets <= depth_limit:
            marks = data.translate(_NUMBERISH)
            big = marks.find(_DIGIT_RUN) >= 0 or (
                b"0e" in marks and _BIG_EXPONENT.search(data) is not None)
            return Shape(n + 1 if n else 0, brackets, big)
    view = memoryview(data)
    inside = False                   # whether the chunk starts inside a string
    elements = 1 if n else 0         # the value itself; then one per [ { , :
    big = False
    tail = b""
    brackets = bytearray()           # the brackets outside strings, all as [ and ]
    start = 0
    while start < n:
        end = min(n, start + CHUNK)
        while end < n and view[end - 1] == 0x5C:  # never split an escape from its backslash
            end += 1
        chunk = view[start:end].tobytes()
        start = end
        # escapes first (an escaped backslash, then an escaped quote: JSON reads escapes left
        # to right, as ``replace`` does), so every quote left opens or closes a string; the
        # text between them alternates outside, inside, outside...
        pieces = chunk.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
        outside = b"".join(pieces[1::2] if inside else pieces[0::2])
        if len(pieces) % 2 == 0:
            inside = not inside
        del pieces, chunk
        if not big:
            window = tail + outside
            marks = window.translate(_NUMBERISH)
            big = marks.find(_DIGIT_RUN) >= 0 or (
                b"0e" in marks and _BIG_EXPONENT.search(window) is not None)
            del marks
            tail = window[-_TAIL:]
        skeleton = outside.translate(None, _NOT_STRUCTURE)
        elements += len(skeleton) - skeleton.count(b"]") - skeleton.count(b"}")
        if elements > max_elements:
            return Shape(elements, None, big)
        brackets += skeleton.translate(_SQUARE, b",:")
    return Shape(elements, _depth(bytes(brackets), depth_limit), big)


def _depth(skeleton: bytes, limit: int) -> int:
    """The nesting of a skeleton of square brackets: a few passes of ``bytes.replace``
    remove the innermost pairs, then, for a value deeper than those passes, a running sum
    over the runs of brackets left, which stops as soon as it passes the limit."""
    level = 0
    while skeleton and level < QUICK_PASSES:
        shorter = skeleton.replace(b"[]", b"")
        if len(shorter) == len(skeleton):  # unbalanced: not JSON, call it too deep
            return limit + 1
        skeleton, level = shorter, level + 1
    if not skeleton:
        return level
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


def depth(data, limit: int = 1 << 30) -> int:
    """How deeply the JSON text ``data`` nests arrays and objects (0 for a scalar), counted
    up to ``limit + 1`` (then it stops: deeper than the limit is all a caller needs)."""
    return shape(data, depth_limit=limit, quick=False).depth


def too_deep(data, limit: int) -> bool:
    """Whether ``data`` nests deeper than ``limit`` (no work when it has fewer brackets)."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    return depth(data, limit) > limit


def refusal(found: Shape, max_depth: int, max_elements: int) -> str:
    """Why a value of this shape is refused ('' when it is not)."""
    if found.elements > max_elements:
        return (f"more than {max_elements} elements (list items and dict entries; "
                "max_reply_elements)")
    if found.depth is not None and found.depth > max_depth:
        return f"nested more than {max_depth} levels deep"
    return ""


# ----------------------------------------------------------------------------- the codec
# taken once, here: nothing below looks anything up in the json package when it runs

_make_scanner = json.scanner.make_scanner
_c_make_encoder = json.encoder.c_make_encoder
_encode_string = json.encoder.encode_basestring_ascii
_JSONEncoder = json.encoder.JSONEncoder


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value == _INF or value == -_INF:
        raise ValueError(f"the number {text[:40]} overflows to infinity")
    return value


class _Context:
    """What the C scanner reads from a decoder when it is made (and never again)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_int = int
    parse_constant = staticmethod(_no_constant)
    memo: dict = {}

    def __init__(self, check_floats: bool) -> None:
        self.parse_float = _finite if check_floats else float
        # the pure-Python scanner (no _json) reads these too
        self.parse_object = json.decoder.JSONObject
        self.parse_array = json.decoder.JSONArray
        self.parse_string = json.decoder.scanstring


_FAST = _Context(False)
_CHECKED = _Context(True)


def decode(text: str, check_floats: bool = True):
    """The value of the JSON text ``text``, which must be exactly one value (no whitespace
    around it: both ends write none). Raises ``ValueError`` for anything else, for ``NaN``
    and ``Infinity``, and, with ``check_floats``, for a number that overflows to infinity
    (pass :attr:`Shape.big_numbers`); ``RecursionError`` for a nesting deeper than the
    interpreter's limit (the callers check the depth first)."""
    scan = _make_scanner(_CHECKED if check_floats else _FAST)
    try:
        value, end = scan(text, 0)
    except StopIteration as stop:
        raise ValueError(f"no JSON value at character {stop.value}") from None
    if end != len(text):
        raise ValueError(f"extra data at character {end}")
    return value


def _not_json(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def encode(value) -> str:
    """The JSON text of ``value``, compact, ASCII only; ``ValueError`` for NaN, infinities
    and circular references, ``TypeError`` for what JSON has no form for."""
    if _c_make_encoder is not None:
        return "".join(_c_make_encoder({}, _not_json, _encode_string, None, ":", ",", False,
                                       False, False)(value, 0))
    return _JSONEncoder(separators=(",", ":"), allow_nan=False,  # pragma: no cover - no _json
                        default=_not_json).encode(value)
