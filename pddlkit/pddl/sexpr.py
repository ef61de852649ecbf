"""From text to a bracket tree, recovering from unbalanced parentheses.

The tokens follow the lexical grammar in ``pddl.lark``, read line by line in
:func:`read_sexpr` (lark's lexer over the same grammar, with :func:`read_sexpr_tokens`, is the
reference; a test compares them). The tree is built in the same pass by a small shift/reduce
loop rather than by lark's LALR parser, because the loop
knows PDDL's structure well enough to recover where LLM-written files usually go wrong: a
missing ``)`` is reported at the point where it becomes certain (a new ``(:action`` or
``:effect`` appears inside an unfinished construct, or the file ends), naming the construct
that was left open and the line it was opened on, and parsing resumes as if it had been closed.

Speed (issue 20: at least as fast as Fast Downward's translator parser, which keeps no
positions). Measured on nomystery p10 (0.93 MB), best of 5: lark's lexer plus a token loop took
1.5 s; one compiled expression per line 0.25 s; ``str.split`` on lines without a comment or a
variable 0.09 s for the tree; compiling this same module with Cython (tried, not kept) took
that to 0.057 s, not enough alone and a C compiler on every install. What closed the gap is
doing less: no position is computed for the names inside :init facts, most of a large problem's
tokens, until a diagnostic needs one (:func:`place_tokens`), which brings the tree to 0.046 s;
with the reader's cache of known names, domain plus problem take 0.084 s against FD's 0.119 s
(``benchmarks/parse.py``).

Input that is not PDDL (issue 43: a symlink to ``/dev/zero`` grew to 5.9 GiB; a million ``(``
and 50 MB of junk on one line printed megabytes). :func:`read_file_bytes` stats a file before
opening it and refuses, as one :class:`InputRefused` with a diagnostic's code and hint, what is
not a regular file (a device, a FIFO, a socket, a directory: ``file-not-regular``) and a file
over :func:`max_pddl_bytes` (``file-too-large``): 64 MiB unless ``PDDLKIT_MAX_PDDL_BYTES`` or the
caller (``max_bytes=``, ``pddlkit check --max-bytes``) says otherwise. The largest problem of
the IPC corpus here (nomystery p10) is 0.93 MB, so 64 MiB leaves generated problems a wide
margin while bounding what junk can cost. It opens with ``O_NONBLOCK`` (a file swapped for a
FIFO after the stat cannot block it) and reads at most the limit plus one byte, so a file that
grows while read is refused too. Reading the tree stops with one diagnostic when lists nest
deeper than :data:`MAX_DEPTH` (1000) or after :data:`MAX_TROUBLE` (100) unmatched ``)``, forced
closes, words or lists outside any form and words directly inside ``(define ...)``: the file is
junk by then and the rest would only repeat it. A line longer than :data:`LONG_LINE` (64 KiB)
is tokenized a piece at a time, so a 50 MB line never becomes one list of millions of tokens.
"""

from __future__ import annotations

import os
import re
import stat
from functools import lru_cache
from itertools import count, repeat
from pathlib import Path

from ..diagnostics import DiagnosticSink

# Sections that only ever appear directly inside (define ...).
SECTION_KEYWORDS = frozenset(
    {
        ":requirements", ":types", ":constants", ":predicates", ":functions", ":action",
        ":derived", ":objects", ":init", ":goal", ":metric", ":durative-action",
    }
)
# Keywords that only ever appear directly inside (:action ...) / (:durative-action ...).
ACTION_KEYWORDS = frozenset({":parameters", ":precondition", ":effect"})


class SList(list):
    """A bracketed list of tokens and lists, with the position of its '(' and ')'."""

    __slots__ = ("line", "column", "end_line", "end_column", "closed")

    def __init__(self, line: int, column: int):
        # (list.__init__ is not called: the new list is already empty)
        self.line = line
        self.column = column
        self.end_line = line
        self.end_column = column
        self.closed = True

    def head(self) -> str | None:
        if self and isinstance(self[0], str):
            return self[0].lower()
        return None

    def describe(self) -> str:
        """'(:action move' / '(define' / '(and' — how a person would name this construct."""
        words = []
        for item in self[:2]:
            if not isinstance(item, str):
                break
            words.append(str(item))
            if not item.startswith(":") and item.lower() != "define":
                break
        if words and words[0].lower() == "define" and len(self) > 1 and isinstance(self[1], SList):
            inner = self[1]
            words.append("(" + " ".join(str(x) for x in inner[:2] if isinstance(x, str)) + ")")
        return "(" + " ".join(words)


class Token(str):
    """A token: its text, with ``type`` (``LPAR``, ``RPAR``, ``ATOM`` or ``VARIABLE``, read off
    the text) and the 1-based ``line`` and ``column`` where it starts, as lark's tokens carry
    them."""

    __slots__ = ("line", "column")

    @property
    def type(self) -> str:
        first = self[:1]
        return ("LPAR" if first == "(" else "RPAR" if first == ")" else
                "VARIABLE" if first == "?" else "ATOM")


# The terminals of pddl.lark, one group each; a match with no group is a comment. Whitespace
# is what no alternative matches, so finditer steps over it.
_TOKEN = re.compile(r"(\()|(\))|(\?[^\s();?]*)|([^\s();?]+)|;[^\n]*")


@lru_cache(maxsize=1)
def _lexer():
    from lark import Lark

    grammar = (Path(__file__).parent / "pddl.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=False)


def lark_tokenize(text: str):
    """Lark's tokens for ``text`` from ``pddl.lark``: with :func:`read_sexpr_tokens`, the
    reference :func:`read_sexpr` agrees with (str subclasses with ``.type``, ``.line`` and
    ``.column``)."""
    return _lexer().lex(text)


#: the most lists open at once: real PDDL nests a few dozen deep (the IPC's deepest formulas
#: stay under 100); beyond this the input is junk, and reading it would only cost memory
MAX_DEPTH = 1000
#: the most unmatched ')', forced closes, items outside any list and words directly inside one
#: (after its head) before reading stops: a file with that many is not PDDL with a few slips,
#: and each more would only cost time and memory
MAX_TROUBLE = 100
#: the most words (names and variables) directly inside one list: only (:objects ...) and
#: (:constants ...) hold many, and no planner grounds a quarter of a million objects. Past this
#: the input is junk such as ``(:predicates ab ab ab ...)``, whose millions of words would each
#: cost a located token (about 180 bytes: 3 GB for 50 MB of it); reading stops instead
MAX_WORDS = 250_000
#: lines longer than this are tokenized in pieces of about this size (one line of real PDDL
#: is at most a few thousand characters; a generator's :init on one line may be more)
LONG_LINE = 1 << 16


def read_sexpr(text: str, sink: DiagnosticSink) -> list:
    """The top-level items of ``text`` as SLists and tokens; problems go to ``sink``.

    One pass over the tokens of each line (:func:`_line_values`): a '(' becomes an SList
    when the token after it is known (a section keyword such as ``(:action`` closes what is
    still open, as in :func:`read_sexpr_tokens`), a ')' closes one, and names and variables
    become :class:`Token` objects carrying their position, except inside the facts of a
    problem's ``(:init ...)``: there they stay plain ``str`` and no position is computed,
    because those are most of a large problem's tokens and a well-formed fact needs none.
    :func:`place_tokens` gives such a list its tokens' positions when a diagnostic needs
    them. Positions are found with ``str.find`` from where the last located token ended:
    names hold no parentheses and comments only end a line, so a '(' or ')' is found from
    there even after unlocated names. With :func:`place_tokens` over the whole tree it is the
    same tree with the same diagnostics as :func:`read_sexpr_tokens` over lark's tokens
    (``tests/test_reader.py`` compares them on the corpus and on noise)."""
    top: list = []
    stack: list[SList] = []
    pending = None          # (line, column) of a '(' whose list waits for the next token
    last_line = 0           # the last line with a token, for the end of the file
    init = None             # the problem's (:init ...) list while it is open
    new = Token.__new__
    trouble = 0         # unmatched ')', forced closes and stray top-level items so far
    lines = text.split("\n")
    # (line number, line, where its piece starts, the piece's token texts): a whole line at a
    # time, iterated in C, unless a line is long; then that line a piece at a time
    if len(text) > LONG_LINE and max(map(len, lines)) > LONG_LINE:
        rows = _rows_in_pieces(lines)
    else:
        rows = zip(count(1), lines, repeat(0), map(_line_values, lines))
    for number, line, at, values in rows:
        if not values:
            continue
        last_line = number
        located = 0         # how many of the piece's tokens lie before ``at``
        find = line.find    # ``at``: where the last located token ends (or the piece starts)
        for i, value in enumerate(values):
            if pending is not None:
                if len(stack) > 1 and value[0] not in "()?" and value.lower() in SECTION_KEYWORDS:
                    if _close_until(stack, 1, sink, f"({value}", _at(*pending)):
                        trouble += 1
                        if trouble > MAX_TROUBLE:
                            return _stop(top, stack, sink, *pending)
                if len(stack) >= MAX_DEPTH:   # no PDDL nests this deep: junk, stop here
                    _too_deep(sink, stack, *pending)
                    return top
                lst = SList(*pending)
                if stack:
                    if len(stack) == 1 and value[0] not in "()?" and value.lower() == ":init":
                        init = lst
                    stack[-1].append(lst)
                else:
                    top.append(lst)
                    if value.lower() != "define":   # a list outside (define ...)
                        trouble += 1
                        if trouble > MAX_TROUBLE:
                            return _stop(top, stack, sink, *pending)
                stack.append(lst)
                pending = None
            if value == "(":
                at = find("(", at) + 1
                located = i + 1
                pending = (number, at)
            elif value == ")":
                at = find(")", at) + 1
                located = i + 1
                if stack:
                    lst = stack.pop()
                    lst.end_line, lst.end_column = number, at
                else:
                    _unexpected_close(sink, number, at)
                    trouble += 1
                    if trouble > MAX_TROUBLE:
                        return _stop(top, stack, sink, number, at)
            elif init is not None and value[0] != ":" and len(stack) > 2 and stack[1] is init:
                lst = stack[-1]
                lst.append(value)
                if len(lst) > MAX_WORDS:
                    for skipped in values[located:i + 1]:   # locate this word
                        at = find(skipped, at) + len(skipped)
                    return _too_many_words(top, stack, sink, number, at - len(value) + 1)
            else:
                if located < i:
                    for skipped in values[located:i]:   # unlocated :init names before this one
                        at = find(skipped, at) + len(skipped)
                located = i + 1
                at = find(value, at) + 1
                tok = new(Token, value)
                tok.line = number
                tok.column = at
                if (value[0] == ":" and len(stack) > 1 and value.lower() in ACTION_KEYWORDS
                        and stack[-1].head() not in (":action", ":durative-action")):
                    depth = _action_depth(stack)
                    if depth is not None and _close_until(stack, depth + 1, sink, value, tok):
                        trouble += 1
                        if trouble > MAX_TROUBLE:
                            return _stop(top, stack, sink, number, at)
                if stack:
                    stack[-1].append(tok)
                    if len(stack[-1]) > MAX_WORDS:
                        return _too_many_words(top, stack, sink, number, at)
                    # a word directly inside (define ...) after 'define': never PDDL
                    if len(stack) == 1 and len(stack[0]) > 1:
                        trouble += 1
                        if trouble > MAX_TROUBLE:
                            return _stop(top, stack, sink, number, at)
                else:                   # a word outside (define ...)
                    top.append(tok)
                    trouble += 1
                    if trouble > MAX_TROUBLE:
                        return _stop(top, stack, sink, number, at)
                at += len(value) - 1
    if pending is not None:
        lst = SList(*pending)
        (stack[-1] if stack else top).append(lst)
        stack.append(lst)
    if stack:
        last = None
        if last_line:
            column, value = _last_token(lines[last_line - 1])
            last = (last_line, column, len(value))
        _unclosed_at_end(stack, sink, last)
    return top


def _too_deep(sink: DiagnosticSink, stack: list[SList], line: int, column: int) -> None:
    _left_open(stack)
    sink.add("too-deeply-nested", f"more than {MAX_DEPTH} lists open at once: "
             "this is not PDDL (or a generator gone wrong); reading stopped",
             line=line, column=column,
             hint="check that the file is the PDDL you meant to pass")


def _too_many_words(top: list, stack: list[SList], sink: DiagnosticSink, line: int,
                    column: int) -> list:
    """End reading at the word past :data:`MAX_WORDS` in one list: what was read so far."""
    _left_open(stack)
    head = stack[-1].head() if stack else None
    where = f"({head} ...)" if isinstance(head, str) else "one list"
    sink.add("too-many-words", f"more than {MAX_WORDS:,} words directly inside {where}: this "
             "is not PDDL (or a generator gone wrong); reading stopped",
             line=line, column=column,
             hint="check that the file is the PDDL you meant to pass; facts and predicates are "
                  "written in parentheses, one per list")
    return top


def _left_open(stack: list[SList]) -> None:
    """Mark the lists still open where reading stopped as having no ')' (what
    :func:`place_tokens` reads the text again by)."""
    for lst in stack:
        lst.closed = False


def _stop(top: list, stack: list[SList], sink: DiagnosticSink, line: int, column: int) -> list:
    """End reading with one diagnostic once :data:`MAX_TROUBLE` is passed: what was read so
    far. The diagnostic goes first, since a listing shows only the first ones and this one
    says what the others amount to."""
    _left_open(stack)
    sink.add("too-many-errors", f"reading stopped here: more than {MAX_TROUBLE} unmatched "
             "parentheses, or words and lists outside the sections of (define ...), before this "
             "point; this does not look like PDDL", line=line, column=column,
             hint="check that the file is the PDDL you meant to pass; fix the first errors and "
                  "check again")
    sink.items.insert(0, sink.items.pop())
    return top


#: where a long line's pieces end: any whitespace or parenthesis is outside every token, and
#: these are found with ``str.find`` (a regular expression's ``\s`` takes 20 ns a character)
_CUTS = (" ", "(", ")", "\t")


def _rows_in_pieces(lines: list):
    """:func:`read_sexpr`'s rows for text with a line longer than :data:`LONG_LINE`."""
    for number, line in enumerate(lines, 1):
        if len(line) <= LONG_LINE:
            yield number, line, 0, _line_values(line)
        else:
            for start, values in _long_line_pieces(line):
                yield number, line, start, values


def _long_line_pieces(line: str, start: int = 0):
    """The pieces of a line longer than :data:`LONG_LINE` (from ``start``, not inside a
    token) of about that size, as ``(where the piece starts, its token texts)``, empty
    pieces skipped. A piece ends with a
    space, a tab or a parenthesis, so no token is cut, and before the first ';' (no token
    holds one: the rest of the line is a comment). Where each cut character occurs next is
    remembered, so the line is scanned once per character however many pieces it has."""
    end = line.find(";", start)
    if end < 0:
        end = len(line)
    following = dict.fromkeys(_CUTS, -1)
    while start < end:
        want = min(start + LONG_LINE, end)
        stop = end
        for c in _CUTS:
            at = following[c]
            if at < want:
                at = line.find(c, want, end)
                following[c] = at = end if at < 0 else at
            stop = min(stop, at)
        stop = min(stop + 1, end)
        values = _line_values(line[start:stop])
        if values:
            yield start, values
        start = stop


def _last_token(line: str) -> tuple[int, str]:
    """``(column, text)`` of the last token of a line that has one, found from the end, not
    by tokenizing what may be a 50 MB line: the comment (from the first ';') and trailing
    whitespace go; a final parenthesis is the token; otherwise the token is the last word's
    part after its last parenthesis and from its last '?' (which starts a variable)."""
    code = line[:line.find(";")] if ";" in line else line
    code = code.rstrip()
    start = len(code) - len(code.rsplit(None, 1)[-1])
    paren = max(code.rfind("(", start), code.rfind(")", start))
    if paren == len(code) - 1:
        return paren + 1, code[paren]
    start = max(start, paren + 1, code.rfind("?", start))
    return start + 1, code[start:]


def _line_values(line: str) -> list:
    """The texts of one line's tokens. A line with no comment and no variable, most of a
    large problem file, is split by ``str.split`` (the same whitespace as the expression's
    ``\\s``); any other line goes through the expression of ``pddl.lark``'s terminals."""
    if ";" in line or "?" in line:
        return [m.group(m.lastindex) for m in _TOKEN.finditer(line) if m.lastindex is not None]
    return line.replace("(", " ( ").replace(")", " ) ").split()


def _line_tokens(line: str) -> list:
    """``(column, text)`` of each token of one line, 1-based columns."""
    return list(_iter_line_tokens(line))


def _iter_line_tokens(line: str, offset: int = 0):
    """``(column, text)`` of each token of one line (the part of it from ``offset``, which
    must not be inside a token), one at a time so a long line is never one list."""
    pieces = (_long_line_pieces(line, offset) if len(line) > LONG_LINE else
              ((offset, _line_values(line[offset:] if offset else line)),))
    for at, values in pieces:
        for value in values:
            at = line.find(value, at) + 1
            yield at, value
            at += len(value) - 1


def place_tokens(lst: SList, line_text) -> SList:
    """Give the plain-``str`` tokens under ``lst`` (inside :init facts, where
    :func:`read_sexpr` computes no position) their :class:`Token` form with line and column,
    in place, and return ``lst``. ``line_text(n)`` is line ``n`` of the text (as
    :meth:`DiagnosticSink.line_text` gives it). The text is read again from the list's '(':
    its tokens map one to one onto the tree in reading order, a ')' following each list that
    was closed (a list closed by recovery has none)."""
    stream = _tokens_from(line_text, lst.line, lst.column)
    next(stream)  # the list's own '('
    _place(lst, stream)
    return lst


def _tokens_from(line_text, number: int, column: int):
    """The tokens from line ``number``'s column ``column`` on, where a '(' is (so the text
    is tokenized from there, not from the start of a possibly long line)."""
    offset = max(column - 1, 0)
    while True:
        line = line_text(number)
        if line is None:
            return
        yield from ((number, at, value) for at, value in _iter_line_tokens(line, offset))
        number, offset = number + 1, 0


def _place(lst: SList, stream) -> None:
    for i, item in enumerate(lst):
        number, column, value = next(stream)
        if item.__class__ is SList:
            _place(item, stream)
            if item.closed:
                next(stream)
        elif item.__class__ is not Token:
            tok = Token(item)
            tok.line, tok.column = number, column
            lst[i] = tok


def _at(line: int, column: int) -> Token:
    tok = Token("(")
    tok.line, tok.column = line, column
    return tok


def _unexpected_close(sink: DiagnosticSink, line: int, column: int) -> None:
    sink.add(
        "unexpected-close-paren",
        "unexpected ')': nothing is open here",
        line=line,
        column=column,
        hint="delete this ')', or add the '(' it was meant to close",
        expected=("(",),
    )


def _unclosed_at_end(stack: list[SList], sink: DiagnosticSink, last) -> None:
    innermost = stack[-1]
    others = len(stack) - 1
    more = f" ({others} enclosing construct(s) also still open)" if others else ""
    line = last[0] if last is not None else 1
    col = (last[1] + last[2]) if last is not None else 1
    sink.add(
        "unclosed-paren",
        f"expected ')' to close {innermost.describe()} opened at line {innermost.line}, "
        f"but the file ends{more}",
        line=line,
        column=col,
        hint=f"add {len(stack)} ')': one to close '{innermost.describe()}' from line "
        f"{innermost.line}, the others where their constructs end",
        expected=(")",),
    )
    for lst in stack:
        lst.closed = False


def read_sexpr_tokens(tokens, sink: DiagnosticSink) -> list:
    """The reference tree builder over a token sequence (lark's): what :func:`read_sexpr`
    did before it read the text in one pass."""
    top: list = []
    stack: list[SList] = []
    tokens = list(tokens)
    n = len(tokens)
    i = 0
    trouble = 0
    while i < n:
        tok = tokens[i]
        kind = tok.type
        if kind == "LPAR":
            nxt = tokens[i + 1] if i + 1 < n else None
            if nxt is not None and stack and len(stack) > 1 and nxt.type == "ATOM":
                word = nxt.lower()
                if word in SECTION_KEYWORDS and _close_until(stack, 1, sink, f"({nxt}", tok):
                    trouble += 1
                    if trouble > MAX_TROUBLE:
                        return _stop(top, stack, sink, tok.line, tok.column)
            if nxt is not None and len(stack) >= MAX_DEPTH:
                _too_deep(sink, stack, tok.line, tok.column)
                return top
            lst = SList(tok.line, tok.column)
            (stack[-1] if stack else top).append(lst)
            if not stack and nxt is not None and nxt.lower() != "define":
                trouble += 1
                if trouble > MAX_TROUBLE:
                    return _stop(top, stack, sink, tok.line, tok.column)
            stack.append(lst)
        elif kind == "RPAR":
            if stack:
                lst = stack.pop()
                lst.end_line, lst.end_column = tok.line, tok.column
            else:
                _unexpected_close(sink, tok.line, tok.column)
                trouble += 1
                if trouble > MAX_TROUBLE:
                    return _stop(top, stack, sink, tok.line, tok.column)
        else:
            if (
                kind == "ATOM"
                and len(stack) > 1
                and tok.lower() in ACTION_KEYWORDS
                and stack[-1].head() not in (":action", ":durative-action")
            ):
                # ':effect' inside an unfinished precondition: close back to the action.
                depth = _action_depth(stack)
                if depth is not None and _close_until(stack, depth + 1, sink, str(tok), tok):
                    trouble += 1
                    if trouble > MAX_TROUBLE:
                        return _stop(top, stack, sink, tok.line, tok.column)
            (stack[-1] if stack else top).append(tok)
            if stack and len(stack[-1]) > MAX_WORDS:
                return _too_many_words(top, stack, sink, tok.line, tok.column)
            if not stack or (len(stack) == 1 and len(stack[0]) > 1):
                trouble += 1
                if trouble > MAX_TROUBLE:
                    return _stop(top, stack, sink, tok.line, tok.column)
        i += 1
    if stack:
        last = tokens[-1] if tokens else None
        _unclosed_at_end(stack, sink, (last.line, last.column, len(last)) if last else None)
    return top


def _action_depth(stack: list[SList]) -> int | None:
    for depth in range(len(stack) - 1, -1, -1):
        if stack[depth].head() in (":action", ":durative-action"):
            return depth
    return None


def _close_until(stack: list[SList], depth: int, sink: DiagnosticSink, what: str, tok) -> bool:
    """Force-close lists above ``depth``, reporting the innermost one that was left open;
    whether there was any."""
    if len(stack) <= depth:
        return False
    innermost = stack[-1]
    count = len(stack) - depth
    sink.add(
        "unclosed-paren",
        f"expected ')' to close {innermost.describe()} opened at line {innermost.line} "
        f"before {what} at line {tok.line}",
        line=tok.line,
        column=tok.column,
        hint=f"add {count} ')' before line {tok.line} to close '{innermost.describe()}' "
        f"from line {innermost.line}",
        expected=(")",),
    )
    while len(stack) > depth:
        lst = stack.pop()
        lst.closed = False
        lst.end_line, lst.end_column = tok.line, tok.column
    return True


#: the default largest PDDL file read (see the module docstring)
MAX_PDDL_BYTES = 64 << 20
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_bytes(text: str) -> int:
    """A positive number of bytes from ``67108864``, ``64M``, ``512k`` or ``1G`` (binary
    units); ValueError otherwise. The form ``--max-bytes`` and ``PDDLKIT_MAX_PDDL_BYTES`` take."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmg]?)(?:i?b)?\s*", text, re.I)
    if not m or int(m.group(1)) <= 0:
        raise ValueError(f"{text!r} is not a positive number of bytes (e.g. 67108864 or 64M)")
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def max_pddl_bytes(max_bytes: int | None = None) -> int:
    """The size limit in force: ``max_bytes`` when given, else ``PDDLKIT_MAX_PDDL_BYTES``,
    else :data:`MAX_PDDL_BYTES`. A malformed setting is refused (InputRefused), not ignored:
    a limit silently left at its default would surprise whoever set it."""
    if max_bytes is not None:
        if max_bytes <= 0:
            raise InputRefused(f"the size limit {max_bytes} is not a positive number of bytes",
                               "bad-limit", "give a positive limit, e.g. 67108864 or 64M")
        return max_bytes
    setting = os.environ.get("PDDLKIT_MAX_PDDL_BYTES", "").strip()
    if not setting:
        return MAX_PDDL_BYTES
    try:
        return parse_bytes(setting)
    except ValueError:
        raise InputRefused(f"PDDLKIT_MAX_PDDL_BYTES={setting!r} is not a positive number of "
                           "bytes", "bad-limit",
                           "set PDDLKIT_MAX_PDDL_BYTES to e.g. 134217728 or 128M, or unset "
                           "it for the default (64M)") from None


def _bytes(n: int) -> str:
    return f"{n} bytes" + (f" ({n / (1 << 20):.1f} MiB)" if n >= 1 << 20 else "")


def _too_large(limit: int, size: int | None = None, grew: bool = False) -> "InputRefused":
    """The refusal of input over ``limit`` (``size`` when known from the stat)."""
    if size is not None:
        what = f"it is {_bytes(size)}, over the limit of {_bytes(limit)} for a PDDL file"
    else:
        what = (f"it {'grew past' if grew else 'is larger than'} the limit of {_bytes(limit)} "
                f"for a PDDL file{' while it was read' if grew else ''}")
    fits = -(-(size if size is not None else 2 * limit) // (1 << 20))
    return InputRefused(
        what, "file-too-large",
        "pass the PDDL file you meant; if it really is this large, raise the limit: "
        f"pddlkit check --max-bytes {fits}M (or PDDLKIT_MAX_PDDL_BYTES={fits}M, or max_bytes= "
        "in Python)")


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"))


def _not_regular(mode: int) -> "InputRefused | None":
    if stat.S_ISREG(mode):
        return None
    kind = next((what for test, what in _KINDS if test(mode)), "not a regular file")
    return InputRefused(
        f"it is {kind}, not a regular file", "file-not-regular",
        "pass the .pddl file itself; to read a pipe or a device, give '-' and redirect it to "
        "standard input (read up to the size limit)")


def read_file_bytes(path: str | Path, max_bytes: int | None = None) -> bytes | bytearray:
    """The bytes of a PDDL file, refused (:class:`InputRefused`) unless it is a regular file
    of at most :func:`max_pddl_bytes`. ``os.stat`` (through symbolic links) comes before any
    open, so a device or a FIFO is never read and never blocks; the open is non-blocking and
    checked again (the path may change in between), and at most the limit plus one byte is
    read, so a file that grows while read is refused too. OSError for a missing file."""
    limit = max_pddl_bytes(max_bytes)
    info = os.stat(path)
    refused = _not_regular(info.st_mode)
    if refused is not None:
        raise refused
    if info.st_size > limit:
        raise _too_large(limit, info.st_size)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        refused = _not_regular(os.fstat(fd).st_mode)
        if refused is not None:
            raise refused
        data = bytearray()    # grown in place: the file is held once, not as parts and a copy
        while len(data) <= limit:
            part = os.read(fd, min(limit + 1 - len(data), 1 << 20))
            if not part:
                break
            data += part
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(limit, grew=True)
    return data


def read_stream_bytes(stream, max_bytes: int | None = None) -> bytes:
    """At most :func:`max_pddl_bytes` from a binary stream (standard input), refused when
    there is more, so ``pddlkit check - < /dev/zero`` ends."""
    limit = max_pddl_bytes(max_bytes)
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise _too_large(limit)
    return data


def decode_text(data: bytes | bytearray) -> str:
    """PDDL text from bytes. A file that is not text (a NUL byte, or bytes that are not UTF-8:
    a binary, an archive, random data) raises :class:`NotText` naming the first bad byte,
    so it is one clear error rather than hundreds of syntax errors about its bytes."""
    nul = data.find(b"\0", 0, 1 << 20)
    if nul >= 0:
        raise NotText(f"it is not text: byte {nul} is 0x00 (a binary file?)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotText(f"it is not UTF-8 text: byte {exc.start} is {data[exc.start]:#04x} "
                      f"(a binary file, or text in another encoding: save it as UTF-8)") from None


def read_file_text(path: str | Path, max_bytes: int | None = None) -> str:
    """A PDDL file's text: :func:`read_file_bytes` then :func:`decode_text`."""
    return decode_text(read_file_bytes(path, max_bytes))


class InputRefused(ValueError):
    """Input pddlkit will not read as PDDL, with the ``code`` and ``hint`` of the diagnostic
    that says so (the message completes "FILE cannot be read as PDDL: ...")."""

    def __init__(self, message: str, code: str = "unreadable-input",
                 hint: str = "pass the .pddl file itself (plain UTF-8 text)"):
        super().__init__(message)
        self.code = code
        self.hint = hint

    def __reduce__(self):
        return type(self), (str(self), self.code, self.hint)


class NotText(InputRefused):
    """A file whose bytes are not UTF-8 text."""
