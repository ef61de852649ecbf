"""Read PDDL domains and problems into the object model, collecting every error.

The reader works on the bracket tree from :mod:`pddlkit.pddl.sexpr`. Each section is read on
its own, so one malformed section (a typo'd keyword, a bad typed list, a nested term) yields a
diagnostic and the rest of the file is still read: an LLM repairing the file sees all its
mistakes at once, not one per round trip. Names are lower-cased (PDDL is case-insensitive).

``read_domain``/``read_problem`` return the (possibly partial) model and the diagnostics;
``parse_domain``/``parse_problem`` return the model or raise :class:`PDDLSyntaxError`.

Limits (issue 43), so input that is not PDDL ends in seconds with one clear diagnostic: a path
must name a regular file of at most 64 MiB (``max_bytes=``, ``PDDLKIT_MAX_PDDL_BYTES``), stat'ed
before it is opened (:func:`~pddlkit.pddl.sexpr.read_file_bytes`); the tree stops at 1000
nested lists or 100 stray items (:mod:`pddlkit.pddl.sexpr`); reading stops after
:data:`MAX_READ_DIAGNOSTICS` (1000) diagnostics; each diagnostic keeps 120 characters of its
line (:mod:`pddlkit.diagnostics`).
"""

from __future__ import annotations

import difflib
import gc
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from ..diagnostics import (Diagnostic, DiagnosticSink, PDDLSyntaxError, Severity,
                           TooManyDiagnostics)
from .model import (
    TRUE,
    Action,
    And,
    Atom,
    BinaryOp,
    Comparison,
    DerivedPredicate,
    Domain,
    Effect,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    Function,
    FunctionTerm,
    Imply,
    Literal,
    Metric,
    Not,
    Number,
    NumericEffect,
    NumericExpr,
    Or,
    Predicate,
    Problem,
    TypedName,
    TypeDecl,
    When,
)
from .sexpr import InputRefused, SList, place_tokens, read_file_text, read_sexpr

Source = Union[str, Path]

KNOWN_REQUIREMENTS = (
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions", ":equality",
    ":existential-preconditions", ":universal-preconditions", ":quantified-preconditions",
    ":conditional-effects", ":adl", ":action-costs", ":derived-predicates",
    ":numeric-fluents", ":fluents", ":object-fluents", ":durative-actions",
    ":duration-inequalities", ":continuous-effects", ":timed-initial-literals", ":preferences",
    ":constraints", ":domain-axioms", ":expression-evaluation", ":open-world", ":true-negation",
    ":ucpop", ":non-deterministic", ":negation",
)

DOMAIN_SECTIONS = (
    ":requirements", ":types", ":constants", ":predicates", ":functions", ":action", ":derived",
)
PROBLEM_SECTIONS = (":domain", ":requirements", ":objects", ":init", ":goal", ":metric")
ACTION_FIELDS = (":parameters", ":precondition", ":effect")
NUMERIC_EFFECT_OPS = ("increase", "decrease", "assign", "scale-up", "scale-down")
COMPARISON_OPS = ("<", "<=", ">", ">=")
ARITH_OPS = ("+", "-", "*", "/")

_NAME_RE = re.compile(r"^[a-z0-9_][a-z0-9_\-.@]*$")
_NUMBER_RE = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)$")
# what term() accepts without a diagnostic: a name, or '?' and a name
_TERM_RE = re.compile(r"\??[a-z0-9_][a-z0-9_\-.@]*")


def _did_you_mean(word: str, options) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


@dataclass(frozen=True)
class _Place:
    line: int
    column: int


_FILE_START = _Place(1, 1)


def _pos_of(item) -> tuple:
    return (getattr(item, "line", 0), getattr(item, "column", 0))


TEMPORAL_HINT = ("plan it with a temporal planner outside pddlkit (OPTIC, TFD, LPG-td), or "
                 "write each durative action as an instantaneous (:action ...)")


def temporal_unsupported(what: str) -> tuple[str, str]:
    """The one diagnostic for temporal PDDL (a durative action, or a temporal requirement):
    said once, not as an unknown section, a stale "classical planning only" and the goals
    that then look unreachable."""
    return ("temporal-unsupported", f"{what} is temporal planning (PDDL 2.1): no planner in "
            "pddlkit plans temporal domains")


def _shown_name(item) -> str:
    """The name after a section's keyword, for a message (``go`` of ``(:durative-action go``)."""
    try:
        return str(item[1])
    except (IndexError, TypeError):
        return "..."


def looks_like_path(source: str) -> bool:
    """A ``str`` is a path only if it is one short line with no PDDL punctuation."""
    return bool(source.strip()) and len(source) < 4096 and not any(c in source for c in "()\n;")


def load_source(source: Source, file: Optional[str] = None, *,
                max_bytes: Optional[int] = None) -> tuple[str, Optional[str]]:
    """PDDL text and a file name from a path or from PDDL text.

    A :class:`~pathlib.Path` is always a file; a ``str`` is a file path when
    :func:`looks_like_path` says so, PDDL text otherwise. A missing or unreadable file raises
    PDDLError (code ``file-not-found``), like any other input problem, and so does one that is
    not a regular file or is larger than ``max_bytes`` (default: ``PDDLKIT_MAX_PDDL_BYTES`` or
    64 MiB; see :func:`~pddlkit.pddl.sexpr.read_file_bytes`), checked before it is opened.
    """
    if isinstance(source, Path) or (isinstance(source, str) and looks_like_path(source)):
        path = Path(source)
        try:
            return read_file_text(path, max_bytes), file or str(path)
        except OSError as exc:
            sink = DiagnosticSink("", str(path))
            sink.add("file-not-found", f"cannot read {path}: {exc.strerror or exc}",
                     hint="check the path; to pass PDDL text instead, pass the text itself")
            raise PDDLSyntaxError(sink.items, f"cannot read {path}") from None
        except InputRefused as exc:
            raise PDDLSyntaxError([refusal(exc, str(path))], f"cannot read {path}") from None
    return source, file


def refusal(exc: InputRefused, name: str) -> Diagnostic:
    """The one diagnostic for input refused before reading (not a regular file, too large,
    not text), naming the input."""
    return Diagnostic(exc.code, Severity.ERROR, f"{name} cannot be read as PDDL: {exc}",
                      file=name, hint=exc.hint)


class _Reader:
    def __init__(self, sink: DiagnosticSink):
        self.sink = sink
        self._negated_init: list = []

    # ------------------------------------------------------------------ helpers

    def error(self, code: str, message: str, at, hint: str | None = None, expected=(),
              severity: Severity = Severity.ERROR) -> None:
        line, column = _pos_of(at)
        self.sink.add(code, message, line=line, column=column, hint=hint, expected=expected,
                      severity=severity)

    def name(self, tok, what: str) -> Optional[str]:
        """A lower-cased PDDL name, or None (with a diagnostic) when ``tok`` is not one."""
        if isinstance(tok, SList):
            self.error("expected-name", f"expected {what}, found a parenthesised list",
                       tok, hint=f"write {what} as a plain word, without parentheses")
            return None
        low = tok.lower()
        if low.startswith("?"):
            self.error("unexpected-variable", f"expected {what}, found the variable '{tok}'", tok,
                       hint=f"{what} is a plain name; variables ('?x') only appear in "
                            ":parameters, quantifiers and formulas")
            return None
        if not _NAME_RE.match(low):
            hint = "names use letters, digits, '-' and '_' and start with a letter"
            if low.startswith("-") and len(low) > 1:
                hint = f"put a space after '-': '- {tok[1:]}'"
            elif "\\n" in low or "\\t" in low:
                hint = "remove the literal '\\n' escape sequences (the text was JSON-escaped twice)"
            self.error("invalid-name", f"'{tok}' is not a valid name for {what}", tok, hint=hint)
            return None
        return low

    def variable(self, tok, what: str) -> Optional[str]:
        if isinstance(tok, SList):
            self.error("expected-variable", f"expected a variable for {what}, found a list", tok)
            return None
        low = tok.lower()
        if not low.startswith("?") or not _NAME_RE.match(low[1:] or "!"):
            self.error("expected-variable", f"expected a variable ('?name') for {what}, "
                       f"found '{tok}'", tok,
                       hint=f"write '?{low.lstrip('?') or 'x'}': parameters and quantified "
                            "variables start with '?'")
            return None
        return low

    def term(self, tok, context: str) -> Optional[str]:
        if isinstance(tok, SList):
            self.error("nested-term",
                       f"{tok.describe()} ...) is used as an argument in {context}; atoms take "
                       "object names and variables, not nested expressions", tok,
                       hint="introduce a new object or parameter for it, or a separate predicate")
            return None
        low = tok.lower()
        if low.startswith("?"):
            return self.variable(tok, context)
        return self.name(tok, f"an argument of {context}")

    def typed_list(self, items, *, variables: bool, what: str) -> list[TypedName]:
        """``a b - t c - (either u v) d`` → TypedNames; untyped names get 'object'."""
        out: list[TypedName] = []
        pending: list = []
        i = 0
        n = len(items)
        while i < n:
            item = items[i]
            if isinstance(item, str) and item == "-":
                if not pending:
                    self.error("dangling-type", f"'-' in {what} has no names before it", item,
                               hint="write 'name1 name2 - type'")
                i += 1
                if i >= n:
                    self.error("missing-type", f"'-' at the end of {what} has no type after it",
                               item, hint="write the type after '-', e.g. '- location'")
                    break
                types = self.type_ref(items[i], what)
                for tok in pending:
                    nm = self.variable(tok, what) if variables else self.name(tok, what)
                    if nm is not None and types:
                        out.append(TypedName(nm, types, _pos_of(tok)))
                pending = []
            elif isinstance(item, SList):
                self.error("unexpected-list", f"unexpected {item.describe()} ...) in {what}", item,
                           hint=f"{what} is a flat list 'name1 name2 - type': remove the "
                                "parentheses around the names")
            else:
                pending.append(item)
            i += 1
        for tok in pending:
            nm = self.variable(tok, what) if variables else self.name(tok, what)
            if nm is not None:
                out.append(TypedName(nm, ("object",), _pos_of(tok)))
        return out

    def type_ref(self, item, what: str) -> tuple[str, ...]:
        if isinstance(item, SList):
            if item.head() == "either" and len(item) > 1:
                names = [self.name(t, "a type in (either ...)") for t in item[1:]]
                return tuple(n for n in names if n)
            self.error("bad-type", f"expected a type name or (either ...) in {what}, "
                       f"found {item.describe()} ...)", item)
            return ()
        name = self.name(item, f"a type in {what}")
        return (name,) if name else ()

    def keyword_pairs(self, items, allowed, owner: str) -> dict:
        """Read ``:key value`` pairs; accept the LLM habit ``(:key value)`` with an error."""
        found: dict = {}
        i = 0
        n = len(items)
        while i < n:
            item = items[i]
            if isinstance(item, SList) and item.head() in allowed and len(item) >= 1:
                key = item.head()
                self.error("wrapped-field", f"{key} is wrapped in parentheses in {owner}", item,
                           hint=f"write '{key} ...' directly inside {owner}, without the '(' "
                                f"before {key}")
                value = item[1] if len(item) == 2 else (SList(item.line, item.column) if len(item) == 1 else item[1:])
                if key not in found:
                    found[key] = (value, item)
                i += 1
                continue
            if not isinstance(item, str) or not item.startswith(":"):
                shown = item.describe() + " ...)" if isinstance(item, SList) else f"'{item}'"
                self.error("unexpected-item", f"unexpected {shown} in {owner}", item,
                           hint=f"{owner} holds {', '.join(allowed)} each followed by its value",
                           expected=allowed)
                i += 1
                continue
            key = item.lower()
            if key not in allowed:
                dym = _did_you_mean(key, allowed)
                self.error("unknown-field", f"unknown keyword '{item}' in {owner}", item,
                           hint=(dym + " " if dym else "") + f"allowed: {', '.join(allowed)}",
                           expected=allowed)
                i += 2
                continue
            if i + 1 >= n or (isinstance(items[i + 1], str) and items[i + 1].lower() in allowed):
                self.error("missing-value", f"{item} in {owner} has no value", item,
                           hint=f"write the value after {item}, e.g. {item} ()")
                i += 1
                continue
            if key in found:
                self.error("duplicate-field", f"{item} appears twice in {owner}", item,
                           hint=f"merge the two {item} parts into one")
            else:
                later = [k for k in found if allowed.index(k) > allowed.index(key)]
                if later:
                    self.error("field-order", f"{item} comes after {later[0]} in {owner}", item,
                               hint=f"write the parts in the order {' '.join(allowed)}")
                found[key] = (items[i + 1], item)
            i += 2
        return found

    # ------------------------------------------------------------------ formulas

    def formula(self, x, context: str) -> Optional[Formula]:
        if not isinstance(x, SList):
            self.error("expected-formula", f"expected a formula in parentheses in {context}, "
                       f"found '{x}'", x, hint=f"write '({x} ...)' with its arguments, or (and ...)")
            return None
        if len(x) == 0:
            return And((), (x.line, x.column))
        head = x.head()
        if head is None:
            self.error("expected-formula", f"a formula in {context} starts with a list, not a "
                       "predicate or connective", x,
                       hint="remove the extra parentheses, or add 'and' after the '('")
            return None
        pos = (x.line, x.column)
        if head == "and" or head == "or":
            parts = [self.formula(p, context) for p in x[1:]]
            parts = tuple(p for p in parts if p is not None)
            return And(parts, pos) if head == "and" else Or(parts, pos)
        if head == "not":
            if len(x) != 2:
                self.error("bad-not", f"(not ...) takes exactly one formula, got {len(x) - 1} "
                           f"in {context}", x, hint="write (not (pred ...)); use (and (not a) "
                           "(not b)) for several")
                return None
            inner = self.formula(x[1], context)
            return Not(inner, pos) if inner is not None else None
        if head == "imply":
            if len(x) != 3:
                self.error("bad-imply", f"(imply ...) takes two formulas in {context}", x)
                return None
            a, b = self.formula(x[1], context), self.formula(x[2], context)
            return Imply(a, b, pos) if a is not None and b is not None else None
        if head in ("exists", "forall"):
            if len(x) != 3 or not isinstance(x[1], SList):
                self.error(f"bad-{head}", f"({head} ...) needs a variable list and one formula "
                           f"in {context}", x, hint=f"write ({head} (?x - type) (formula ...))")
                return None
            variables = tuple(self.typed_list(x[1], variables=True, what=f"({head} ...)"))
            body = self.formula(x[2], context)
            if body is None:
                return None
            return Exists(variables, body, pos) if head == "exists" else Forall(variables, body, pos)
        if head in COMPARISON_OPS or (head == "=" and len(x) == 3 and
                                      (isinstance(x[1], SList) or isinstance(x[2], SList))):
            if len(x) != 3:
                self.error("bad-comparison", f"({head} ...) takes two expressions", x)
                return None
            left, right = self.numeric(x[1], context), self.numeric(x[2], context)
            if left is None or right is None:
                return None
            return Comparison(head, left, right, pos)
        return self.atom(x, context)

    def atom(self, x: SList, context: str) -> Optional[Atom]:
        head_tok = x[0]
        if head_tok == "=":
            pred = "="
        else:
            pred = self.name(head_tok, f"a predicate name in {context}")
            if pred is None:
                return None
        args = []
        for a in x[1:]:
            if a.__class__ is not SList:  # the common case: a well-formed name or variable
                low = a.lower()
                if _TERM_RE.fullmatch(low):
                    args.append(low)
                    continue
            args.append(self.term(a, f"({head_tok} ...)"))  # diagnoses what it is not
        if None in args:
            return None
        return Atom(pred, tuple(args), (x.line, x.column))

    def numeric(self, x, context: str) -> Optional[NumericExpr]:
        if isinstance(x, SList):
            if len(x) == 0 or x.head() is None:
                self.error("bad-expression", f"empty or malformed numeric expression in {context}", x)
                return None
            head = x.head()
            if head in ARITH_OPS and len(x) >= 2:
                operands = [self.numeric(a, context) for a in x[1:]]
                if any(o is None for o in operands):
                    return None
                if len(operands) == 1:
                    return BinaryOp("-", Number(0.0), operands[0]) if head == "-" else operands[0]
                expr = operands[0]
                for o in operands[1:]:
                    expr = BinaryOp(head, expr, o)
                return expr
            name = self.name(x[0], f"a function name in {context}")
            args = [self.term(a, f"({x[0]} ...)") for a in x[1:]]
            if name is None or any(a is None for a in args):
                return None
            return FunctionTerm(name, tuple(args), (x.line, x.column))
        if _NUMBER_RE.match(x):
            return Number(float(x))
        name = self.name(x, f"a number or function in {context}")
        return FunctionTerm(name, (), _pos_of(x)) if name else None

    def effects(self, x, context: str) -> Optional[list[Effect]]:
        if not isinstance(x, SList):
            self.error("expected-effect", f"expected an effect in parentheses in {context}, "
                       f"found '{x}'", x, hint=f"write ({x} ...) or (and ...)")
            return None
        if len(x) == 0:
            return []
        head = x.head()
        if head is None:
            self.error("expected-effect", f"an effect in {context} starts with a list", x,
                       hint="remove the extra parentheses, or add 'and' after the '('")
            return None
        pos = (x.line, x.column)
        if head == "and":
            out: list[Effect] = []
            ok = True
            for part in x[1:]:
                eff = self.effects(part, context)
                if eff is None:
                    ok = False
                else:
                    out.extend(eff)
            return out if ok else None
        if head == "not":
            if len(x) != 2 or not isinstance(x[1], SList) or x[1].head() in (None, "and", "not",
                                                                               "or", "when", "forall"):
                self.error("bad-delete-effect", f"(not ...) in an effect must wrap one atom, in "
                           f"{context}", x, hint="write (not (pred ?x)); to delete several atoms "
                           "use (and (not (p ?x)) (not (q ?x)))")
                return None
            atom = self.atom(x[1], context)
            return [Literal(atom, False)] if atom is not None else None
        if head == "when":
            if len(x) != 3:
                self.error("bad-when", f"(when ...) needs a condition and an effect in {context}", x)
                return None
            cond = self.formula(x[1], context)
            eff = self.effects(x[2], context)
            if cond is None or eff is None:
                return None
            return [When(cond, tuple(eff), pos)]
        if head == "forall":
            if len(x) != 3 or not isinstance(x[1], SList):
                self.error("bad-forall", f"(forall ...) effect needs variables and an effect in "
                           f"{context}", x)
                return None
            variables = tuple(self.typed_list(x[1], variables=True, what="(forall ...)"))
            eff = self.effects(x[2], context)
            return [ForallEffect(variables, tuple(eff), pos)] if eff is not None else None
        if head in NUMERIC_EFFECT_OPS:
            if len(x) != 3:
                self.error("bad-numeric-effect", f"({head} ...) takes a function and a value", x)
                return None
            target = self.numeric(x[1], context)
            value = self.numeric(x[2], context)
            if not isinstance(target, FunctionTerm):
                if target is not None:
                    self.error("bad-numeric-effect", f"({head} ...) must change a function such "
                               "as (total-cost)", x[1])
                return None
            if value is None:
                return None
            return [NumericEffect(head, target, value, pos)]
        if head in ("or", "exists", "imply"):
            self.error("condition-in-effect", f"({head} ...) is a condition, not an effect, in "
                       f"{context}", x, hint="effects are atoms, (not atom), (and ...), (when "
                       "...), (forall ...); move the condition to :precondition")
            return None
        atom = self.atom(x, context)
        return [Literal(atom, True)] if atom is not None else None

    # ------------------------------------------------------------------ files

    def find_define(self, top: list, kind: str) -> Optional[SList]:
        defines = [x for x in top if isinstance(x, SList) and x.head() == "define"]
        chosen = None
        for d in defines:
            if len(d) > 1 and isinstance(d[1], SList) and d[1].head() == kind:
                chosen = d
                break
        for x in top:
            if x is chosen or (isinstance(x, SList) and x.head() == "define"):
                continue  # ours, or another define (e.g. the problem next to the domain)
            shown = x.describe() + " ...)" if isinstance(x, SList) else f"'{x}'"
            self.error("outside-define", f"{shown} is outside (define ...)", x,
                       hint="remove everything before '(define' and after its closing ')' "
                            "(stray JSON, markdown fences or commentary)")
        if chosen is None:
            other = "problem" if kind == "domain" else "domain"
            if any(len(d) > 1 and isinstance(d[1], SList) and d[1].head() == other for d in defines):
                self.error("wrong-file-kind", f"expected a {kind} file, found a {other} "
                           f"(define ({other} ...))", defines[0],
                           hint=f"pass the {other} file as the {other} and the {kind} file as "
                                f"the {kind}")
            elif defines:
                self.error("missing-header", f"expected ({kind} NAME) right after '(define'",
                           defines[0], hint=f"start the file with (define ({kind} my-{kind}) ...")
                return defines[0]
            else:
                # an empty or all-comment file still has a place to name: its start
                self.error("missing-define", f"no (define ({kind} ...) ...) found",
                           top[0] if top else _FILE_START,
                           hint=f"a {kind} file is one (define ({kind} NAME) ...) form")
        return chosen

    def header_name(self, define: SList, kind: str) -> str:
        hdr = define[1] if len(define) > 1 else None
        if isinstance(hdr, SList) and hdr.head() == kind and len(hdr) == 2:
            return self.name(hdr[1], f"the {kind} name") or "unnamed"
        if isinstance(hdr, SList) and hdr.head() == kind:
            self.error("bad-header", f"({kind} ...) must hold exactly one name", hdr,
                       hint=f"write ({kind} my-{kind})")
            if len(hdr) > 1:
                return self.name(hdr[1], f"the {kind} name") or "unnamed"
        return "unnamed"

    def sections(self, define: SList, allowed, kind: str):
        """Yield (keyword, section) in file order, reporting unknown, repeated and misplaced ones.

        PDDL's grammar fixes the order of sections (Fast Downward rejects, e.g., :predicates
        after an :action, because the actions cannot be read without the predicates).
        """
        seen: dict[str, SList] = {}
        order = {k: i for i, k in enumerate(allowed)}
        if kind == "domain":
            # declarations in any order (as Fast Downward allows), but all before the actions
            order = {":requirements": 0, ":types": 1, ":constants": 1, ":predicates": 1,
                     ":functions": 1, ":action": 2, ":derived": 2}
        last_key, last_rank = None, -1
        hdr = define[1] if len(define) > 1 else None
        start = 2 if isinstance(hdr, SList) and hdr.head() in ("domain", "problem") else 1
        for item in define[start:]:
            if not isinstance(item, SList) or not item.head() or not item.head().startswith(":"):
                shown = item.describe() + " ...)" if isinstance(item, SList) else f"'{item}'"
                hint = f"a {kind} holds sections ({' ...) ('.join(allowed)} ...)"
                if isinstance(item, SList) and item.head() in ("action", "types", "predicates",
                                                               "objects", "init", "goal",
                                                               "requirements", "constants",
                                                               "domain", "functions"):
                    hint = f"write '(:{item.head()}' with a colon"
                self.error("unexpected-item", f"unexpected {shown} in the {kind}", item, hint=hint,
                           expected=allowed)
                continue
            key = item.head()
            if key not in allowed:
                dym = _did_you_mean(key, allowed)
                hint = dym or f"allowed sections: {', '.join(allowed)}"
                if key == ":durative-action" and kind == "domain":
                    self.error(*temporal_unsupported(f"durative action ({key} "
                                                     f"{_shown_name(item)} ...)"), item,
                               hint=TEMPORAL_HINT)
                    continue
                if key == ":actions":
                    hint = ("write each action as its own (:action NAME :parameters (...) "
                            ":precondition (...) :effect (...)) section, with no (:actions ...) "
                            "wrapper")
                elif kind == "domain" and key in PROBLEM_SECTIONS:
                    hint = f"{key} belongs in the problem file, not the domain"
                elif kind == "problem" and key in DOMAIN_SECTIONS:
                    hint = f"{key} belongs in the domain file, not the problem"
                self.error("unknown-section", f"unknown section ({item[0]} in the {kind}", item,
                           hint=hint, expected=allowed)
                continue
            if key not in (":action", ":derived"):
                if key in seen:
                    self.error("duplicate-section", f"two ({key} ...) sections in the {kind} "
                               f"(first at line {seen[key].line})", item,
                               hint=f"merge them into one ({key} ...) section")
                    continue
                seen[key] = item
            rank = order.get(key, 0)
            if rank < last_rank:
                self.error("section-order", f"({key} ...) comes after ({last_key} ...) in the "
                           f"{kind}", item,
                           hint=f"move ({key} ...) before ({last_key} ...): the order is "
                                f"{', '.join(allowed)}"
                                + (" (declarations before actions)" if kind == "domain" else ""))
            else:
                last_key, last_rank = key, rank
            yield key, item

    def requirements(self, sec: SList) -> tuple[str, ...]:
        out = []
        for tok in sec[1:]:
            if isinstance(tok, SList):
                self.error("unexpected-list", "unexpected list in (:requirements ...)", tok)
                continue
            low = tok.lower()
            if not low.startswith(":"):
                self.error("bad-requirement", f"requirement '{tok}' must start with ':'", tok,
                           hint=f"write ':{low}'")
                continue
            if low not in KNOWN_REQUIREMENTS:
                dym = _did_you_mean(low, KNOWN_REQUIREMENTS)
                self.error("unknown-requirement", f"unknown requirement '{tok}'", tok,
                           hint=dym or "remove it", expected=KNOWN_REQUIREMENTS)
                continue
            out.append(low)
        return tuple(out)

    def read_domain(self, top: list, file: Optional[str]) -> Optional[Domain]:
        define = self.find_define(top, "domain")
        if define is None:
            return None
        name = self.header_name(define, "domain")
        reqs: tuple[str, ...] = ()
        types: list[TypeDecl] = []
        constants: list[TypedName] = []
        predicates: list[Predicate] = []
        functions: list[Function] = []
        actions: list[Action] = []
        derived: list[DerivedPredicate] = []
        for key, sec in self.sections(define, DOMAIN_SECTIONS, "domain"):
            if key == ":requirements":
                reqs = self.requirements(sec)
            elif key == ":types":
                for tn in self.typed_list(sec[1:], variables=False, what="(:types ...)"):
                    types.append(TypeDecl(tn.name, tn.types, tn.pos))
            elif key == ":constants":
                constants.extend(self.typed_list(sec[1:], variables=False, what="(:constants ...)"))
            elif key == ":predicates":
                for p in sec[1:]:
                    pred = self.predicate_decl(p, "(:predicates ...)")
                    if pred is not None:
                        predicates.append(pred)
            elif key == ":functions":
                functions.extend(self.function_decls(sec[1:]))
            elif key == ":action":
                act = self.action(sec)
                if act is not None:
                    actions.append(act)
            elif key == ":derived":
                d = self.derived(sec)
                if d is not None:
                    derived.append(d)
        return Domain(name, reqs, tuple(types), tuple(constants), tuple(predicates),
                      tuple(functions), tuple(actions), tuple(derived), file=file)

    def predicate_decl(self, p, where: str) -> Optional[Predicate]:
        if not isinstance(p, SList) or not p:
            shown = f"'{p}'" if isinstance(p, str) else "()"
            self.error("bad-predicate", f"expected (name ?arg - type ...) in {where}, found {shown}",
                       p, hint="write each predicate as (name ?x - type ...)")
            return None
        pname = self.name(p[0], f"a predicate name in {where}")
        if pname is None:
            return None
        params = tuple(self.typed_list(p[1:], variables=True, what=f"predicate ({p[0]} ...)"))
        return Predicate(pname, params, (p.line, p.column))

    def function_decls(self, items) -> list[Function]:
        out: list[Function] = []
        pending: list[Function] = []
        i = 0
        while i < len(items):
            item = items[i]
            if isinstance(item, SList):
                f = self.predicate_decl(item, "(:functions ...)")
                if f is not None:
                    pending.append(Function(f.name, f.parameters, "number", f.pos))
            elif item == "-":
                i += 1
                ftype = items[i].lower() if i < len(items) and isinstance(items[i], str) else None
                if ftype is None:
                    self.error("missing-type", "'-' in (:functions ...) needs a type (number)", item)
                out.extend(Function(f.name, f.parameters, ftype or "number", f.pos) for f in pending)
                pending = []
            else:
                self.error("bad-function", f"unexpected '{item}' in (:functions ...)", item,
                           hint="write (:functions (total-cost) - number)")
            i += 1
        out.extend(pending)
        return out

    def action(self, sec: SList) -> Optional[Action]:
        if len(sec) < 2 or isinstance(sec[1], SList) or sec[1].startswith(":"):
            self.error("missing-action-name", "(:action ...) needs a name right after ':action'",
                       sec, hint="write (:action move :parameters (...) ...)")
            return None
        aname = self.name(sec[1], "an action name")
        if aname is None:
            return None
        owner = f"(:action {aname}"
        fields = self.keyword_pairs(sec[2:], ACTION_FIELDS, owner + " ...)")
        params: tuple[TypedName, ...] = ()
        if ":parameters" in fields:
            value, key_tok = fields[":parameters"]
            items = value if isinstance(value, SList) else ([] if value is None else [value])
            if not isinstance(value, SList):
                self.error("bad-parameters", f":parameters of {aname} must be a list", key_tok,
                           hint="write :parameters (?x - type ...)")
            params = tuple(self.typed_list(items, variables=True, what=f":parameters of {aname}"))
        precondition: Optional[Formula] = TRUE
        if ":precondition" in fields:
            value, _ = fields[":precondition"]
            precondition = self.formula(value, f"the precondition of {aname}")
        effects: Optional[list] = []
        if ":effect" in fields:
            value, _ = fields[":effect"]
            effects = self.effects(value, f"the effect of {aname}")
        else:
            self.error("missing-effect", f"action {aname} has no :effect", sec,
                       hint=f"add ':effect (and ...)' to {owner} ...)", expected=(":effect",))
        if precondition is None or effects is None:
            return None
        return Action(aname, params, precondition, tuple(effects), (sec.line, sec.column))

    def derived(self, sec: SList) -> Optional[DerivedPredicate]:
        if len(sec) != 3:
            self.error("bad-derived", "(:derived ...) needs a predicate and a condition", sec,
                       hint="write (:derived (pred ?x - type) (condition ...))")
            return None
        pred = self.predicate_decl(sec[1], "(:derived ...)")
        cond = self.formula(sec[2], "a derived predicate")
        if pred is None or cond is None:
            return None
        return DerivedPredicate(pred, cond, (sec.line, sec.column))

    def read_problem(self, top: list, file: Optional[str]) -> Optional[Problem]:
        define = self.find_define(top, "problem")
        if define is None:
            return None
        name = self.header_name(define, "problem")
        domain_name = ""
        reqs: tuple[str, ...] = ()
        objects: list[TypedName] = []
        init: list[Atom] = []
        numeric_init: list = []
        goal: Optional[Formula] = None
        metric: Optional[Metric] = None
        for key, sec in self.sections(define, PROBLEM_SECTIONS, "problem"):
            if key == ":domain":
                if len(sec) == 2:
                    domain_name = self.name(sec[1], "the domain name") or ""
                else:
                    self.error("bad-domain-ref", "(:domain ...) must hold exactly one name", sec)
            elif key == ":requirements":
                reqs = self.requirements(sec)
            elif key == ":objects":
                objects.extend(self.typed_list(sec[1:], variables=False, what="(:objects ...)"))
            elif key == ":init":
                self.init(sec, init, numeric_init)
            elif key == ":goal":
                if len(sec) != 2:
                    self.error("bad-goal", f"(:goal ...) must hold exactly one formula, found "
                               f"{len(sec) - 1}", sec,
                               hint="wrap several goal atoms in (and ...)")
                    parts = [self.formula(x, "the goal") for x in sec[1:]]
                    goal = And(tuple(p for p in parts if p is not None))
                elif isinstance(sec[1], SList) and len(sec[1]) == 0:
                    self.error("empty-goal", "the goal is empty: (:goal ())", sec[1],
                               hint="state what must hold at the end, e.g. (:goal (at coin "
                                    "kitchen)); an empty goal gives nothing to plan for")
                    goal = TRUE
                else:
                    goal = self.formula(sec[1], "the goal")
            elif key == ":metric":
                if len(sec) != 3 or sec[1].lower() not in ("minimize", "maximize"):
                    self.error("bad-metric", "expected (:metric minimize|maximize EXPR)", sec,
                               hint="write (:metric minimize (total-cost))")
                else:
                    expr = self.numeric(sec[2], "the metric")
                    if expr is not None:
                        metric = Metric(sec[1].lower(), expr)
        if not domain_name:
            self.error("missing-domain-ref", "the problem does not say its domain: (:domain "
                       "NAME) is missing", define,
                       hint="add (:domain NAME) right after (problem ...), with the name from "
                            "the domain's (define (domain NAME) ...)", expected=(":domain",))
        if self._negated_init:
            positive = {a.ground({}) for a in init}
            for atom, node in self._negated_init:
                if atom.ground({}) in positive:
                    self.error("contradictory-init", f"({' '.join(atom.ground({}))}) is listed in "
                               ":init both as true and as (not ...)", node,
                               hint="remove the (not ...) entry, or the positive one")
        if goal is None:
            self.error("missing-goal", "the problem has no (:goal ...)", define,
                       hint="add (:goal (and ...)) with what must hold at the end")
            goal = TRUE
        return Problem(name, domain_name, reqs, tuple(objects), tuple(init), tuple(numeric_init),
                       goal, metric, file=file,
                       negated_init=tuple(atom for atom, _ in self._negated_init))

    @staticmethod
    def _ground_names(x: SList, known: dict) -> Optional[list]:
        """The lower-cased items of ``x`` if all are well-formed ground names (added to
        ``known``), else None."""
        names = []
        for a in x:
            if a.__class__ is SList:
                return None
            low = a.lower()
            if low[:1] == "?" or not _NAME_RE.match(low):
                return None
            known[a] = low
            names.append(low)
        return names

    def init(self, sec: SList, init: list, numeric_init: list) -> None:
        # the common case first: (pred name ...) with well-formed ground names, read as atom()
        # reads it; anything else (variables, nested lists, not, and, =, bad names) takes the
        # full path below, with its diagnostics. ``known`` maps each token text already seen
        # as a well-formed ground name to its lower-cased form (a large :init repeats a few
        # hundred names tens of thousands of times).
        known: dict = {}
        for x in sec[1:]:
            if x.__class__ is SList and x:
                try:
                    names = [known[a] for a in x]
                except KeyError:
                    names = self._ground_names(x, known)
                except TypeError:  # a nested list
                    names = None
                if names is not None and names[0] not in ("not", "and"):
                    init.append(Atom(names[0], tuple(names[1:]), (x.line, x.column)))
                    continue
            if x.__class__ is SList:  # read_sexpr left its tokens without positions
                place_tokens(x, self.sink.line_text)
            if not isinstance(x, SList) or not x or x.head() is None:
                shown = f"'{x}'" if isinstance(x, str) else "a malformed list"
                self.error("bad-init", f"expected a ground atom in (:init ...), found {shown}", x,
                           hint="write each initial fact as (pred obj1 obj2)")
                continue
            head = x.head()
            if head == "not":
                if len(x) == 2 and isinstance(x[1], SList) and x[1].head():
                    neg = self.atom(x[1], "(:init ...)")
                    if neg is not None:
                        self._negated_init.append((neg, x))
                self.error("negated-init-atom", "(not ...) in :init", x,
                           hint="remove it: every atom not listed in :init is false "
                                "(closed-world assumption)", severity=Severity.WARNING)
                continue
            if head == "and":
                self.error("and-in-init", "(and ...) in :init", x,
                           hint="list the atoms directly inside (:init ...) without (and ...)")
                for y in x[1:]:
                    if isinstance(y, SList) and y.head() not in (None, "not", "and", "="):
                        a = self.atom(y, "(:init ...)")
                        if a is not None:
                            init.append(a)
                continue
            if head == "=" and len(x) == 3 and isinstance(x[1], SList):
                target = self.numeric(x[1], "(:init ...)")
                if isinstance(x[2], str) and _NUMBER_RE.match(x[2]) and isinstance(target, FunctionTerm):
                    numeric_init.append((target, float(x[2])))
                else:
                    self.error("bad-numeric-init", "expected (= (function args) NUMBER) in :init",
                               x)
                continue
            if head in ("at", "over") and len(x) == 3 and isinstance(x[1], str) and \
                    _NUMBER_RE.match(x[1]) and isinstance(x[2], SList):
                self.error("unsupported", "timed initial literals are not supported", x,
                           hint="remove the timed literal; pddlkit handles classical planning")
                continue
            atom = self.atom(x, "(:init ...)")
            if atom is None:
                continue
            bad = [a for a in atom.args if a.startswith("?")]
            if bad:
                self.error("variable-in-init", f"variable {bad[0]} in the ground atom "
                           f"({x[0]} ...) of :init", x,
                           hint="the initial state lists ground facts: use object names")
                continue
            init.append(atom)


#: the most diagnostics reading one file makes before it stops (with one more saying so): no
#: file with a few slips has that many, and 50 MB of words each worth one would take minutes
MAX_READ_DIAGNOSTICS = 1000


def _read(text: str, file: Optional[str], kind: str):
    # text with no file is named by what it is, so a position says which one: <problem>:3:43
    sink = DiagnosticSink(text, file or f"<{kind}>", limit=MAX_READ_DIAGNOSTICS)
    # Reading makes hundreds of thousands of small objects and no reference cycles, so the
    # cyclic garbage collector's passes over the growing heap are pure cost (a third of the
    # time on the largest IPC problems); it is paused while reading and then restored.
    collecting = gc.isenabled()
    gc.disable()
    try:
        top = read_sexpr(text, sink)
        reader = _Reader(sink)
        model = reader.read_domain(top, file) if kind == "domain" else reader.read_problem(top, file)
    except RecursionError:
        sink.limit = None
        sink.add("too-deeply-nested", "the file is nested too deeply to read", line=1, column=1,
                 hint="check for runaway parentheses")
        model = None
    except TooManyDiagnostics:
        sink.limit = None
        last = sink.items[-1]
        sink.add("too-many-errors", f"reading stopped here after {MAX_READ_DIAGNOSTICS} "
                 "errors: this does not look like PDDL", line=last.line, column=last.column,
                 hint="check that the file is the PDDL you meant to pass; fix the first errors "
                      "and check again")
        sink.items.insert(0, sink.items.pop())   # first: a listing shows only the first ones
        model = None
    finally:
        if collecting:
            gc.enable()
    if model is not None:
        object.__setattr__(model, "source", text)
    return model, sink.items


#: domains read lately, by (text, file): an agent's loop reads the same domain at each step
#: (declaring objects, repairing, planning, scoring); 1,762 reads made 15% of replaying 20
#: recorded episodes. The models and diagnostics are frozen, so one read serves them all.
_DOMAINS_READ: "OrderedDict[tuple[str, Optional[str]], tuple]" = OrderedDict()
_DOMAINS_KEPT = 64
_DOMAIN_KEPT_BYTES = 256 * 1024   # a bigger text is read each time (kept small in memory)
_DOMAINS_LOCK = threading.Lock()   # a server's or a sweep's threads read at once


def read_domain(source: Source, file: Optional[str] = None, *, max_bytes: Optional[int] = None
                ) -> tuple[Optional[Domain], list[Diagnostic]]:
    """Read a domain, returning the (possibly partial) model and every diagnostic;
    ``max_bytes`` bounds a file's size (:func:`load_source`). A text read lately is not read
    again: its model (frozen) is shared, its diagnostics come in a new list."""
    text, file = load_source(source, file, max_bytes=max_bytes)
    if len(text) > _DOMAIN_KEPT_BYTES:
        return _read(text, file, "domain")
    key = (text, file)
    with _DOMAINS_LOCK:
        kept = _DOMAINS_READ.get(key)
        if kept is not None:
            _DOMAINS_READ.move_to_end(key)
    if kept is None:
        kept = _read(text, file, "domain")
        with _DOMAINS_LOCK:
            _DOMAINS_READ[key] = kept
            if len(_DOMAINS_READ) > _DOMAINS_KEPT:
                _DOMAINS_READ.popitem(last=False)
    model, diagnostics = kept
    return model, list(diagnostics)


def read_problem(source: Source, file: Optional[str] = None, *, max_bytes: Optional[int] = None
                 ) -> tuple[Optional[Problem], list[Diagnostic]]:
    """Read a problem, returning the (possibly partial) model and every diagnostic;
    ``max_bytes`` bounds a file's size (:func:`load_source`)."""
    text, file = load_source(source, file, max_bytes=max_bytes)
    return _read(text, file, "problem")


def parse_domain(source: Source, file: Optional[str] = None) -> Domain:
    """The domain in ``source`` (PDDL text or a path); raises PDDLSyntaxError listing all errors."""
    model, diags = read_domain(source, file)
    if model is None or any(d.is_error for d in diags):
        raise PDDLSyntaxError(diags, f"cannot read domain {file or '<string>'}")
    return model


def parse_problem(source: Source, file: Optional[str] = None) -> Problem:
    """The problem in ``source`` (PDDL text or a path); raises PDDLSyntaxError listing all errors."""
    model, diags = read_problem(source, file)
    if model is None or any(d.is_error for d in diags):
        raise PDDLSyntaxError(diags, f"cannot read problem {file or '<string>'}")
    return model
