"""Mend what code can mend in a generated program before it is run (IPP's ``mend`` option,
issue 48, off by default).

Why: every GRASP program Qwen2.5-Coder 1.5B wrote (160 of 160 held-out instances, with and
without the probe) failed with one ``IndentationError``: its pseudocode had a branch holding
only a comment (``else  // handle obstacle``), and the Python it wrote from it kept the
comment and no statement (``else:`` then ``# Handle obstacle ...``). The probe sent that error
back, and the model returned the same program, at temperature 0 and at 0.7. A block with no
statement has one meaning a person would give it, ``pass``; code adds it, so the rounds are
spent on what the program does rather than on a syntax slip.

What is mended, and nothing else (the program's meaning is never guessed):

* a compound statement (``if``/``elif``/``else``/``for``/``while``/``def``/``try``/...) whose
  block has no statement: ``pass`` is added under its header, one level deeper;
* tabs in indentation, which Python refuses to mix with spaces: each tab becomes the spaces up
  to the next multiple of 8 (Python's own reading of a tab).

Each mend is one sentence naming the line, kept in the round's record (``mends``). The
program is only compiled here, never run (generated code runs only in
:mod:`pddlkit.sandbox`); a syntax error code cannot mend is left for the sandbox to report
with its line, as without the option.
"""

from __future__ import annotations

import re

#: mends at most per program (each one fixes one empty block; more means something else)
MEND_LIMIT = 20

_EMPTY_BLOCK = re.compile(r"expected an indented block(?: after '?(?P<what>[\w ]+?)'? "
                          r"(?:statement|definition|block)? ?on line (?P<line>\d+))?")


def _compiles(source: str) -> SyntaxError | None:
    """The syntax error compiling ``source`` raises, or None. Compiling runs nothing."""
    try:
        compile(source, "<program>", "exec", dont_inherit=True)
    except SyntaxError as exc:      # IndentationError and TabError are SyntaxErrors
        return exc
    except (ValueError, RecursionError, MemoryError, OverflowError):
        return None                 # not a syntax slip: the sandbox reports it
    return None


def _header_line(lines: list[str], error: SyntaxError) -> int | None:
    """The 0-based index of the header whose block is empty."""
    found = _EMPTY_BLOCK.search(error.msg or "")
    if found and found.group("line"):
        return int(found.group("line")) - 1
    # an older wording: the error's line is the first one after the header
    k = (error.lineno or 1) - 2
    while k >= 0 and (not lines[k].strip() or lines[k].lstrip().startswith("#")):
        k -= 1
    return k if k >= 0 and lines[k].rstrip().endswith(":") else None


def _ends_header(line: str) -> bool:
    """Whether ``line`` ends a compound statement's header (a colon, a comment aside)."""
    return line.split("#", 1)[0].rstrip().endswith(":")


def mend_program(source: str) -> tuple[str, list[str]]:
    """(the mended program, one sentence per mend). A program that compiles, or whose
    error is not one of those the module names, comes back as it was, with no mends."""
    mends: list[str] = []
    if "\t" in source:
        lines = source.split("\n")
        tabbed = [n + 1 for n, line in enumerate(lines)
                  if "\t" in line[:len(line) - len(line.lstrip())]]
        if tabbed and isinstance(_compiles(source), SyntaxError):
            source = "\n".join(line[:len(line) - len(line.lstrip())].expandtabs(8)
                               + line.lstrip() for line in lines)
            mends.append(f"line(s) {', '.join(map(str, tabbed[:5]))}"
                         f"{' ...' if len(tabbed) > 5 else ''}: tabs in the indentation "
                         f"became spaces")
    for _ in range(MEND_LIMIT):
        error = _compiles(source)
        if not isinstance(error, IndentationError) or "expected an indented block" not in \
                (error.msg or ""):
            break
        lines = source.split("\n")
        header = _header_line(lines, error)
        if header is None or header >= len(lines):
            break
        # a header may run over several lines (``def f(a,`` ... ``b):``): its colon ends it
        end = header
        while end < len(lines) - 1 and not _ends_header(lines[end]):
            end += 1
        text = lines[header]
        indent = text[:len(text) - len(text.lstrip())]
        lines.insert(end + 1, indent + "    pass")
        mends.append(f"line {header + 1}: `{text.strip()[:60]}` had no statement in its "
                     f"block; code added `pass`")
        source = "\n".join(lines)
    return source, mends
