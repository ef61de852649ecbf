"""Whether a text follows a GBNF grammar, read the way llama.cpp's grammar sampler reads it.

Why: the GBNF pddlkit sends a server (:mod:`.gbnf`) must accept what it should, and a test
cannot ask a model to write every corpus file. :class:`GBNFMatcher` follows llama.cpp's
algorithm: the grammar's alternatives as flat element lists (groups and repetitions become
rules of their own, repetitions right-recursive, ``x{m,n}`` as m copies then n-m nested
optional ones) and a set of stacks of positions advanced one character at a time, memoised per
set of stacks, so long files in a regular format cost little more than their length.
"""

from __future__ import annotations

import re
from typing import Optional

from .lark_subset import GrammarError


class GBNFMatcher:
    """Whether a text follows a GBNF grammar, by llama.cpp's algorithm: the grammar's
    alternatives as flat element lists (groups and repetitions become rules of their own,
    repetitions right-recursive), and a set of stacks of positions advanced one character at
    a time. The step from one set of stacks on one character is memoised, so long files in a
    regular format cost little more than their length."""

    def __init__(self, text: str) -> None:
        self.rules: list[list[tuple]] = []        # rule id -> alternatives -> elements
        self.names: dict[str, int] = {}
        self._read(text)
        if "root" not in self.names:
            raise GrammarError("the GBNF grammar has no root rule")
        self._steps: dict = {}
        self._starts = self._expand(((self.names["root"], alt, 0),)
                                    for alt in range(len(self.rules[self.names["root"]])))

    # elements: ("c", ranges, negated) | ("r", rule id)
    def _rule_id(self, name: str) -> int:
        if name not in self.names:
            self.names[name] = len(self.rules)
            self.rules.append([])
        return self.names[name]

    def _read(self, text: str) -> None:
        self._text, self._pos = text, 0
        defined = set()
        while True:
            self._blank(newlines=True)
            if self._pos >= len(self._text):
                break
            name = self._name()
            self._blank()
            if not self._text.startswith("::=", self._pos):
                raise GrammarError(f"GBNF: expected ::= after {name} at {self._pos}")
            self._pos += 3
            rid = self._rule_id(name)
            defined.add(name)
            self.rules[rid] = self._alternatives(newlines=False)
        missing = set(self.names) - defined - {n for n in self.names if n.startswith("%")}
        if missing:
            raise GrammarError(f"GBNF: rules used but not defined: {', '.join(sorted(missing))}")

    def _blank(self, newlines: bool = False) -> None:
        while self._pos < len(self._text):
            c = self._text[self._pos]
            if c == "#":
                while self._pos < len(self._text) and self._text[self._pos] != "\n":
                    self._pos += 1
            elif c in " \t" or (newlines and c in "\r\n"):
                self._pos += 1
            else:
                break

    def _name(self) -> str:
        m = re.compile(r"[a-zA-Z0-9-]+").match(self._text, self._pos)
        if not m:
            raise GrammarError(f"GBNF: expected a name at {self._text[self._pos:self._pos + 20]!r}")
        self._pos = m.end()
        return m.group()

    def _alternatives(self, newlines: bool) -> list[tuple]:
        options = [self._sequence(newlines)]
        while self._pos < len(self._text) and self._text[self._pos] == "|":
            self._pos += 1
            options.append(self._sequence(newlines))
        return options

    def _sequence(self, newlines: bool) -> tuple:
        elements: list = []
        while True:
            self._blank(newlines)
            if self._pos >= len(self._text):
                break
            c = self._text[self._pos]
            if c in "|)\n\r":
                break
            start = len(elements)
            if c == '"':
                self._pos += 1
                while self._text[self._pos] != '"':
                    ch = self._char()
                    elements.append(("c", ((ch, ch),), False))
                self._pos += 1
            elif c == "[":
                elements.append(self._class())
            elif c == "(":
                self._pos += 1
                inner = self._alternatives(newlines=True)
                self._blank(True)
                if self._text[self._pos] != ")":
                    raise GrammarError("GBNF: ( not closed")
                self._pos += 1
                rid = self._rule_id(f"%g{len(self.rules)}")
                self.rules[rid] = inner
                elements.append(("r", rid))
            elif c == ".":
                self._pos += 1
                elements.append(("c", (("\n", "\n"),), True))
            else:
                elements.append(("r", self._rule_id(self._name())))
            self._quantify(elements, start)
        return tuple(elements)

    def _quantify(self, elements: list, start: int) -> None:
        if self._pos >= len(self._text):
            return
        c = self._text[self._pos]
        low, high = None, None
        if c in "*+?":
            self._pos += 1
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        elif c == "{":
            end = self._text.index("}", self._pos)
            body = self._text[self._pos + 1:end]
            self._pos = end + 1
            if "," in body:
                a, b = body.split(",")
                low, high = int(a or 0), (int(b) if b.strip() else None)
            else:
                low = high = int(body)
        if low is None:
            return
        last = tuple(elements[start:])
        del elements[start:]
        # as llama.cpp: x{m,n} is m copies, then n-m nested optional copies (or x* for no n)
        elements.extend(last * low)
        if high is None:
            rid = self._rule_id(f"%s{len(self.rules)}")
            self.rules[rid] = [last + (("r", rid),), ()]
            elements.append(("r", rid))
        else:
            tail = None
            for _ in range(high - low):
                rid = self._rule_id(f"%o{len(self.rules)}")
                self.rules[rid] = [last + ((("r", tail),) if tail is not None else ()), ()]
                tail = rid
            if tail is not None:
                elements.append(("r", tail))

    def _char(self) -> str:
        c = self._text[self._pos]
        if c != "\\":
            self._pos += 1
            return c
        nxt = self._text[self._pos + 1]
        simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "[": "[", "]": "]",
                  "-": "-", "^": "^"}
        if nxt in simple:
            self._pos += 2
            return simple[nxt]
        width = {"x": 2, "u": 4, "U": 8}.get(nxt)
        if width:
            value = int(self._text[self._pos + 2:self._pos + 2 + width], 16)
            self._pos += 2 + width
            return chr(value)
        raise GrammarError(f"GBNF: unknown escape \\{nxt}")

    def _class(self) -> tuple:
        self._pos += 1
        negated = self._text[self._pos] == "^"
        if negated:
            self._pos += 1
        ranges = []
        while self._text[self._pos] != "]":
            low = self._char()
            high = low
            if self._text[self._pos] == "-" and self._text[self._pos + 1] != "]":
                self._pos += 1
                high = self._char()
            ranges.append((low, high))
        self._pos += 1
        return ("c", tuple(ranges), negated)

    # -- matching
    def _expand(self, stacks) -> frozenset:
        """Advance each stack until its top is a character element (or it is empty: the
        text may end here)."""
        out: set = set()
        todo = list(stacks)
        seen: set = set()
        while todo:
            stack = todo.pop()
            if stack in seen:
                continue
            seen.add(stack)
            if not stack:
                out.add(stack)
                continue
            rule, alt, idx = stack[-1]
            elements = self.rules[rule][alt]
            if idx >= len(elements):
                todo.append(stack[:-1])
                continue
            element = elements[idx]
            if element[0] == "c":
                out.add(stack)
                continue
            rest = stack[:-1] + (((rule, alt, idx + 1),) if idx + 1 < len(elements) else ())
            target = element[1]
            for a in range(len(self.rules[target])):
                todo.append(rest + ((target, a, 0),))
        return frozenset(out)

    def _step(self, stacks: frozenset, ch: str) -> frozenset:
        key = (stacks, ch)
        got = self._steps.get(key)
        if got is not None:
            return got
        moved = []
        for stack in stacks:
            if not stack:
                continue
            rule, alt, idx = stack[-1]
            _, ranges, negated = self.rules[rule][alt][idx]
            inside = any(lo <= ch <= hi for lo, hi in ranges)
            if inside != negated:
                n = len(self.rules[rule][alt])
                moved.append(stack[:-1] + (((rule, alt, idx + 1),) if idx + 1 < n else ()))
        result = self._expand(moved)
        if len(self._steps) > 200_000:
            self._steps.clear()
        self._steps[key] = result
        return result

    def matches(self, text: str) -> bool:
        """Whether the whole of ``text`` follows the grammar."""
        return self.failure(text) is None

    def failure(self, text: str) -> Optional[int]:
        """None when ``text`` follows the grammar, else the offset of the first character
        the grammar refuses (``len(text)`` when the text stops early)."""
        stacks = self._starts
        for i, ch in enumerate(text):
            stacks = self._step(stacks, ch)
            if not stacks:
                return i
        return None if () in stacks else len(text)
