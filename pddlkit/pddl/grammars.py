"""Grammars of PDDL files derived from what is known, for constrained generation.

A model decoding under :func:`problem_grammar` cannot write a problem file that does not
parse, that names a predicate or function the domain does not declare, that gives a
predicate the wrong number of arguments, or (when the front end knows the entities) that
names an object it has never seen; nor can it ramble, since every list is bounded
(:class:`Limits`). :func:`domain_grammar` does the same for domain files: the PDDL structure
of a domain, and, when the front end fixes the actions (as PDDLego+ does, from the
environment's commands), exactly those action names and parameter lists.

Choices, where the issue was silent:

- The grammars are written in pddlkit's Lark subset (:mod:`pddlkit.llm.grammar`), so Lark
  checks them here and :mod:`pddlkit.llm.gbnf` converts them for llama.cpp's server.
- Generation grammars are lower case and allow no comments (a comment is free text, where a
  model can ramble); ``any_case=True, comments=True`` gives the grammar of PDDL as files are
  written, which the tests hold against the whole IPC corpus.
- Arguments are checked by count, not by type: typing mistakes are left to ``pddlkit check``
  (a grammar by type would multiply the rules by the number of type combinations).
- ``limits=None`` drops the bounds (for reading existing files of any length).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ..llm.grammar import Grammar
from ..llm.lark_subset import choice as _choice
from ..llm.lark_subset import literal as _lit
from .model import Domain

_NAME = r"[a-zA-Z][a-zA-Z0-9_\-]"
_NAME_ANY = r"[a-zA-Z0-9_][a-zA-Z0-9_\-]"


@dataclass(frozen=True)
class Limits:
    """How much a constrained answer may hold: a model under a grammar with no bounds can
    list ``room1 ... room59`` until its token limit (seen with Qwen2.5-Coder 1.5B)."""

    objects: int = 60          # names in (:objects ...)
    facts: int = 150           # facts in (:init ...)
    parts: int = 30            # parts of one (and ...) / (or ...), effects of one action
    name_length: int = 30      # characters of a name written freely (not from a known list)
    blank: int = 24            # blanks (spaces, line breaks) between two tokens
    actions: int = 12          # actions in a domain written freely
    predicates: int = 40       # predicates, types or constants declared in a domain


def _rep(item: str, limit: Optional[int], at_least: int = 0) -> str:
    if limit is None:
        return f"{item}*" if at_least == 0 else f"{item}+"
    return f"{item} ~ {at_least}..{max(limit, at_least)}"


def _name_regex(limits: Optional[Limits], any_case: bool) -> str:
    first = r"[a-zA-Z0-9_]" if any_case else r"[a-zA-Z]"
    rest = r"[a-zA-Z0-9_\-]"
    if limits is None:
        return f"/{first}{rest}*/"
    return f"/{first}{rest}{{0,{limits.name_length - 1}}}/"


def _common(lines: list[str], limits: Optional[Limits], any_case: bool,
            comments: bool, json_string: bool = False) -> None:
    lines.append(f"NAME: {_name_regex(limits, any_case)}")
    variable = r"/\?[a-zA-Z0-9_\-]" + ("*/" if limits is None else
                                      f"{{1,{limits.name_length}}}/")
    lines.append(f"VARIABLE: {variable}")
    lines.append(r"NUMBER: /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/")
    # inside a JSON string a line break is the two characters \n, and a raw one is invalid
    lines.append(r"WS: /( |\\n)+/" if json_string else r"WS: /[ \t\r\n]+/")
    lines.append("%ignore WS")
    if comments:
        lines.append(r"COMMENT: /;[^\n]*/")
        lines.append("%ignore COMMENT")


def _goal_rules(lines: list[str], limits: Optional[Limits], any_case: bool,
                atom: Optional[str], numeric: bool, equality: bool) -> None:
    """``gd``: a goal description over ``atom`` (None: a domain with functions only), with the
    connectives PDDL has."""
    L = lambda t: _lit(t, any_case)  # noqa: E731
    parts = _rep("gd", limits.parts if limits else None)
    options = [*([atom] if atom else []),
               f'"(" {L("and")} {parts} ")"',
               f'"(" {L("or")} {parts} ")"',
               f'"(" {L("not")} gd ")"',
               f'"(" {L("imply")} gd gd ")"',
               f'"(" {L("exists")} "(" typed_variables ")" gd ")"',
               f'"(" {L("forall")} "(" typed_variables ")" gd ")"']
    if equality:
        options.append('"(" "=" term term ")"')
    if numeric:
        options.append('"(" comparison f_exp f_exp ")"')
        lines.append('comparison: "<=" | ">=" | "<" | ">" | "="')
    lines.append("gd: " + "\n  | ".join(options))
    variables = _rep("VARIABLE", limits.parts if limits else None, 1)
    lines.append(f'typed_variables: ({variables} "-" type)* VARIABLE*')


def _numeric_rules(lines: list[str], any_case: bool, function_term: str) -> None:
    lines.append(f'f_exp: NUMBER | {function_term} | "(" f_op f_exp f_exp ")" '
                 f'| "(" "-" f_exp ")" | {_lit("total-time", any_case)}')
    lines.append('f_op: "+" | "-" | "*" | "/"')


def problem_grammar(domain: Optional[Domain], *, objects: Optional[Sequence[str]] = None,
                    limits: Optional[Limits] = Limits(), any_case: bool = False,
                    comments: bool = False, json_string: bool = False,
                    name: str = "problem file") -> Grammar:
    """The problem files of ``domain``: facts and goals only over its predicates (with the
    right number of arguments) and functions, terms only over ``objects`` (when given) and
    the domain's constants, every list bounded by ``limits``. With no domain (one being
    written in the same answer), facts name any predicate, the structure and bounds stay.
    ``json_string``: the file as the inside of a JSON string (line breaks written ``\\n``)."""
    if domain is None:
        domain = _ANY_DOMAIN
    L = lambda t: _lit(t, any_case)  # noqa: E731
    lines: list[str] = []
    lines.append(f'start: "(" {L("define")} "(" {L("problem")} NAME ")" '
                 f'"(" {L(":domain")} domain_name ")" requirements? objects? init goal '
                 + ("metric? " if domain.functions else "") + '")"')
    lines.append("domain_name: NAME" if any_case or domain is _ANY_DOMAIN
                 else f"domain_name: {_lit(domain.name, False)}")
    lines.append(f'requirements: "(" {L(":requirements")} REQUIREMENT* ")"')
    lines.append(r"REQUIREMENT: /:[a-zA-Z\-]+/")
    constants = [c.name for c in domain.constants]
    if objects is not None:
        known = set(objects) | set(constants)
        if not known:
            raise ValueError("problem_grammar: objects=[] and no constants leaves no name")
        lines.append(f"OBJECT: {_choice(known, any_case)}")
        lines.append("obj: OBJECT")
    else:
        lines.append("obj: NAME")
    lines.append("term_name: obj")
    object_limit = limits.objects if limits else None
    lines.append(f'objects: "(" {L(":objects")} (object_list "-" type)* object_list? ")"')
    lines.append(f"object_list: {_rep('obj', object_limit, 1)}")
    types = sorted({t.name for t in domain.types} | {"object"})
    if domain is _ANY_DOMAIN:
        lines.append(f'type: NAME | "(" {L("either")} NAME+ ")"')
    elif domain.types or ":typing" in domain.requirements:
        lines.append(f'type: type_name | "(" {L("either")} type_name+ ")"')
        lines.append("type_name: NAME" if any_case else f"type_name: {_choice(types, False)}")
    else:
        lines.append("type: NAME" if any_case else f'type: {L("object")}')
    facts = []
    atoms = []
    arguments = limits.parts if limits else None
    if domain is _ANY_DOMAIN:
        facts.append(f'"(" NAME {_rep("term_name", arguments)} ")"')
        atoms.append(f'"(" NAME {_rep("term", arguments)} ")"')
    for i, p in enumerate(domain.predicates):
        arity = len(p.parameters)
        facts.append(f'"(" {L(p.name)}' + " term_name" * arity + ' ")"')
        atoms.append(f'"(" {L(p.name)}' + " term" * arity + ' ")"')
    numeric = bool(domain.functions)
    if not facts and not numeric:
        raise ValueError(f"domain {domain.name} declares no predicates and no functions: "
                         "nothing can be written in :init")
    if facts:   # a domain of functions only has numbers, no facts
        lines.append("fact: " + "\n  | ".join(facts))
        lines.append("atom: " + "\n  | ".join(atoms))
    lines.append("term: term_name | VARIABLE")
    init_items = ["fact", f'"(" {L("not")} fact ")"'] if facts else []
    if numeric:
        grounds, terms = [], []
        for f in domain.functions:
            grounds.append(f'"(" {L(f.name)}' + " term_name" * len(f.parameters) + ' ")"')
            terms.append(f'"(" {L(f.name)}' + " term" * len(f.parameters) + ' ")"')
        lines.append("f_ground: " + " | ".join(grounds))
        lines.append("f_term: " + " | ".join(terms))
        init_items.append('"(" "=" f_ground NUMBER ")"')
        _numeric_rules(lines, any_case, "f_term")
        lines.append(f'metric: "(" {L(":metric")} ({L("minimize")} | {L("maximize")}) f_exp ")"')
    lines.append("init_item: " + " | ".join(init_items))
    lines.append(f'init: "(" {L(":init")} {_rep("init_item", limits.facts if limits else None)} ")"')
    lines.append(f'goal: "(" {L(":goal")} gd ")"')
    equality = ":equality" in domain.requirements or ":adl" in domain.requirements \
        or any_case
    _goal_rules(lines, limits, any_case, "atom" if facts else None, numeric, equality)
    _common(lines, limits, any_case, comments, json_string)
    return Grammar("\n".join(lines) + "\n", name, limits.blank if limits else None)


#: the stand-in for "a domain being written in the same answer": no predicate is known
_ANY_DOMAIN = Domain("any", requirements=(":typing", ":equality"))


@dataclass(frozen=True)
class ActionSignature:
    """An action the domain must define, as a front end fixes it: its name and parameters
    (``("?from", "room")``, the type may be "" for untyped)."""

    name: str
    parameters: tuple[tuple[str, str], ...] = ()


def domain_grammar(*, actions: Optional[Sequence[ActionSignature]] = None,
                   limits: Optional[Limits] = Limits(), any_case: bool = False,
                   comments: bool = False, json_string: bool = False,
                   derived: Optional[bool] = None, name: str = "domain file") -> Grammar:
    """Domain files: PDDL's sections and formulas over names the domain itself declares.
    With ``actions``, exactly those actions, each once, in the given order, with those
    parameters. ``derived`` allows ``(:derived ...)`` (default: only when reading files of
    any case, ``any_case=True``; a small model under the generation grammar otherwise spends
    it on invented syntax such as ``(:derived (d ?r) (if ?r then ?d else nil))``)."""
    derived = any_case if derived is None else derived
    L = lambda t: _lit(t, any_case)  # noqa: E731
    lines: list[str] = []
    lines.append(f'start: "(" {L("define")} "(" {L("domain")} NAME ")" requirements? '
                 "types? constants? predicates? functions? constraints? structures "
                 '")"')
    decl = limits.predicates if limits else None
    lines.append(f'requirements: "(" {L(":requirements")} REQUIREMENT* ")"')
    lines.append(r"REQUIREMENT: /:[a-zA-Z\-]+/")
    lines.append(f'types: "(" {L(":types")} (name_list "-" type)* name_list? ")"')
    lines.append(f'constants: "(" {L(":constants")} (name_list "-" type)* name_list? ")"')
    lines.append(f"name_list: {_rep('NAME', decl, 1)}")
    lines.append(f'type: NAME | "(" {L("either")} NAME+ ")"')
    lines.append(f'predicates: "(" {L(":predicates")} {_rep("skeleton", decl, 1)} ")"')
    lines.append('skeleton: "(" NAME typed_variables ")"')
    lines.append(f'functions: "(" {L(":functions")} (function_list ("-" type)?)* ")"')
    lines.append(f"function_list: {_rep('skeleton', decl, 1)}")
    lines.append(f'constraints: "(" {L(":constraints")} gd ")"')
    parts = limits.parts if limits else None
    if actions:
        rules = []
        for i, a in enumerate(actions):
            params = " ".join(
                f'{_lit(v, any_case)}' + (f' "-" {_lit(t, any_case)}' if t else "")
                for v, t in a.parameters)
            rules.append(f"action_{i}")
            lines.append(f'action_{i}: "(" {L(":action")} {_lit(a.name, any_case)} '
                         f'{L(":parameters")} "(" {params} ")" action_body ")"')
        lines.append("structures: " + " ".join(rules) + (" derived*" if derived else ""))
    else:
        action_limit = limits.actions if limits else None
        lines.append(f"structures: {_rep('structure', action_limit, 1)}")
        lines.append("structure: action" + (" | derived" if derived else ""))
        lines.append(f'action: "(" {L(":action")} NAME {L(":parameters")} "(" '
                     f'typed_variables ")" action_body ")"')
    lines.append(f'action_body: ({L(":precondition")} precondition)? '
                 f'({L(":effect")} effect)?')
    lines.append('precondition: gd | "(" ")"')
    if derived:
        lines.append(f'derived: "(" {L(":derived")} skeleton gd ")"')
    lines.append(f'effect: "(" {L("and")} {_rep("c_effect", parts)} ")" | c_effect')
    lines.append(f'c_effect: "(" {L("forall")} "(" typed_variables ")" effect ")"'
                 f'\n  | "(" {L("when")} gd effect ")"'
                 f'\n  | p_effect')
    assign = _choice(("assign", "increase", "decrease", "scale-up", "scale-down"), any_case)
    lines.append(f'p_effect: "(" {L("not")} atom ")" | atom | "(" assign_op f_term f_exp ")"')
    lines.append(f"assign_op: {assign}")
    lines.append('atom: "(" NAME term* ")" | "(" "=" term term ")"')
    lines.append("term: NAME | VARIABLE")
    lines.append('f_term: "(" NAME term* ")" | NAME')
    _numeric_rules(lines, any_case, "f_term")
    # atoms are any declared-looking name here (the domain declares them as it goes), so the
    # goal description uses `atom`, which includes equality
    _goal_rules(lines, limits, any_case, "atom", True, False)
    _common(lines, limits, any_case, comments, json_string)
    return Grammar("\n".join(lines) + "\n", name, limits.blank if limits else None)


def answer_grammar(*, actions: Optional[Sequence[ActionSignature]] = None,
                   domain: Optional[Domain] = None, objects: Optional[Sequence[str]] = None,
                   limits: Optional[Limits] = Limits()) -> Grammar:
    """PDDLego+'s answer, ``{"df": "...", "pf": "..."}``, with both files inside their JSON
    strings: the domain under :func:`domain_grammar` (``actions`` fixed when given), the
    problem under :func:`problem_grammar` (over ``domain`` when the domain is fixed, else
    any predicate)."""
    from ..llm.grammar import join_grammars

    df = domain_grammar(actions=actions, limits=limits, json_string=True)
    pf = problem_grammar(domain, objects=objects, limits=limits, json_string=True)
    start = '"{\\"df\\": \\"" df "\\", \\"pf\\": \\"" pf "\\"}"'
    text = join_grammars(start, {"df": df.lark, "pf": pf.lark},
                         shared=("NAME", "VARIABLE", "NUMBER", "WS", "REQUIREMENT"))
    return Grammar(text, "domain and problem files", limits.blank if limits else None)


def problem_answer_grammar(domain: Domain, *, objects: Optional[Sequence[str]] = None,
                           limits: Optional[Limits] = Limits()) -> Grammar:
    """``{"pf": "..."}``: the problem file alone, over a fixed ``domain`` (its predicates and
    arities), inside its JSON string."""
    from ..llm.grammar import join_grammars

    pf = problem_grammar(domain, objects=objects, limits=limits, json_string=True)
    start = '"{\\"pf\\": \\"" pf "\\"}"'
    text = join_grammars(start, {"pf": pf.lark},
                         shared=("NAME", "VARIABLE", "NUMBER", "WS", "REQUIREMENT"))
    return Grammar(text, "problem file", limits.blank if limits else None)


def parse_signatures(text: str) -> list[ActionSignature]:
    """Action signatures from the text PDDLego+'s prompts show (``1. :action move (command:
    ...)`` then ``:parameters (?from - room ?to - room)``); [] when the text has none."""
    found = []
    for m in re.finditer(r":action\s+(\S+)[^\n]*\n\s*:parameters\s*\(([^)]*)\)", text):
        params = read_parameters(m.group(2))
        if params is not None:
            found.append(ActionSignature(m.group(1), params))
    return found


def read_parameters(text: str) -> Optional[tuple[tuple[str, str], ...]]:
    """A parameter list's text (``?from ?to - room ?d``) as (variable, type) pairs, the
    type "" where none is given; None when a name is not a ``?variable`` (an ``(either
    ...)`` type among them, which no grammar here takes)."""
    words = text.split()
    params: list[tuple[str, str]] = []
    pending: list[str] = []
    i = 0
    while i < len(words):
        if words[i] == "-" and i + 1 < len(words):
            params += [(v, words[i + 1]) for v in pending]
            pending = []
            i += 2
            continue
        pending.append(words[i])
        i += 1
    params += [(v, "") for v in pending]
    return tuple(params) if all(v.startswith("?") for v, _ in params) else None


# --- parts of files, for modular generation (one small part per call) -------------------------
#
# A small model that writes a whole domain and problem in one answer makes a mistake somewhere
# in 500 tokens; asked for one part at a time, each under a grammar derived from what is
# already fixed, it can only make the mistakes that part allows. These grammars are the parts'
# (the code that assembles the files from them is the front end's): the predicates of a
# domain, the precondition and effect of one action over its own parameters, facts, a goal.


def _literal_rules(lines: list[str], predicates: "dict[str, int]", terms: Sequence[str],
                   what: str) -> None:
    """``atom`` and ``literal`` over ``predicates`` (name -> arity) with ``terms`` as the only
    arguments; a predicate whose arity needs terms when there are none is left out."""
    atoms = []
    for name, arity in sorted(predicates.items()):
        if arity and not terms:
            continue
        atoms.append(f'"(" {_lit(name)}' + " term" * arity + ' ")"')
    if not atoms:
        raise ValueError(f"no {what} can be written: no predicate fits the names given")
    lines.append("atom: " + "\n  | ".join(atoms))
    lines.append('literal: atom | "(" "not" atom ")"')
    if terms:
        lines.append(f"term: {_choice(terms)}")


def _typed_literal_rules(lines: list[str], predicates: "dict[str, Sequence[Optional[str]]]",
                         names: "dict[str, Optional[str]]", what: str) -> None:
    """``atom`` and ``literal`` over ``predicates`` (name -> parameter types) where each
    argument is one of ``names`` (name -> type) of its position's type (an untyped position
    or name fits any); a predicate with a position no name fits is left out."""
    atoms, rules = [], {}
    for name, types in sorted(predicates.items()):
        fits = argument_fits(types, names)
        if any(not f for f in fits):
            continue
        slots = []
        for kind, fit in zip(types, fits):
            rule = rules.setdefault(tuple(fit), f"term_{len(rules)}")
            slots.append(rule)
        atoms.append(f'"(" {_lit(name)} ' + " ".join(slots) + ' ")"' if slots
                     else f'"(" {_lit(name)} ")"')
    if not atoms:
        raise ValueError(f"no {what} can be written: no predicate fits the names given")
    lines.append("atom: " + "\n  | ".join(atoms))
    lines.append('literal: atom | "(" "not" atom ")"')
    for fit, rule in rules.items():
        lines.append(f"{rule}: {_choice(fit)}")


def _blank_only(lines: list[str]) -> None:
    lines.append(r"WS: /[ \t\r\n]+/")
    lines.append("%ignore WS")


def predicates_grammar(types: Sequence[str], *, limits: Limits = Limits(),
                       at_least: int = 1) -> Grammar:
    """Predicate declarations, one after another: ``(at ?r - room) (open ?d - door)``, each
    parameter typed with one of ``types`` (the types the actions' parameters use), at least
    ``at_least`` of them."""
    lines = [f"start: {_rep('skeleton', limits.predicates, at_least)}",
             f'skeleton: "(" NAME {_rep("parameter", 4)} ")"']
    _declaration_rules(lines, types, limits)
    return Grammar("\n".join(lines) + "\n", "predicates", limits.blank)


def _declaration_rules(lines: list[str], types: Sequence[str], limits: Limits) -> None:
    """A declaration's parameter (``?r - room``, typed with one of ``types``), its name and
    variable tokens, and blanks between tokens: the rules every predicates grammar shares."""
    lines += ['parameter: VARIABLE "-" type',
              f"type: {_choice(types or ['object'])}",
              f"NAME: {_name_regex(limits, False)}",
              r"VARIABLE: /\?[a-z][a-z0-9_\-]{0,15}/"]
    _blank_only(lines)


def predicate_slots_grammar(types: Sequence[str], slots: Sequence[tuple[str, int]], *,
                            limits: Limits = Limits(), per_slot: int = 2,
                            slot_types: Optional[dict[str, Sequence[str]]] = None,
                            most: Optional[dict[str, int]] = None) -> Grammar:
    """Predicate declarations under labels, one line per aspect of a state
    (``where the player is: (at ?r - room)``): ``slots`` are (label, the fewest arguments a
    predicate of that aspect has: a place of a thing relates two), each slot one to
    ``per_slot`` declarations typed as in :func:`predicates_grammar`, or ``none``. The
    labels are written by code and the model writes each predicate's name, arguments and
    types: a small model names its predicates after the actions when asked for all at once
    (measured with Qwen2.5-Coder 1.5B: ``(open-door ...)``, ``(take ?i ?r)``, never a
    connection), and a label to finish conditions each answer on the aspect it is for; with
    no least number of arguments it wrote ``(none)`` and ``(thing ?o - obj)`` for where a
    thing is. ``slot_types``: label -> the only types that slot's parameters may have (an
    aspect whose things are of one kind: where the player is, a place). ``most``: label ->
    the most arguments that slot's predicates have (four, or its fewest, otherwise)."""
    from pddlkit.llm.lark_subset import literal

    if not slots:
        raise ValueError("no slot to fill: name at least one aspect")
    own = {label: list(kinds) for label, kinds in (slot_types or {}).items() if kinds}
    top = {label: (most or {}).get(label, max(4, n)) for label, n in slots}
    low = [label for label, n in slots if top[label] < n]
    if low:
        raise ValueError(f"most arguments under the fewest for {', '.join(low)}")
    rule = {label: f"own{i}" if label in own else f"slot{n}_{top[label]}"
            for i, (label, n) in enumerate(slots)}
    lines = ["start: " + " ".join(f"{literal(label + ':')} {rule[label]}"
                                  for label, _n in slots)]
    for n, m in sorted({(n, top[label]) for label, n in slots if label not in own}):
        lines += [f'slot{n}_{m}: {_rep(f"skeleton{n}_{m}", per_slot, 1)} | "none"',
                  f'skeleton{n}_{m}: "(" NAME {_rep("parameter", m, n)} ")"']
    for label, n in slots:
        if label in own:
            name = rule[label]
            lines += [f'{name}: {_rep(f"{name}_skeleton", per_slot, 1)} | "none"',
                      f'{name}_skeleton: "(" NAME {_rep(f"{name}_parameter", top[label], n)} ")"',
                      f'{name}_parameter: VARIABLE "-" {name}_type',
                      f"{name}_type: {_choice(own[label])}"]
    _declaration_rules(lines, types, limits)
    return Grammar("\n".join(lines) + "\n", "predicates, one slot per aspect", limits.blank)


def action_body_grammar(predicates: "dict[str, Any]", parameters: Sequence[Any], *,
                        limits: Limits = Limits()) -> Grammar:
    """``:precondition ... :effect ...`` of one action: literals over ``predicates`` whose
    arguments are the action's own ``parameters``; the precondition a conjunction whose parts
    may be disjunctions, the effect one or more literals (never empty: an action without
    effect is a mistake a small model makes). ``predicates`` maps a name to its arity, or to
    the list of its parameters' types; with types, and ``parameters`` as (variable, type)
    pairs, each argument is a parameter of its position's type (measured: untyped, a 1.5B
    model wrote ``(take ?to ?from)`` for ``take ?i - item ?r - room``)."""
    lines = ['start: ":precondition" condition ":effect" effect',
             f'condition: "(" "and" {_rep("condition_part", limits.parts, 1)} ")" '
             '| condition_part',
             f'condition_part: literal | "(" "or" {_rep("literal", limits.parts, 2)} ")"',
             f'effect: "(" "and" {_rep("literal", limits.parts, 1)} ")" | literal']
    typed = all(isinstance(v, (list, tuple)) for v in predicates.values()) and \
        all(isinstance(p, (list, tuple)) for p in parameters)
    if typed:
        _typed_literal_rules(lines, predicates, {v: t for v, t in parameters},
                             "precondition or effect")
        _blank_only(lines)
        return Grammar("\n".join(lines) + "\n", "action body", limits.blank)
    parameters = [p[0] if isinstance(p, (list, tuple)) else p for p in parameters]
    predicates = {n: (len(v) if isinstance(v, (list, tuple)) else v)
                  for n, v in predicates.items()}
    _literal_rules(lines, predicates, list(parameters), "precondition or effect")
    _blank_only(lines)
    return Grammar("\n".join(lines) + "\n", "action body", limits.blank)


def argument_fits(types: Sequence[Optional[str]], names: "dict[str, Optional[str]]"
                   ) -> list[list[str]]:
    """For each position of a predicate typed ``types``, the ``names`` (name -> type) that
    fit it (an untyped position or name fits any)."""
    return [[n for n, t in names.items() if kind is None or t is None or t == kind]
            for kind in types]


def action_slots_grammar(predicates: "dict[str, Sequence[Optional[str]]]",
                         parameters: Sequence[tuple[str, Optional[str]]], *,
                         per_slot: int = 3,
                         not_before: "Optional[dict[str, set[str]]]" = None,
                         not_after: "Optional[dict[str, set[str]]]" = None,
                         must_change: Sequence[str] = (),
                         positive_before: Sequence[str] = (),
                         must_keep: "Optional[dict[str, set[str]]]" = None,
                         must_add: Sequence[str] = (),
                         must_list: "Optional[dict[str, set[str]]]" = None,
                         must_drop: "Optional[dict[str, set[str]]]" = None,
                         must_stay: Sequence[str] = (),
                         must_require: "Optional[dict[str, set[str]]]" = None,
                         some_change: bool = True) -> Grammar:
    """An action's schema as one labelled line per predicate (``at: before (at ?from) after
    (at ?to)``): after ``before``, the literals over that predicate the command needs (or
    ``none``); after ``after``, the atoms over it that hold once the command worked, ``same``
    when the command leaves them as they were, or ``none`` when none does. ``predicates``
    maps a name to its parameters' types, in the order the lines come; each argument is one
    of the action's ``parameters`` ((variable, type) pairs) of its position's type, and a
    predicate no parameters fit has no line. The labels are the grammar's, so every
    predicate is considered (measured with Qwen2.5-Coder 1.5B writing whole bodies: a move
    whose effect changed the connection and never where the player is); code turns the lines
    into a precondition and an effect (``formalizers/helps/schema_slots.py``).

    A rewrite can rule out what the evidence refuted: ``not_before`` (name -> literals, over
    the parameters, a line may not require) and ``not_after`` (name -> atoms it may not
    list after), ``must_change`` (names whose line may not say ``same``) and ``must_keep``
    (name -> atoms its line must keep: ``same``, or those atoms first after). A name in
    ``positive_before`` is required only as true, never as false (the player's place: a
    command is done where the player is). A name in ``must_add`` whose line requires an atom
    false lists atoms after it, never ``same`` or ``none`` (which would keep it false: the
    line would change nothing). ``must_list`` (name -> atoms) is what a command was seen to
    make true that only those atoms over the parameters say: the line lists them first
    after, never ``same`` or ``none`` (an atom also in ``not_after`` is not forced).
    ``must_drop`` (name -> atoms) is what a command was seen to make false that only those
    atoms say: the line requires them first before and never lists them after, nor says
    ``same`` (an atom also in ``not_before`` is not forced). A name in ``must_stay`` (a
    predicate no command changes: how places connect) says ``same`` after, whatever the
    evidence (measured with Qwen2.5-Coder 1.5B on the household at 1734ac0: its gotolocation
    required ``(not (connects ?from ?to))`` and added it). ``must_require`` (name -> literals)
    is what a refused command lacked, as the model chose it (a precondition too weak): the
    line requires those literals first before (a literal also in ``not_before``, or an atom
    ``must_drop`` requires, is not forced).

    ``some_change`` (the default): at least one line changes something (:func:`_changing_line`:
    it lists atoms after that it did not require, or leaves out after a true atom it
    required): a command that works changes something, and a schema of lines that all say ``same`` is refused as it is read
    (``formalizers/helps/schema_slots.py``). Why in the grammar: measured with Qwen2.5-Coder
    1.5B on the household (learn-domain, dev seed 0, records of 2026-12-05 and 06), 25-45%
    of every run's schema draws were refused for an empty effect (21 of 46 at 759d03f), and
    a rewrite's three draws were spent on them: pickupobject, refuted at step 2, was drawn
    three times, twice all ``same``, and kept refuted for the episode; openobject's rewrite
    four times ``closed: before (closed ?r) after (closed ?r)``."""
    from itertools import product

    names = dict(parameters)
    starts, lines, terms = [], [], {}
    changes: dict[int, str] = {}    # position among the lines -> its line that changes
    settled = False                 # some line always changes (a command seen to)
    for i, (name, types) in enumerate(predicates.items()):
        fits = argument_fits(types, names)
        if any(not f for f in fits):
            continue
        starts.append(f'{_lit(name + ":")} "before" before_{i} "after" after_{i}')
        # an atom the line must list after (made true) is not also required before
        no_before = (not_before or {}).get(name, set()) | (
            (must_list or {}).get(name, set()) - (not_after or {}).get(name, set()))
        dropped = sorted((must_drop or {}).get(name, set()) - no_before)
        no_after = (not_after or {}).get(name, set()) | set(dropped)
        if no_before or no_after:   # the atoms one by one, less those ruled out
            atoms = ["(" + " ".join((name, *args)) + ")" for args in product(*fits)]
            negated = [] if name in positive_before else [f"(not {a})" for a in atoms]
            literals = [x for x in atoms + negated if x not in no_before]
            listed = [a for a in atoms if a not in no_after]
            lines += [f"literal_{i}: " + " | ".join(_tokens(x) for x in literals)] \
                if literals else []
            lines += [f"atom_{i}: " + " | ".join(_tokens(a) for a in listed)] if listed else []
        else:
            literals = listed = [True]
            slots = [terms.setdefault(tuple(f), f"term_{len(terms)}") for f in fits]
            lines += [f'atom_{i}: "(" {_lit(name)}' + "".join(f" {s}" for s in slots) + ' ")"',
                      f"literal_{i}: atom_{i}" if name in positive_before
                      else f'literal_{i}: atom_{i} | "(" "not" atom_{i} ")"']
        same = '' if name in must_change or dropped else '"same" | '
        kept = sorted((must_keep or {}).get(name, set()) - set(dropped))
        made = (must_list or {}).get(name, set()) - no_after
        after = f'{same}"none"' + (f' | {_rep(f"atom_{i}", per_slot, 1)}' if listed else "")
        if made:   # the atoms the command made true listed first (then others); no same
            first = sorted(made | set(kept))
            more = max(per_slot - len(first), 0)
            after = " ".join(_tokens(a) for a in first) + \
                (f' {_rep(f"atom_{i}", more)}' if listed and more else "")
        elif kept:   # same, or the kept atoms listed first (then others)
            more = max(per_slot - len(kept), 0)
            after = ('"same" | ' if not dropped else "") + " ".join(_tokens(a) for a in kept) + \
                (f' {_rep(f"atom_{i}", more)}' if listed and more else "")
        before = '"none"' + (f' | {_rep(f"literal_{i}", per_slot, 1)}' if literals else "")
        required = sorted((must_require or {}).get(name, set()) - no_before - set(dropped))
        if dropped or required:   # the atoms the command made false (the literals a
            first = dropped + required   # refused one lacked) required first, then others
            more = max(per_slot - len(first), 0)
            before = " ".join(_tokens(a) for a in first) + \
                (f' {_rep(f"literal_{i}", more)}' if literals and more else "")
        if name in must_stay:
            after = '"same"'
        lines += [f'before_{i}: {before}', f'after_{i}: {after}']
        if made or (dropped and name not in must_stay):
            settled = True          # this line always changes something
        elif name not in must_stay and not kept and not required:
            every = ["(" + " ".join((name, *args)) + ")" for args in product(*fits)]
            allowed = [x for x in every + ([] if name in positive_before else
                                           [f"(not {a})" for a in every])
                       if x not in no_before]
            changes[len(starts) - 1] = _changing_line(
                lines, i, name, allowed, [a for a in every if a not in no_after], per_slot)
        if name in must_add and listed and literals and name not in positive_before \
                and name not in must_stay \
                and not made and not dropped:   # a line listing atoms after adds them
            _must_add_rules(lines, starts, i, name, literals if (no_before or no_after)
                            else None, per_slot)
    if not starts:
        raise ValueError("no precondition or effect can be written: no predicate fits the "
                         "action's parameters")
    if some_change and not settled and changes:
        _some_line_changes(lines, starts, changes)
    lines = ["start: " + " ".join(starts)] + lines
    lines += [f"{rule}: {_choice(fit)}" for fit, rule in terms.items()]
    _blank_only(lines)
    return Grammar("\n".join(lines) + "\n", "action schema, a line per predicate",
                   Limits().blank)


def _changing_line(lines: list[str], i: int, name: str, literals: list[str],
                   listed: list[str], per_slot: int) -> str:
    """Line ``i`` of :func:`action_slots_grammar` written so that it changes something, from
    the ``literals`` it may require and the atoms it may list after: no true atom required
    and atoms listed after (added); or, a first true atom ``P`` required, then after
    ``none`` or atoms other than ``P`` (``P`` deleted), or ``P`` and others (they are
    added). ``before (closed ?r) after (closed ?r)`` is no such line (measured: Qwen's openobject rewrite at 759d03f, four draws of it). Helper
    rules go to ``lines``; "" when the line cannot change anything."""
    label, k = _lit(name + ":"), per_slot
    negated = [x for x in literals if x.startswith("(not ")]
    positive = [x for x in literals if not x.startswith("(not ")]
    if negated:
        lines.append(f"unmet_{i}: " + " | ".join(_tokens(x) for x in negated))
    unmet = f' | {_rep(f"unmet_{i}", k, 1)}' if negated else ""
    out = [f'{label} "before" ("none"{unmet}) "after" {_rep(f"listed_{i}", k, 1)}'] \
        if listed else []
    if listed:
        lines.append(f"listed_{i}: " + " | ".join(_tokens(a) for a in listed))
    lead = f' {_rep(f"unmet_{i}", k - 1)}' if negated and k > 1 else ""
    rest = f' {_rep(f"any_{i}", k - 1)}' if k > 1 else ""
    if positive and k > 1:
        lines.append(f"any_{i}: " + " | ".join(_tokens(x) for x in literals))
    for j, atom in enumerate(positive):
        others = [a for a in listed if a != atom]
        after = '"none"'
        if others:
            lines.append(f"other_{i}_{j}: " + " | ".join(_tokens(a) for a in others))
            after = f'("none" | {_rep(f"other_{i}_{j}", k, 1)} | {_tokens(atom)} ' \
                f'{_rep(f"other_{i}_{j}", max(k - 1, 1), 1)})'
        out.append(f'{label} "before"{lead} {_tokens(atom)}{rest} "after" {after}')
    return " | ".join(out)


def _some_line_changes(lines: list[str], starts: list[str], changes: dict[int, str]) -> None:
    """Rewrite ``starts`` (one element per line, in order) so that at least one line of
    ``changes`` (position -> the line written to change something) is that line: the lines
    before the first that changes are any, those after it any (``some_change`` of
    :func:`action_slots_grammar`; a chain of rules, linear in the lines)."""
    changes = {k: rule for k, rule in changes.items() if rule}
    if not changes:
        return
    last = max(changes)
    for k, start in enumerate(starts):
        lines.append(f"line_{k}: {start}")
    for k in range(last + 1):
        alts = [f"line_{k} chg_{k + 1}"] if k < last else []
        if k in changes:
            lines.append(f"changed_{k}: {changes[k]}")
            alts.insert(0, " ".join([f"changed_{k}"] + [f"line_{j}"
                                                        for j in range(k + 1, len(starts))]))
        lines.append(f"chg_{k}: " + " | ".join(alts))
    starts[:] = ["chg_0"]


def _must_add_rules(lines: list[str], starts: list[str], i: int, name: str,
                    literals: Optional[list[str]], per_slot: int) -> None:
    """``must_add`` for line ``i``: a ``before`` of true atoms only (or none) keeps any
    ``after``; one that requires an atom false lists atoms after (see
    :func:`action_slots_grammar`). ``literals``: those a line may require, one by one
    (None: any atom of the line's, or its negation)."""
    if literals is None:
        neg, pos = f'"(" "not" atom_{i} ")"', f"atom_{i}"
    else:
        negated = [x for x in literals if x.startswith("(not ")]
        positive = [x for x in literals if not x.startswith("(not ")]
        if not negated:
            return          # no atom may be required false: the line is as it was
        neg = " | ".join(_tokens(x) for x in negated)
        pos = f"pos_{i}" if positive else ""
        if positive:
            lines.append(f"pos_{i}: " + " | ".join(_tokens(x) for x in positive))
    label = _lit(name + ":")
    lines += [f"neg_{i}: {neg}",
              f'pos_before_{i}: "none"' + (f' | {_rep(pos, per_slot, 1)}' if pos else ""),
              f"neg_before_{i}: neg_{i} {_rep(f'literal_{i}', max(per_slot - 1, 0))}",
              f'must_add_{i}: {label} "before" pos_before_{i} "after" after_{i} '
              f'| {label} "before" neg_before_{i} "after" {_rep(f"atom_{i}", per_slot, 1)}']
    starts[-1] = f"must_add_{i}"


def _tokens(text: str) -> str:
    """``(not (at ?r))`` as the grammar's sequence of literal tokens."""
    return " ".join(_lit(t) for t in re.findall(r"\(|\)|[^\s()]+", text))


def facts_grammar(predicates: "dict[str, int]", objects: Sequence[str], *,
                  limits: Limits = Limits(), allow_none: bool = False) -> Grammar:
    """Ground facts, one or more: ``(at kitchen) (connected kitchen pantry south)``, over
    ``predicates`` (name -> arity) and ``objects`` only; with ``allow_none``, or the word
    ``none`` (a sentence may state no fact over these predicates)."""
    lines = [f"start: {_rep('atom', limits.facts, 1)}" + (' | "none"' if allow_none else "")]
    _literal_rules(lines, predicates, list(objects), "fact")
    _blank_only(lines)
    return Grammar("\n".join(lines) + "\n", "facts", limits.blank)


def goal_grammar(predicates: "dict[str, int]", objects: Sequence[str], *,
                 limits: Limits = Limits(), typed=None) -> Grammar:
    """``(:goal ...)``: a literal or a conjunction of literals over ``predicates`` and
    ``objects``; with ``typed`` = (predicate -> parameter types, type -> names), each
    argument a name of its position's type instead."""
    lines = ['start: "(" ":goal" goal ")"',
             f'goal: literal | "(" "and" {_rep("literal", limits.parts, 1)} ")"']
    if typed is not None:
        kinds, by_type = typed
        names = {}
        for kind, values in by_type.items():
            for value in values:
                names[value] = kind if names.get(value, kind) == kind else None
        _typed_literal_rules(lines, kinds, names, "goal")
        _blank_only(lines)
        return Grammar("\n".join(lines) + "\n", "goal", limits.blank)
    _literal_rules(lines, predicates, list(objects), "goal")
    _blank_only(lines)
    return Grammar("\n".join(lines) + "\n", "goal", limits.blank)


def labeled_facts_grammar(predicates: Sequence[tuple[str, Sequence[tuple[str, Optional[str]]]]],
                          names: "dict[Optional[str], Sequence[str]]", *,
                          mentioned: Optional[Sequence[str]] = None,
                          pinned: Optional[dict] = None,
                          limits: Limits = Limits()) -> Grammar:
    """Ground facts with every parameter named, ``(connected ?from=kitchen ?to=hall
    ?dir=east)``, one or more: ``predicates`` as (name, [(parameter, type)]), ``names`` the
    names each type may take (the key None for untyped parameters). Naming the parameter
    makes a small model put each argument where it belongs; the reader drops the labels.
    With ``mentioned`` (the names a sentence uses), every fact with arguments has at least
    one of them: a sentence states facts about what it names (measured: asked for the facts
    of "You see a coin.", a 1.5B model wrote where the player is). ``pinned``
    (predicate -> {argument index: name}) fixes those arguments of those predicates to the
    name given (where the agent is: ``{"connected": {0: "pantry"}}``)."""
    lines = [f"start: {_rep('fact', min(limits.facts, 8), 1)}"]
    rules, used = [], {}
    said = {kind: [n for n in values if mentioned is None or n in mentioned]
            for kind, values in names.items()}

    def rule_of(kind, only_said: bool) -> str:
        key = (kind, only_said)
        return used.setdefault(key, f"name_{len(used)}")

    pins = pinned or {}
    for name, params in predicates:
        fixed = pins.get(name, {})
        if any(not names.get(t) for j, (_v, t) in enumerate(params) if j not in fixed):
            continue

        def slot(j: int, v: str, t, only_said: bool) -> str:
            if j in fixed:
                return f"{_lit(v + '=')} {_lit(fixed[j])}"
            return f"{_lit(v + '=')} {rule_of(t, only_said)}"

        if not params or mentioned is None:
            slots = [slot(j, v, t, False) for j, (v, t) in enumerate(params)]
            rules.append(f'"(" {_lit(name)} ' + " ".join(slots) + ' ")"')
            continue
        for i, (_v, kind) in enumerate(params):   # argument i is one the sentence names
            if (fixed[i] not in mentioned) if i in fixed else not said.get(kind):
                continue
            slots = [slot(j, v, t, j == i) for j, (v, t) in enumerate(params)]
            rules.append(f'"(" {_lit(name)} ' + " ".join(slots) + ' ")"')
    if not rules:
        raise ValueError("no fact can be written: no predicate has names for its parameters")
    lines.append("fact: " + "\n  | ".join(rules))
    for (kind, only_said), rule in used.items():
        lines.append(f"{rule}: {_choice(said[kind] if only_said else names[kind])}")
    _blank_only(lines)
    return Grammar("\n".join(lines) + "\n", "facts (parameters named)", limits.blank)
