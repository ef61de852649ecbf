"""Static checks of a domain and problem: everything that can be wrong before planning.

Errors are what makes a planner reject the files or makes the model meaningless (an
undeclared predicate, a variable not in scope, a wrong number of arguments, a type that no
object can have). Warnings are legal but suspicious PDDL (an undeclared requirement that
planners tolerate, an empty effect, a goal atom nothing can make true). Each diagnostic's hint
names the concrete edit, because the usual reader of these messages is the LLM that wrote the
file.

Severity choices where PDDL practice and the letter of the standard differ:
- requirement used but not declared: warning (Fast Downward and most planners accept it);
- a problem whose :domain differs from the domain's name: warning (planners ignore it);
- an argument whose type does not fit the predicate's parameter: warning (planners do not
  type-check atoms; the message says whether some objects may fit or none ever can);
- ``(not ...)`` in :init and a predicate declared twice with the same arity: warning.
Errors follow what makes Fast Downward's translator reject a file (section order, field order,
objects of undeclared types, duplicate objects, ``either`` as an object's type), so that a file
pddlkit accepts is a file the planner accepts.

The target planner. ``check(..., planner="fast-downward")`` (the default, as for
``pddlkit.plan``) also makes errors of what only Fast Downward rejects: ``(either ...)``
types where its translator refuses them (everywhere but a predicate's declaration), and numbers it cannot take as action costs (negative, fractional, or at least
2**31 - 1, which its search reads as infinity or cannot parse). ``planner=None`` checks
against PDDL itself: ``either`` is then a warning, and only a number too large to be a number
at all (it reads as infinity) is an error. ``planner="auto"`` checks against PDDL itself too,
as :mod:`pddlkit.planners.auto` picks a planner per task by its features (numeric fluents:
ENHSP), so a numeric domain is not refused for Fast Downward's sake.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Union

from .diagnostics import (Diagnostic, DiagnosticSink, PDDLError, PDDLSemanticError, Severity,
                          format_diagnostics)
from .pddl.model import (
    And, Atom, BinaryOp, Comparison, Domain, Exists, Forall, ForallEffect, Formula,
    FunctionTerm, Imply, Literal, Not, Number, NumericEffect, Or, Problem, TypedName, When,
    iter_comparisons, iter_effect_literals, iter_numeric_effects, iter_numeric_terms,
)
from .pddl.reader import TEMPORAL_HINT, Source, read_domain, read_problem, temporal_unsupported

SUPPORTED_REQUIREMENTS = frozenset({
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions", ":equality",
    ":existential-preconditions", ":universal-preconditions", ":quantified-preconditions",
    ":conditional-effects", ":adl", ":action-costs", ":derived-predicates", ":negation",
})
NUMERIC_REQUIREMENTS = frozenset({":numeric-fluents", ":fluents"})
#: what to do with a numeric task that Fast Downward cannot plan
FD_NUMERIC_HINT = ("check and plan with planner auto (--planner auto), which picks a numeric "
                   "planner (ENHSP through up-enhsp: pip install 'pddlkit[numeric]', and Java)")
#: temporal PDDL (2.1 and later): read by no planner here
TEMPORAL_REQUIREMENTS = frozenset({":durative-actions", ":duration-inequalities",
                                   ":continuous-effects", ":timed-initial-literals"})


# what each feature needs: any one of these declared requirements covers it
COVERS = {
    "typing": {":typing", ":adl"},
    "negative": {":negative-preconditions", ":disjunctive-preconditions", ":adl", ":negation"},
    "disjunctive": {":disjunctive-preconditions", ":adl"},
    "equality": {":equality", ":adl"},
    "existential": {":existential-preconditions", ":quantified-preconditions", ":adl"},
    "universal": {":universal-preconditions", ":quantified-preconditions", ":adl"},
    "conditional": {":conditional-effects", ":adl"},
    "costs": {":action-costs", ":numeric-fluents", ":fluents"},
    "derived": {":derived-predicates"},
    # numbers beyond action costs: a function other than total-cost, a numeric condition, an
    # effect other than increasing the total cost (what Fast Downward cannot plan)
    "numeric": {":numeric-fluents", ":fluents"},
}
FEATURE_REQUIREMENT = {
    "typing": ":typing", "negative": ":negative-preconditions", "disjunctive":
    ":disjunctive-preconditions", "equality": ":equality", "existential":
    ":existential-preconditions", "universal": ":universal-preconditions", "conditional":
    ":conditional-effects", "costs": ":action-costs", "derived": ":derived-predicates",
    "numeric": ":numeric-fluents",
}


@dataclass
class CheckReport:
    """All diagnostics for a domain (and problem), and the models that could be read."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    domain: Optional[Domain] = None
    problem: Optional[Problem] = None
    #: the PDDL features the files use (``negative``, ``conditional``, ...: :data:`COVERS`'s
    #: keys), what a planner must support to plan them
    features: frozenset = frozenset()

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_for_errors(self) -> None:
        if self.errors:
            raise PDDLSemanticError(self.diagnostics, f"{len(self.errors)} error(s) found")

    #: how many diagnostics (and errors among them) :func:`check` left out past
    #: :data:`MAX_DIAGNOSTICS`, counted by the last, ``too-many-diagnostics``, one
    omitted: int = 0
    omitted_errors: int = 0

    def format(self, limit: Optional[int] = None) -> str:
        """The diagnostics as text; with ``limit`` (``pddlkit check`` shows
        :data:`~pddlkit.diagnostics.MAX_SHOWN`) the first ``limit`` and one line counting
        the rest, those :func:`check` already left out included."""
        if not self.diagnostics:
            return "no problems found"
        if limit is None:
            return "\n".join(d.format() for d in self.diagnostics)
        listed = self.diagnostics[:-1] if self.omitted else self.diagnostics
        return format_diagnostics(listed, limit, hidden=self.omitted,
                                  hidden_errors=self.omitted_errors)

    def counts(self) -> tuple[int, int]:
        """(errors, warnings) found, those left out of the list included."""
        listed = self.diagnostics[:-1] if self.omitted else self.diagnostics
        n_err = sum(d.is_error for d in listed) + self.omitted_errors
        n_warn = sum(d.severity is Severity.WARNING for d in listed)
        return n_err, n_warn + self.omitted - self.omitted_errors


def _dym(word: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'? " if close else ""


#: Fast Downward's search reads action costs as C++ ints, and INT_MAX means "infinity"
FD_MAX_COST = 2 ** 31 - 1


class _Checker:
    def __init__(self, domain: Domain, dsink: DiagnosticSink, planner: Optional[str] = None):
        self.fast_downward = bool(planner) and str(planner).startswith("fast-downward")
        self.domain = domain
        self.dsink = dsink
        self.sink = dsink
        self.types = set(domain.type_parents)
        self.predicates = domain.predicate_map
        self.functions = domain.function_map
        self.constants = {c.name: c.types for c in domain.constants}
        self.declared_types = {t.name for t in domain.types} | {"object"}
        self.objects: dict[str, tuple] = {}  # the problem's objects, once it is checked
        self.features: dict[str, tuple] = {}
        self._ancestors: dict[str, frozenset] = {}
        #: (code, name) -> [its first diagnostic, how many more uses of the same name]
        self.repeats: dict[tuple, list] = {}

    # ------------------------------------------------------------------ helpers

    def add(self, code: str, message: str, pos, hint: Optional[str] = None,
            severity: Severity = Severity.ERROR, subject: Optional[str] = None) -> None:
        """One diagnostic; the uses of one undeclared ``subject`` after the first are only
        counted, and the first says how many more there are (one root cause, one error)."""
        key = (code, subject)
        if subject is not None and key in self.repeats:
            self.repeats[key][1] += 1
            return
        line, col = pos if pos else (0, 0)
        diag = self.sink.add(code, message, line=line, column=col, hint=hint, severity=severity)
        if subject is not None:
            self.repeats[key] = [diag, 0]

    def warn(self, code: str, message: str, pos, hint: Optional[str] = None) -> None:
        self.add(code, message, pos, hint, Severity.WARNING)

    def summarized(self, items: list[Diagnostic]) -> list[Diagnostic]:
        """``items`` with each repeated name's first diagnostic saying how many more uses of
        the same name there are (the others were only counted)."""
        more = {id(d): n for d, n in self.repeats.values() if n}
        return [dataclasses.replace(d, message=f"{d.message} (and {more[id(d)]} more use"
                                                f"{'s' if more[id(d)] > 1 else ''} of the same "
                                                f"name)") if id(d) in more else d
                for d in items]

    def uses(self, feature: str, pos) -> None:
        self.features.setdefault(feature, pos)

    def ancestors(self, t: str) -> frozenset:
        if t not in self._ancestors:
            seen = {t}
            stack = [t]
            while stack:
                for p in self.domain.type_parents.get(stack.pop(), ()):
                    if p not in seen:
                        seen.add(p)
                        stack.append(p)
            seen.add("object")
            self._ancestors[t] = frozenset(seen)
        return self._ancestors[t]

    def subtype(self, sub: tuple, sup: tuple) -> bool:
        return all(any(s in self.ancestors(t) for s in sup) for t in sub)

    def overlaps(self, a: tuple, b: tuple) -> bool:
        """Could one object have both types? (one is an ancestor of the other)"""
        return any(x in self.ancestors(y) or y in self.ancestors(x) for x in a for y in b)

    def check_type_refs(self, names: Iterable[TypedName], where: str, objects=False,
                        either_ok=False) -> None:
        """Types must be declared; objects' types explicitly (a parent-only type is not enough).
        ``either_ok``: Fast Downward takes (either ...) here (predicate declarations only)."""
        known = self.declared_types if objects else self.types
        for tn in names:
            if tn.types != ("object",):
                self.uses("typing", tn.pos)
            if len(tn.types) > 1 and not objects:
                fatal = self.fast_downward and not either_ok
                self.add("either-type", f"{tn.name} in {where} has the type (either "
                         f"{' '.join(tn.types)}), which Fast Downward "
                         + ("does not accept" if not either_ok else "reads as 'object'"), tn.pos,
                         hint="declare a common supertype and use it instead of (either ...)",
                         severity=Severity.ERROR if fatal else Severity.WARNING)
            for t in tn.types:
                if t not in known:
                    self.add("undeclared-type", f"type '{t}' of {tn.name} in {where} is not "
                             "declared", tn.pos,
                             hint=f"{_dym(t, self.types)}declare it in (:types ... {t}) or use "
                                  "a declared type", subject=t)

    def check_single_types(self, names: Iterable[TypedName], where: str) -> None:
        for tn in names:
            if len(tn.types) > 1:
                self.add("either-object", f"{tn.name} in {where} has the type (either "
                         f"{' '.join(tn.types)}); an object has exactly one type", tn.pos,
                         hint=f"pick one type for {tn.name}, or declare a common supertype")

    def check_duplicates(self, names: Iterable, what: str, severity=Severity.ERROR) -> None:
        seen: dict[str, object] = {}
        for item in names:
            if item.name in seen:
                self.add(f"duplicate-{what.replace(' ', '-')}", f"{what} '{item.name}' is "
                         "declared twice", item.pos, hint=f"remove one of the two declarations "
                         f"of {item.name}", severity=severity)
            else:
                seen[item.name] = item

    # ------------------------------------------------------------------ domain

    def check_domain(self) -> None:
        d = self.domain
        for r in d.requirements:
            if r in NUMERIC_REQUIREMENTS:
                # pddlkit's semantics simulates and validates numeric fluents; Fast Downward
                # plans with numbers only as action costs
                if self.fast_downward:
                    self.add("unsupported-requirement", f"requirement {r} is not supported by "
                             "Fast Downward: it handles numbers only as action costs", None,
                             hint=f"replace {r} by :action-costs if the numbers are costs "
                                  f"(increase (total-cost) ...); otherwise {FD_NUMERIC_HINT}")
            elif r in TEMPORAL_REQUIREMENTS:
                self.add(*temporal_unsupported(f"requirement {r}"), None,
                         hint=TEMPORAL_HINT)
            elif r not in SUPPORTED_REQUIREMENTS:
                self.add("unsupported-requirement", f"requirement {r} is declared but not "
                         "supported by pddlkit's checks or any planner here", None,
                         hint=f"remove {r} and the features that need it")
        self.check_duplicates(d.types, "type", Severity.WARNING)
        declared_types = {x.name for x in d.types} | {"object"}
        reported: set = set()
        for t in d.types:
            if t.name in t.parents and t.name != "object":   # (:types object x) is harmless
                self.warn("self-parent-type", f"type '{t.name}' is declared as a subtype of "
                          "itself", t.pos, hint=f"remove '{t.name}' from the names before "
                          f"'- {t.name}' in (:types ...)")
            for p in t.parents:
                if p not in declared_types and p not in reported:
                    reported.add(p)
                    self.warn("implicit-type", f"type '{p}' is used as the parent of {t.name} "
                              "but never declared itself", t.pos,
                              hint=f"add '{p}' to (:types ...), e.g. '{p} - object'; objects "
                                   "of an undeclared type are an error")
        self.check_type_cycles()
        self.check_type_refs(d.constants, "(:constants ...)", objects=True)
        self.check_single_types(d.constants, "(:constants ...)")
        self.check_duplicates(d.constants, "constant")
        seen_preds: dict = {}
        for p in d.predicates:
            if p.name in seen_preds:
                same = seen_preds[p.name].arity == p.arity
                self.add("duplicate-predicate", f"predicate '{p.name}' is declared twice"
                         + ("" if same else " with different numbers of arguments"), p.pos,
                         hint=f"remove one of the two declarations of {p.name}",
                         severity=Severity.WARNING if same else Severity.ERROR)
            else:
                seen_preds[p.name] = p
        self.check_duplicates(d.functions, "function")
        self.check_duplicates(d.actions, "action")
        for p in d.predicates:
            self.check_type_refs(p.parameters, f"predicate ({p.name} ...)", either_ok=True)
        for f in d.functions:   # what a function is shows where it is used: a cost (in
            if f.name == "total-cost":   # total-cost's increase) or a number (anywhere else)
                self.uses("costs", f.pos)
            self.check_type_refs(f.parameters, f"function ({f.name} ...)")
        for rule in d.derived:
            self.uses("derived", rule.pos)
            name = rule.predicate.name
            if name not in self.predicates:
                self.add("undeclared-predicate", f"derived predicate '{name}' is not declared in "
                         "(:predicates ...)", rule.pos,
                         hint=f"add ({name} ...) to (:predicates ...)")
            scope = {p.name: p.types for p in rule.predicate.parameters}
            self.formula(rule.condition, scope, f"derived predicate {name}", "condition")
        for a in d.actions:
            self.check_action(a)
        self.check_requirements_declared(d.requirements, "domain")

    def check_type_cycles(self) -> None:
        parents = self.domain.type_parents
        for t in parents:
            seen, stack = set(), list(parents.get(t, ()))
            while stack:
                p = stack.pop()
                if p == t:
                    pos = next((x.pos for x in self.domain.types if x.name == t), None)
                    self.add("type-cycle", f"type '{t}' is its own ancestor", pos,
                             hint="remove one link of the cycle in (:types ...)")
                    return
                if p not in seen:
                    seen.add(p)
                    stack.extend(parents.get(p, ()))

    def check_action(self, a) -> None:
        where = f"action {a.name}"
        self.check_type_refs(a.parameters, f":parameters of {a.name}")
        seen: set = set()
        for p in a.parameters:
            if p.name in seen:
                self.add("duplicate-parameter", f"{p.name} appears twice in :parameters of "
                         f"{a.name}", p.pos, hint=f"rename one of them (e.g. {p.name}2)")
            seen.add(p.name)
        scope = {p.name: p.types for p in a.parameters}
        if a.precondition == And(()) and a.precondition.pos is not None:  # written, not absent
            self.warn("empty-precondition", f"{where} has an empty :precondition", a.pos,
                      hint="add the conditions under which the action can run, or remove the "
                           ":precondition part if it can always run")
        self.formula(a.precondition, scope, where, "precondition")
        if not a.effects:
            self.warn("empty-effect", f"{where} has an empty :effect: it changes nothing",
                      a.pos, hint="add what becomes true and (not ...) what becomes false")
        self.effects(a.effects, scope, where)

    def check_requirements_declared(self, declared: tuple, kind: str) -> None:
        have = set(declared)
        for feature, pos in self.features.items():
            if not have & COVERS[feature]:
                req = FEATURE_REQUIREMENT[feature]
                self.warn("undeclared-requirement", f"the {kind} uses {feature} features but "
                          f"does not declare {req}", pos,
                          hint=f"add {req} to (:requirements ...)")

    # ------------------------------------------------------------------ formulas

    def formula(self, f: Formula, scope: dict, where: str, part: str, negated=False) -> None:
        if isinstance(f, Atom):
            if f.predicate == "=":
                self.uses("equality", f.pos)
                if len(f.args) != 2:
                    self.add("arity", f"(= ...) takes 2 arguments, got {len(f.args)} in {where}",
                             f.pos)
                for arg in f.args:
                    self.term(arg, scope, where, part, f.pos)
                return
            self.atom(f, scope, where, part)
        elif isinstance(f, Not):
            self.uses("negative", f.pos)
            self.formula(f.formula, scope, where, part, not negated)
        elif isinstance(f, And):
            for p in f.parts:
                self.formula(p, scope, where, part, negated)
        elif isinstance(f, Or):
            self.uses("disjunctive", f.pos)
            for p in f.parts:
                self.formula(p, scope, where, part, negated)
        elif isinstance(f, Imply):
            self.uses("disjunctive", f.pos)
            self.formula(f.condition, scope, where, part, negated)
            self.formula(f.consequence, scope, where, part, negated)
        elif isinstance(f, (Exists, Forall)):
            self.uses("existential" if isinstance(f, Exists) else "universal", f.pos)
            self.check_type_refs(f.variables, where)
            inner = dict(scope)
            inner.update({v.name: v.types for v in f.variables})
            self.formula(f.body, inner, where, part, negated)
        elif isinstance(f, Comparison):
            self.uses("numeric", f.pos)
            for e in (f.left, f.right):
                for t in iter_numeric_terms(e):
                    self.function_term(t, scope, where, part)
                self.division_by_zero(e, f"the {part} of {where}", f.pos)

    def term(self, arg: str, scope: dict, where: str, part: str, pos,
             expected: tuple = ()) -> Optional[tuple]:
        """The type(s) of an argument, or None (with a diagnostic) if it is not declared.
        ``expected``: the type(s) the place it fills wants (a predicate's parameter), for the
        hint; in the problem an unknown name is a missing object, so the hint says where to
        add it and with which type, and the caret goes on the name itself."""
        if arg.startswith("?"):
            if arg not in scope:
                self.add("undeclared-variable", f"variable {arg} in the {part} of {where} is not "
                         "declared", pos,
                         hint=f"declare {arg} in :parameters of {where.split()[-1]}, or remove "
                              f"it from the {part}")
                return None
            return scope[arg]
        if arg in self.constants:
            return self.constants[arg]
        extra = self.objects
        if arg in extra:
            return extra[arg]
        known = list(self.constants) + list(extra)
        if where == "the problem":
            kind = next((t for t in expected if t != "object"), None)
            declared = f"{arg} - {kind}" if kind else arg
            self.add("undeclared-object", f"'{arg}' in the {part} of the problem is not a "
                     "declared object or constant", self.name_pos(pos, arg),
                     hint=f"{_dym(arg, known)}add {declared} to (:objects ...) of the problem",
                     subject=arg)
            return None
        self.add("undeclared-constant", f"'{arg}' in the {part} of {where} is not a declared "
                 "constant" + (" or object" if extra else ""), self.name_pos(pos, arg),
                 hint=f"{_dym(arg, known)}declare {arg} in (:constants ...) of the domain, or "
                      f"make it a parameter ?{arg}", subject=arg)
        return None

    def name_pos(self, pos, name: str):
        """The position of ``name`` itself in the atom that starts at ``pos`` (the caret on
        the name, not on the atom's parenthesis); ``pos`` when it cannot be found."""
        if not pos:
            return pos
        line = self.sink.line_text(pos[0]) or ""
        start = max(0, pos[1] - 1)
        close = line.find(")", start)
        found = re.search(rf"(?<![\w?-]){re.escape(name)}(?![\w-])",
                          line[start:close if close >= 0 else len(line)], re.I)
        return (pos[0], start + found.start() + 1) if found else pos

    def atom(self, f: Atom, scope: dict, where: str, part: str) -> None:
        pred = self.predicates.get(f.predicate)
        if pred is None and f.predicate in self.functions and part != ":init":
            self.add("number-as-condition", f"'{f.predicate}' in the {part} of {where} is a "
                     "function (a number), not a predicate: it cannot hold or fail on its own",
                     f.pos, hint=f"compare it, e.g. (> ({f.predicate}"
                                 f"{' ' if f.args else ''}{' '.join(f.args)}) 0)")
            return
        if pred is None:
            self.add("undeclared-predicate", f"predicate '{f.predicate}' in the {part} of "
                     f"{where} is not declared", f.pos,
                     hint=f"{_dym(f.predicate, self.predicates)}declare ({f.predicate} ...) in "
                          "(:predicates ...) of the domain")
            for arg in f.args:
                self.term(arg, scope, where, part, f.pos)
            return
        if len(f.args) != pred.arity:
            sig = " ".join(f"{p.name} - {'/'.join(p.types)}" for p in pred.parameters)
            self.add("arity", f"({f.predicate} ...) takes {pred.arity} argument(s) but gets "
                     f"{len(f.args)} in the {part} of {where}", f.pos,
                     hint=f"the declaration is ({f.predicate} {sig}); pass exactly "
                          f"{pred.arity} argument(s)")
            for arg in f.args:
                self.term(arg, scope, where, part, f.pos)
            return
        for arg, param in zip(f.args, pred.parameters):
            types = self.term(arg, scope, where, part, f.pos, param.types)
            if types is None or param.types == ("object",):
                continue
            if self.subtype(types, param.types):
                continue
            shown = "/".join(types)
            need = "/".join(param.types)
            if not all(t in self.types for t in types + param.types):
                continue  # the undeclared type is reported already
            if self.overlaps(types, param.types):
                self.warn("type-mismatch", f"{arg} (type {shown}) is passed as {param.name} "
                          f"(type {need}) of {f.predicate} in the {part} of {where}", f.pos,
                          hint=f"declare {arg} with type {need}, or it only matches objects "
                               f"that are also {need}")
            else:
                self.warn("type-mismatch", f"{arg} has type {shown} but {f.predicate} expects "
                          f"{need} for {param.name}, in the {part} of {where}: this atom can "
                          "never hold", f.pos,
                          hint=f"use an argument of type {need}, or change the type of "
                               f"{param.name} in ({f.predicate} ...)")

    def function_term(self, t: FunctionTerm, scope: dict, where: str, part: str) -> None:
        fn = self.functions.get(t.name)
        if fn is None and t.name in self.predicates:
            self.add("predicate-as-number", f"'{t.name}' in the {part} of {where} is a "
                     "predicate, not a function: a comparison or a numeric effect takes "
                     "numbers", t.pos,
                     hint=f"use ({t.name} ...) as a condition on its own, or declare a "
                          f"function in (:functions ...) for the number")
            return
        if fn is None:
            self.add("undeclared-function", f"function '{t.name}' in the {part} of {where} is "
                     "not declared", t.pos,
                     hint=f"{_dym(t.name, self.functions)}declare it in (:functions "
                          f"({t.name}) - number)")
            return
        if len(t.args) != len(fn.parameters):
            sig = " ".join(f"{p.name} - {'/'.join(p.types)}" for p in fn.parameters)
            self.add("arity", f"function ({t.name} ...) takes {len(fn.parameters)} "
                     f"argument(s), gets {len(t.args)} in {where}", t.pos,
                     hint=f"the declaration is ({t.name}{' ' if sig else ''}{sig}); pass "
                          f"exactly {len(fn.parameters)} argument(s)")
        for arg in t.args:
            self.term(arg, scope, where, part, t.pos)

    def effects(self, effects, scope: dict, where: str) -> None:
        for e in effects:
            if isinstance(e, Literal):
                self.atom(e.atom, scope, where, "effect")
                if e.atom.predicate in self.derived_names():
                    self.add("derived-in-effect", f"derived predicate {e.atom.predicate} is "
                             f"changed by the effect of {where}", e.atom.pos,
                             hint="derived predicates are computed from their rule; remove "
                                  "this effect")
            elif isinstance(e, When):
                self.uses("conditional", e.pos)
                self.formula(e.condition, scope, where, "effect condition")
                self.effects(e.effects, scope, where)
            elif isinstance(e, ForallEffect):
                self.uses("conditional", e.pos)
                self.check_type_refs(e.variables, where)
                inner = dict(scope)
                inner.update({v.name: v.types for v in e.variables})
                self.effects(e.effects, inner, where)
            elif isinstance(e, NumericEffect):
                cost = e.target.name == "total-cost" and e.op == "increase"
                self.uses("costs" if cost else "numeric", e.pos)
                self.function_term(e.target, scope, where, "effect")
                for t in iter_numeric_terms(e.value):
                    self.function_term(t, scope, where, "effect")
                self.division_by_zero(e.value, f"the effect of {where}", e.pos)
                if isinstance(e.value, Number):
                    self.number(e.value.value, f"the effect of {where}", e.pos)

    def division_by_zero(self, expr, where: str, pos) -> None:
        """A ``(/ x 0)`` with the constant 0: undefined in every state."""
        if isinstance(expr, BinaryOp):
            if expr.op == "/" and isinstance(expr.right, Number) and expr.right.value == 0:
                self.add("division-by-zero", f"a division by the constant 0 in {where}",
                         pos, hint="divide by a non-zero number, or by a function that is "
                                   "never 0 where it is read")
            self.division_by_zero(expr.left, where, pos)
            self.division_by_zero(expr.right, where, pos)

    def number(self, value: float, where: str, pos) -> None:
        """A number used as an action cost: what Fast Downward (or any reader) rejects."""
        if math.isinf(value) or math.isnan(value):
            self.add("number-too-large", f"a number in {where} has too many digits to be a "
                     "number (it reads as infinity)", pos,
                     hint="write a cost with at most 9 digits")
        elif not self.fast_downward:
            return
        elif math.copysign(1.0, value) < 0:
            self.add("negative-number", f"the number {value:g} in {where} is negative; Fast "
                     "Downward's translator rejects negative numbers", pos,
                     hint="action costs must be 0 or more; make this number non-negative")
        elif value != int(value):
            self.add("fractional-number", f"the number {value:g} in {where} is not a whole "
                     "number; Fast Downward supports only integer action costs", pos,
                     hint="scale every cost to whole numbers (e.g. 1.5 -> 15 with the others "
                          "times 10)")
        elif value >= FD_MAX_COST:
            self.add("number-out-of-range", f"the number {value:.0f} in {where} is too large "
                     f"for Fast Downward (action costs must be below {FD_MAX_COST})", pos,
                     hint="use smaller costs; Fast Downward reads costs as 32-bit integers")

    def derived_names(self) -> set:
        return {r.predicate.name for r in self.domain.derived}

    # ------------------------------------------------------------------ problem

    def check_problem(self, problem: Problem, psink: DiagnosticSink) -> None:
        self.sink = psink
        self.features = {}
        d = self.domain
        if problem.domain_name and problem.domain_name != d.name:
            # Fast Downward refuses the pair (its translator exits 31): an error for it
            self.add("domain-name-mismatch", f"the problem is for domain "
                     f"'{problem.domain_name}' but the domain is named '{d.name}'", None,
                     hint=f"write (:domain {d.name}) in the problem",
                     severity=Severity.ERROR if self.fast_downward else Severity.WARNING)
        self.check_type_refs(problem.objects, "(:objects ...)", objects=True)
        self.check_single_types(problem.objects, "(:objects ...)")
        if problem.goal == And(()):
            self.warn("empty-goal", "the goal (and) is empty: it holds already", None,
                      hint="state what must hold at the end in (:goal (and ...))")
        self.check_duplicates(problem.objects, "object")
        for o in problem.objects:
            if o.name in self.constants:
                self.add("object-shadows-constant", f"object '{o.name}' is already a constant "
                          "of the domain", o.pos, hint=f"remove {o.name} from (:objects ...)")
        self.objects = {o.name: o.types for o in problem.objects}
        for a in problem.init:
            self.atom(a, {}, "the problem", ":init")
            if a.predicate in self.derived_names():
                self.warn("derived-in-init", f"derived predicate {a.predicate} is listed in :init",
                          a.pos, hint="remove it: derived predicates are computed from their rule")
        for a in problem.negated_init:   # Fast Downward's translator reads these too
            self.atom(a, {}, "the problem", ":init")
        for t, value in problem.numeric_init:
            self.function_term(t, {}, "the problem", ":init")
            self.number(value, f"(= ({' '.join((t.name, *t.args))}) ...) in :init", t.pos)
        self.check_initialised(problem)
        self.formula(problem.goal, {}, "the problem", "goal")
        if problem.metric is not None:
            for t in iter_numeric_terms(problem.metric.expression):
                if t.name == "total-time" and not t.args:   # PDDL 2.1's built-in: the
                    continue                                # plan's length in time
                self.function_term(t, {}, "the problem", "metric")
        self.check_requirements_declared(d.requirements + problem.requirements, "problem")
        self.check_reachability(problem)

    def check_initialised(self, problem: Problem) -> None:
        """A function read (in a precondition, the goal or an effect's value) with no value in
        :init: undefined in PDDL 2.1, so every action reading it is inapplicable. Ground terms
        are checked exactly; a term with variables when no value of that function is given at
        all. ``total-cost`` starts at 0 by convention and is left out."""
        given = {(t.name, tuple(t.args)) for t, _ in problem.numeric_init}
        names = {name for name, _ in given}
        reported: set = set()

        def read(t: FunctionTerm, where: str) -> None:
            if t.name == "total-cost" or t.name not in self.functions or t.name in reported:
                return
            variables = any(a.startswith("?") for a in t.args)
            if (variables and t.name not in names) or \
                    (not variables and (t.name, tuple(t.args)) not in given):
                reported.add(t.name)
                shown = "(" + " ".join((t.name, *t.args)) + ")"
                example = f"({t.name} ...)" if variables else shown
                self.add("uninitialised-function", f"function {shown} is read in {where} but "
                         "has no value in :init", t.pos,
                         hint=f"give it one in :init, e.g. (= {example} 0)")

        def read_terms(formula) -> Iterator[FunctionTerm]:
            for comparison in iter_comparisons(formula):
                for e in (comparison.left, comparison.right):
                    yield from iter_numeric_terms(e)

        for action in self.domain.actions:
            for t in read_terms(action.precondition):
                read(t, f"the precondition of {action.name}")
            for e in iter_numeric_effects(action.effects):
                for t in iter_numeric_terms(e.value):
                    read(t, f"the effect of {action.name}")
        for t in read_terms(problem.goal):
            read(t, "the goal")

    def check_reachability(self, problem: Problem) -> None:
        """Goal literals that no action can make true and that are false initially."""
        added, deleted = set(), set()
        for a in self.domain.actions:
            for lit in iter_effect_literals(a.effects):
                (added if lit.positive else deleted).add(lit.atom.predicate)
        derived = self.derived_names()
        init = {a.ground({}) for a in problem.init}
        goal = problem.goal
        literals = []
        parts = goal.parts if isinstance(goal, And) else (goal,)
        for p in parts:
            if isinstance(p, Atom):
                literals.append((p, True))
            elif isinstance(p, Not) and isinstance(p.formula, Atom):
                literals.append((p.formula, False))
        for atom, positive in literals:
            if atom.predicate == "=" or atom.predicate in derived or atom.predicate not in self.predicates:
                continue
            if any(x.startswith("?") for x in atom.args):
                continue
            ground = atom.ground({})
            text = "(" + " ".join(ground) + ")"
            if positive and ground not in init and atom.predicate not in added:
                self.warn("unreachable-goal", f"goal {text} is false initially and no action "
                          f"adds {atom.predicate}", atom.pos,
                          hint=f"add ({atom.predicate} ...) to the effect of the action that "
                               "should achieve it, or fix the goal")
            elif not positive and ground in init and atom.predicate not in deleted:
                self.warn("unreachable-goal", f"goal (not {text}) is false initially and no "
                          f"action deletes {atom.predicate}", atom.pos,
                          hint=f"add (not ({atom.predicate} ...)) to an action's effect, or fix "
                               "the goal")


def _decoded(source):
    """UTF-8 bytes become text; anything else is left for :func:`_unreadable` to judge."""
    if isinstance(source, (bytes, bytearray)):
        try:
            return bytes(source).decode("utf-8")
        except UnicodeDecodeError:
            return source
    return source


def _unreadable(source, what: str) -> Optional[Diagnostic]:
    """A diagnostic for input that is not PDDL text, a path or a model; None if it is."""
    if isinstance(source, (str, Domain, Problem)) or hasattr(source, "__fspath__"):
        return None
    if isinstance(source, (bytes, bytearray)):
        try:
            bytes(source).decode("utf-8")
        except UnicodeDecodeError as exc:
            shown = bytes(source[max(0, exc.start - 10):exc.start + 10])
            return Diagnostic("unreadable-input", Severity.ERROR,
                              f"the {what} is not UTF-8 text: byte {exc.start} is "
                              f"{source[exc.start]:#04x} (near {shown!r})",
                              hint="pass PDDL text (str) or a path to a .pddl file")
    return Diagnostic("unreadable-input", Severity.ERROR,
                      f"the {what} is {type(source).__name__}, not PDDL text, a path or a model",
                      hint="pass PDDL text (str), a pathlib.Path to a .pddl file, or a "
                           "parsed Domain/Problem")


def _as_domain(source, max_bytes: Optional[int] = None
               ) -> tuple[Optional[Domain], list[Diagnostic]]:
    if isinstance(source, Domain):
        return source, []
    try:
        return read_domain(source, max_bytes=max_bytes)
    except PDDLError as exc:  # unreadable file
        return None, list(exc.diagnostics)


def _as_problem(source, max_bytes: Optional[int] = None
                ) -> tuple[Optional[Problem], list[Diagnostic]]:
    if isinstance(source, Problem):
        return source, []
    try:
        return read_problem(source, max_bytes=max_bytes)
    except PDDLError as exc:
        return None, list(exc.diagnostics)


def check(domain: Union[Domain, Source], problem: Union[Problem, Source, None] = None, *,
          planner: Optional[str] = "fast-downward",
          max_bytes: Optional[int] = None) -> CheckReport:
    """Read (if needed) and statically check a domain and optionally a problem.

    Never raises: syntax and semantic problems are all in the report, and so is input that
    is not PDDL text at all (None, bytes that are not UTF-8: an ``unreadable-input`` error;
    a path that is not a regular file or is over ``max_bytes``, by default
    ``PDDLKIT_MAX_PDDL_BYTES`` or 64 MiB: ``file-not-regular``, ``file-too-large``).
    Static checks run on whatever could be read, so one broken section does not hide the
    rest. ``planner`` is the target: "fast-downward" (the default) or None (PDDL itself);
    see the module docstring.
    """
    report = CheckReport()
    domain, problem = _decoded(domain), _decoded(problem)
    bad = _unreadable(domain, "domain") or (_unreadable(problem, "problem")
                                            if problem is not None else None)
    if bad is not None:
        report.diagnostics.append(bad)
        return report
    dom, diags = _as_domain(domain, max_bytes)
    report.diagnostics.extend(diags)
    report.domain = dom
    prob = None
    if problem is not None:
        prob, pdiags = _as_problem(problem, max_bytes)
        report.diagnostics.extend(pdiags)
        report.problem = prob
    if dom is None:
        return _capped(report)
    dsink = DiagnosticSink(dom.source or "", dom.file or "<domain>")
    checker = _Checker(dom, dsink, planner)
    checker.check_domain()
    report.diagnostics.extend(checker.summarized(dsink.items))
    features = set(checker.features)
    numeric_at = (dom.file or "<domain>", checker.features.get("numeric"))
    if prob is not None:
        psink = DiagnosticSink(prob.source or "", prob.file or "<problem>")
        checker.check_problem(prob, psink)
        report.diagnostics.extend(checker.summarized(psink.items))
        features |= set(checker.features)
        if numeric_at[1] is None:
            numeric_at = (prob.file or "<problem>", checker.features.get("numeric"))
    report.features = frozenset(features)
    report.diagnostics = _temporal_once(report.diagnostics)
    if checker.fast_downward and "numeric" in features and not any(
            d.code == "unsupported-requirement" for d in report.diagnostics):
        # numbers used without :numeric-fluents declared: Fast Downward still cannot plan
        # them, so the verdict for it is the same as when the requirement is declared
        line, column = numeric_at[1] or (0, 0)
        report.diagnostics.append(Diagnostic(
            "unsupported-requirement", Severity.ERROR, "the files use numeric fluents, which "
            "Fast Downward does not plan: it handles numbers only as action costs",
            file=numeric_at[0], line=line, column=column,
            hint=f"if the numbers are costs, use only (increase (total-cost) ...); otherwise "
                 f"{FD_NUMERIC_HINT}"))
    return _capped(report)


def _temporal_once(items: list) -> list:
    """A temporal domain said once: the first ``temporal-unsupported`` diagnostic (a durative
    action, else the requirement), without the goals its dropped actions would have added
    reported as unreachable."""
    temporal = [d for d in items if d.code == "temporal-unsupported"]
    if not temporal:
        return items
    first = next((d for d in temporal if "durative action" in d.message), temporal[0])
    more = len(temporal) - 1
    if more:
        first = dataclasses.replace(first, message=first.message + f" ({more} more temporal "
                                    f"item{'s' if more > 1 else ''} in the file)")
    kept = [d for d in items if d.code not in ("temporal-unsupported", "unreachable-goal")]
    return [first, *kept]


#: the most diagnostics one report lists; past them a count (the first are the causes, the
#: rest mostly their echoes, and a person or an LLM reads the head)
MAX_DIAGNOSTICS = 40


def _capped(report: CheckReport) -> CheckReport:
    items = report.diagnostics
    if len(items) <= MAX_DIAGNOSTICS:
        return report
    shown = items[:MAX_DIAGNOSTICS]
    rest = items[MAX_DIAGNOSTICS:]
    errors = sum(d.is_error for d in rest)
    shown.append(Diagnostic(
        "too-many-diagnostics", Severity.ERROR if errors else Severity.WARNING,
        f"and {len(rest)} more diagnostics ({errors} errors) not listed", file=shown[-1].file,
        hint="fix the first ones: most of the rest usually follow from them"))
    report.diagnostics = shown
    report.omitted, report.omitted_errors = len(rest), errors
    return report
