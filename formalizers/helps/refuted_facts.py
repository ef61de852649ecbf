"""Facts the world refuted, kept out of later problem files (issue 46, ``refuted_facts``).

Measured with Qwen2.5-Coder 1.5B: it asserts ``(in coin pantry)`` before any coin was seen,
the plan's ``take coin`` fails with "There is no coin here.", and the next four problem files
assert the same fact again. Code can do better than ask a fifth time. When a command fails,
an environment built on PDDL says in ``info["failed"]`` what its message means in the
domain's terms (:meth:`pddlkit.envs.pddl_world.PDDLWorldEnv._step`):

* ``{"literal": "(in coin pantry)", "holds": False}``: that fact is false in the world;
* ``{"pattern": "(connected corridor ?to east)", "holds": False}``: no values of its
  ``?``-variables make it true ("You can't move east: there is no exit in that direction."):
  every fact it matches is refuted;
* ``{"object": "coin"}``: the command named an object that is not there; the facts of the
  model's plan step that the action needed and that name it (``(in coin pantry)`` for
  ``(take coin pantry)``) are refuted.

A refuted fact is removed from every later problem file's ``:init`` (each removal recorded and
said in the error the model gets back: "(in coin pantry) is false in the world"), until new
evidence: a later command that ran, in a plan that did not fail (a failed plan's commands
are undone when the world is restored), and whose action, in the model's domain, adds that
very fact (``open-door`` adds a ``door-open`` refuted before, on either side of the door; a
conditional effect's condition is not checked: the release only lets the model assert the
fact again). With a formalizer that names things differently from the environment the
literal matches nothing and nothing is removed; a literal whose predicate the files' domain
does not have (name and arity) is not kept or said at all (:func:`_expressible`).
Off by default (the paper's loop); on in the ``small_model`` preset.

The refuted facts are kept as pddlkit's :class:`~pddlkit.pddl.model.Atom` (lower case; a
pattern's ``?``-variables are arguments that start with ``?``), compared as atoms
(:func:`matches`); their text is written only where a person or the model reads them (the
records, the error said back, the line of the file a removal names).
"""

from __future__ import annotations

import re
from typing import Optional

from pddlkit.pddl.model import And, Atom, iter_effect_literals
from pddlkit.pddl.reader import read_domain

from ..answer import Files, closing_bracket
from ..atoms import atom_of, fact_text


def _norm(fact: str) -> str:
    return "(" + " ".join(fact.replace("(", " ").replace(")", " ").split()).lower() + ")"


def fact_atom(text: str) -> Atom:
    """A literal as the world or a file says it, ``(In Coin Pantry)``, as the atom it is
    compared by: ``Atom("in", ("coin", "pantry"))``."""
    return atom_of(_norm(text))


def _ground(domain_text: str, step: str):
    """(action, binding) of a plan step ``(take coin pantry)`` in ``domain_text``; None when
    the domain cannot be read or has no such action."""
    domain, _ = read_domain(domain_text)
    return None if domain is None else bind_step(domain, step)


def bind_step(domain, step):
    """(action, binding: parameter -> argument, lower case) of a plan step in a read
    ``domain``: pddlkit's :class:`~pddlkit.pddl.plan.PlanStep`, or its text ``(take coin
    pantry)`` as the loop keeps it (read by the plan reader,
    :func:`pddlkit.pddl.plan.parse_plan`); None when it has no such action or the arity
    differs. The one place a plan step is bound to its action (the modular formalizer's
    corrections use it too)."""
    from pddlkit.pddl.plan import PlanFormatError, PlanStep, parse_plan

    if not isinstance(step, PlanStep):
        try:
            read = parse_plan([step]).steps
        except PlanFormatError:
            return None
        if len(read) != 1:
            return None
        step = read[0]
    try:
        action = domain.action(step.name)
    except KeyError:
        return None
    if len(action.parameters) != len(step.args):
        return None
    return action, {p.name.lower(): a.lower() for p, a in zip(action.parameters, step.args)}


def matches(pattern: Atom, fact: Atom) -> bool:
    """Whether ``fact`` and ``pattern`` (``(p a ?x)``, as :func:`fact_atom` reads them) can be
    the same atom: the same predicate and arity, every argument equal or a ``?``-variable on
    either side. A variable in ``fact`` is one an effect leaves open (``open-door``'s
    ``forall`` adds the far side's ``(door-open pantry kitchen ?back)``): it may be the
    refuted fact."""
    return pattern.predicate == fact.predicate and len(pattern.args) == len(fact.args) and \
        all(w == h or w.startswith("?") or h.startswith("?")
            for w, h in zip(pattern.args, fact.args))


def _instantiate(atom: Atom, binding: dict) -> Atom:
    return Atom(atom.predicate.lower(),
                tuple(binding.get(a.lower(), a.lower()) for a in atom.args))


def _expressible(atoms: list[Atom], domain_text: Optional[str]) -> list[Atom]:
    """The world's literals the files' domain can state (a predicate of that name and
    arity); all of them when there is no domain to read. Why: the world says what failed in
    its own domain's terms, and while the model writes the domain (or plays one it wrote)
    those are not the model's: measured with Qwen2.5-Coder 1.5B learning the household's
    domain (dev seeds 0-1 at e5ed7a0), "(atlocation countertop_1) is false in the world" and
    "(openable desk_1) ..." were said back to it, names its predicates lack (the simulator's
    vocabulary, which the model is not to be given), and nothing was kept out."""
    if not domain_text:
        return atoms
    domain, _ = read_domain(domain_text)
    if domain is None:
        return atoms
    arity = {p.name.lower(): len(p.parameters) for p in domain.predicates}
    return [a for a in atoms if arity.get(a.predicate) == len(a.args)]


class RefutedFacts:
    """The facts refuted in one episode, and why (see the module docstring); the
    ``refuted_facts`` help's pass over the files (:mod:`..passes`)."""

    counter, event, key = "facts_kept_out", "facts-kept-out", "fixes"

    def __init__(self) -> None:
        self.facts: dict[Atom, str] = {}   # the refuted fact -> why

    def on_ran(self, files: Files, steps: list[str], seen: str):
        """The loop's hook (:class:`..passes.LearnsWhatRan`): the facts :meth:`release`
        frees, as a ``facts-released`` event."""
        from ..passes import Learned

        released = self.release(steps, files.domain)
        return Learned("facts-released", "facts", released) if released else None

    def on_failed(self, files: Files, failure: tuple, step: Optional[str]):
        """The loop's hook (:class:`..passes.LearnsWhatFailed`): the facts the failed command
        refutes (:meth:`learn`), as a ``facts-refuted`` event, counted, and said to the
        model with the world's message (:meth:`said`)."""
        from ..passes import Learned

        command, message, info = failure
        new = self.learn(info, command, message, step, files.domain)
        return Learned("facts-refuted", "facts", new, counter="facts_refuted",
                       said=self.said(new), fields={"command": command}) if new else None

    def learn(self, info: object, command: str, message: str, step: Optional[str],
              domain_text: Optional[str]) -> list[str]:
        """Record what a failed ``command`` refutes; the facts newly refuted, as text."""
        failed = info.get("failed") if isinstance(info, dict) else None
        if not isinstance(failed, dict):
            return []
        found: list[Atom] = []
        if isinstance(failed.get("literal"), str) and failed.get("holds") is False:
            found += _expressible([fact_atom(failed["literal"])], domain_text)
        elif isinstance(failed.get("pattern"), str) and failed.get("holds") is False:
            found += _expressible([fact_atom(failed["pattern"])], domain_text)
        elif isinstance(failed.get("object"), str) and step and domain_text:
            ground = _ground(domain_text, step)
            if ground is not None:
                action, binding = ground
                name = failed["object"].lower()
                pre = action.precondition
                for part in (pre.parts if isinstance(pre, And) else (pre,)):
                    if isinstance(part, Atom):
                        fact = _instantiate(part, binding)
                        if name in fact.args:
                            found.append(fact)
        why = f"'{command}' failed: {message.strip()}"
        new = [f for f in dict.fromkeys(found) if f not in self.facts]
        for fact in new:
            self.facts[fact] = why
        return [fact_text(f) for f in new]

    def release(self, steps: list[str], domain_text: Optional[str]) -> list[str]:
        """Steps that ran: facts their actions add (in the model's domain) are evidence
        again; the facts released, as text."""
        if not self.facts or not domain_text:
            return []
        released = []
        for step in steps:
            ground = _ground(domain_text, step)
            if ground is None:
                continue
            action, binding = ground
            for literal in iter_effect_literals(action.effects):
                fact = _instantiate(literal.atom, binding)
                if not literal.positive:
                    continue
                for refuted in [r for r in self.facts if matches(r, fact)]:
                    del self.facts[refuted]
                    released.append(fact_text(refuted))
        return released

    def apply(self, files: Files, context: object = None) -> tuple[Files, list[str]]:
        """The files with every refuted fact removed from the problem (one line each)."""
        problem, removed = files.problem, []
        start = re.search(r"\(\s*:init\b", problem, re.I)
        end = closing_bracket(problem, start.start()) if start else None
        if end is None:
            return files, []
        init = problem[start.start():end]
        for atom, why in self.facts.items():
            fact, words = fact_text(atom), [atom.predicate, *atom.args]
            pattern = r"\(\s*" + r"\s+".join(r"[^\s()]+" if w.startswith("?") else re.escape(w)
                                             for w in words) + r"\s*\)"
            found = list(dict.fromkeys(_norm(m.group(0))
                                       for m in re.finditer(pattern, init, flags=re.I)))
            if found:
                init = re.sub(pattern, "", init, flags=re.I)
            for text in found:
                removed.append(f"problem: removed {text} from :init: the world refuted "
                               + ("it" if text == fact else f"every {fact}") + f" ({why})")
        if not removed:
            return files, []
        return Files(files.domain, problem[:start.start()] + init + problem[end:]), removed

    def said(self, facts: list[str]) -> str:
        """What the model is told when facts are refuted."""
        ground = [f for f in facts if "?" not in f]
        patterns = [f for f in facts if "?" in f]
        said = []
        if ground:
            said.append(", ".join(ground) + (" is" if len(ground) == 1 else " are")
                        + " false in the world")
        for pattern in patterns:
            free = " ".join(dict.fromkeys(w for w in pattern[1:-1].split() if w.startswith("?")))
            said.append(f"{pattern} is false in the world for every {free}")
        return (" So " + "; ".join(said) + ": kept out of the problem file from now on.")
