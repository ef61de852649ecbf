"""Any PDDL model as a text environment: simulate with pddlkit's semantics, render what the
agent perceives, and explain failed commands from the precondition that failed.

Why: the original simulators answer most mistakes with "Nothing happens.", and PDDLego+'s
authors had to hand-write better messages. Here a failed command is mapped to its ground
action, the first false precondition literal is found, and a per-predicate template turns it
into a sentence ("The door to the west is closed."). ``terse=True`` brings back the original
behaviour, for comparing agents under both kinds of feedback.

Commands map to ground actions through each action's command template. Parameters the
template does not show (``?from`` in ``move {dir}``) are found by joining the precondition's
positive atoms against the current state, so ``move west`` means "the move west from here".
Subclasses supply the model (``generate``), the renderer (``describe``, ``feedback``) and the
failure templates (``MESSAGES``).

Partial observability. A failure message must say only what the agent could perceive: a
world with hidden state (the household's closed receptacles) overrides :meth:`visible`, the
objects the agent perceives now. The environment keeps every object seen so far; a command
naming one never seen, whether it exists or not, gets the same ``unknown-object`` answer, and
the failing precondition is looked for in the action's own order once the command names all
parameters (so "the cabinet is closed" comes before "the cd is not in the cabinet", whatever
the cabinet holds). ``admissible_commands()`` never names an object not yet seen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from pddlkit.pddl.model import And, Atom, Domain, Problem
from pddlkit.semantics.formulas import Unsatisfied, compile_formula, holds
from pddlkit.semantics.grounding import GroundAction, ground
from pddlkit.semantics.simulate import MessageBook, first_false_literal
from pddlkit.semantics.state import State
from pddlkit.semantics.world import World

from .api import ActionTemplate, Step, info_dict, plan_commands

NOTHING_HAPPENS = "Nothing happens."
#: a subclass's ``MESSAGES``: (predicate, True) is the message when a needed atom is false;
#: (predicate, False) when an atom that must be false is true. A template's {0}, {1}, ... are
#: the atom's arguments as shown to the player; a callable gets (args, env) and returns the
#: sentence. The environment reads it through the world-model service's
#: :class:`~pddlkit.semantics.simulate.MessageBook`.
Messages = Mapping[tuple[str, bool], Union[str, Callable[[tuple, Any], str]]]


@dataclass(frozen=True)
class Snapshot:
    """Everything that changes during an episode (the model itself is fixed per seed)."""

    state: State
    steps: int
    won: bool
    seed: Optional[int]
    seen: Optional[frozenset] = None


@dataclass
class _Failure:
    code: str
    message: str
    #: what the failure says about the world, machine-readable (``info["failed"]``): the
    #: literal that does not hold, a pattern no values make true, or the object the command
    #: named that is not there
    failed: Optional[dict] = None


class PDDLWorldEnv:
    """A text environment over a PDDL domain and problem (see the module docstring).

    Used directly, it turns any model into an environment: ``PDDLWorldEnv(domain, problem,
    templates)`` with ``describe``/``feedback`` falling back to listing atoms and action names.
    """

    id = "pddl-world"
    #: admissible_commands() lists every command that would succeed now, over the objects
    #: seen (computed from the state, not sampled): one it leaves out would be refused, which
    #: the modular formalizer's schema check reads as evidence (envs/api.py)
    admissible_complete = True
    MESSAGES: Messages = {}
    META_COMMANDS: tuple[str, ...] = ("look", "inventory")

    def __init__(self, domain: Domain, problem: Optional[Problem] = None,
                 templates: Sequence[ActionTemplate] = (), *, terse: bool = False,
                 max_steps: int = 100, seed: Optional[int] = None,
                 messages: Optional[Messages] = None) -> None:
        self.domain = domain
        self._fixed_problem = problem
        self.action_schema: tuple[ActionTemplate, ...] = tuple(templates)
        self.terse = terse
        self.max_steps = max_steps
        self.seed = seed
        self.messages = MessageBook({**self.MESSAGES, **(messages or {})})
        self._actions = {a.name: a for a in domain.actions}
        for t in self.action_schema:
            if t.action not in self._actions:
                raise ValueError(f"template {t} names no action of domain {domain.name}")
        self._patterns = [(t, t.pattern()) for t in self.action_schema]
        self.problem: Optional[Problem] = None
        self.world: Optional[World] = None
        self.state: Optional[State] = None
        self.steps = 0
        self.won = False
        self.seen: Optional[frozenset] = None

    # ------------------------------------------------------------------ hooks for subclasses

    def generate(self, rng: random.Random) -> Problem:
        """The problem for this episode; the default is the fixed problem given."""
        if self._fixed_problem is None:
            raise ValueError(f"{type(self).__name__} needs a problem, or must override generate()")
        return self._fixed_problem

    @property
    def task(self) -> str:
        """The goal as a sentence (subclasses say it in words)."""
        from pddlkit.pddl.writer import write_formula

        return "Make this true: " + write_formula(self.problem.goal) if self.problem else ""

    def describe(self) -> str:
        """What the agent perceives now (the answer to 'look')."""
        return "You see: " + ", ".join(sorted("(" + " ".join(a) + ")" for a in self.state.atoms))

    def intro(self) -> str:
        return self.describe() + "\n\nYour task is to: " + self.task

    def feedback(self, action: GroundAction, before: State) -> str:
        """The answer to a command that worked."""
        return f"You {action.name} {' '.join(self.display(a) for a in action.args)}."

    def meta(self, command: str) -> Optional[str]:
        """Answers to commands that change nothing (look, inventory, ...); None if not one."""
        if command == "look":
            return self.describe()
        if command == "inventory":
            return "You are carrying nothing."
        return None

    def display(self, name: Optional[str]) -> str:
        """How an object's PDDL name is shown and typed ('apple_1' -> 'apple 1')."""
        return "something" if name is None else name.replace("_", " ")

    def object_name(self, shown: str) -> str:
        return "_".join(shown.strip().lower().split())

    def unknown_object(self, shown: str, parameter: str) -> str:
        return f"There is no {shown.strip()} here."

    def visible(self) -> Optional[set]:
        """The objects the agent perceives now; None when the whole state is perceivable
        (the default). Worlds with hidden state override it (see the module docstring)."""
        return None

    def perceived(self, name: str) -> bool:
        """Whether the agent has seen ``name`` in this episode (always, if nothing is hidden)."""
        return self.seen is None or name in self.seen

    def _look(self) -> None:
        now = self.visible()
        if now is None:
            return
        if self.seen is None:
            self.seen = frozenset(now)
        elif not self.seen.issuperset(now):  # most steps reveal nothing new
            self.seen = self.seen | frozenset(now)

    def reference_problem(self) -> Problem:
        """The problem a perfect reader of the observations so far would write, for scoring
        what a formalizer wrote (:mod:`pddlkit.formalizers.scoring`): the objects perceived
        in this episode, every atom and numeric value of the current state over them and the
        domain's constants, and the task's goal. Hidden state (what a closed receptacle
        holds) stays out until it is seen, as :meth:`visible` says."""
        from pddlkit.pddl.model import FunctionTerm

        p = self.problem
        if p is None or self.state is None:
            raise RuntimeError("call reset() before reference_problem()")
        objects = tuple(o for o in p.objects if self.perceived(o.name))
        names = {o.name for o in objects} | {c.name for c in self.domain.constants}
        init = tuple(Atom(a[0], tuple(a[1:])) for a in sorted(self.state.atoms)
                     if all(x in names for x in a[1:]))
        numeric = tuple((FunctionTerm(k[0], tuple(k[1:])), v)
                        for k, v in sorted(self.state.fluents.items())
                        if all(x in names for x in k[1:]))
        return Problem(p.name, p.domain_name, p.requirements, objects, init, numeric, p.goal,
                       p.metric)

    # ------------------------------------------------------------------ the API

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        if seed is not None:
            self.seed = seed
        self.problem = self.generate(random.Random(self.seed))
        self.world = World(self.domain, self.problem)
        self._goal_predicates = None if self.domain.derived else _predicates(self.problem.goal)
        self.state = self.world.initial_state
        self.steps = 0
        self.seen = None
        self._look()
        self.won = self._goal_holds()
        return self.intro(), info_dict(self.won, 0, None, self.admissible_commands)

    def step(self, command: str) -> Step:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.won or self.steps >= self.max_steps:
            return self._step("The episode is over; call reset().", "episode-over")
        self.steps += 1
        text = " ".join(command.strip().lower().split())
        answer = self.meta(text)
        if answer is not None:
            return self._step(answer, None)
        resolved = self.resolve(text)
        if isinstance(resolved, _Failure):
            return self._step(resolved.message, resolved.code, resolved.failed)
        before = self.state
        self.state = resolved.apply(before, self.world)
        self._look()
        if self._goal_may_change(before, self.state):
            self.won = self._goal_holds()
        return self._step(self.feedback(resolved, before), None)

    def _step(self, observation: str, error: Optional[str],
              failed: Optional[dict] = None) -> Step:
        """``failed`` (a failed command's): ``{"literal": "(in coin pantry)", "holds": False}``,
        ``{"pattern": "(connected corridor ?to east)", "holds": False}`` (no values of its
        variables make it true) or ``{"object": "coin"}``, what the message says in the
        domain's own terms, in ``info["failed"]`` (a formalizer that shares the domain's names
        can act on it; the ``refuted_facts`` help does). Terse mode gives it too: it is what
        "Nothing happens" stands for, and a program reading ``info`` is not a player reading
        text."""
        if error is not None and self.terse and error not in ("episode-over",):
            observation = NOTHING_HAPPENS
        truncated = not self.won and self.steps >= self.max_steps
        extra = {"failed": failed} if failed else {}
        return Step(observation, 1.0 if self.won and error is None else 0.0, self.won, truncated,
                    info_dict(self.won, self.steps, error, self.admissible_commands, **extra))

    def snapshot(self) -> Snapshot:
        return Snapshot(self.state, self.steps, self.won, self.seed, self.seen)

    def restore(self, snapshot: Snapshot) -> None:
        if snapshot.seed != self.seed:
            raise ValueError(f"snapshot of seed {snapshot.seed}, but this episode is seed "
                             f"{self.seed}; reset(seed={snapshot.seed}) first")
        self.state, self.steps, self.won = snapshot.state, snapshot.steps, snapshot.won
        self.seen = snapshot.seen

    def _goal_may_change(self, before: State, after: State) -> bool:
        """Whether the goal's truth can differ: only if an atom of a predicate the goal
        mentions changed (always, when the domain has derived predicates). Checking the goal
        is the costliest part of a step in a large household; most steps do not touch it."""
        if self._goal_predicates is None:
            return True
        return any(a[0] in self._goal_predicates
                   for a in before.atoms.symmetric_difference(after.atoms))

    def _goal_holds(self) -> bool:
        return holds(self.problem.goal, self.state, {}, self.world)

    # ------------------------------------------------------------------ plans <-> commands

    def command_for(self, action: Union[GroundAction, Sequence[str], str]) -> str:
        """The command performing a ground action: '(move kitchen patio south)' -> 'move south'."""
        return plan_commands(self.action_schema, [action], self.display)[0]

    def commands_for_plan(self, plan) -> list[str]:
        return plan_commands(self.action_schema, plan, self.display)

    def admissible_commands(self) -> list[str]:
        """Every command that would succeed now (plus the meta commands), naming only objects
        the agent has seen.

        Compiled once per environment (:class:`_Admissible`): per command template, the
        action's positive precondition atoms are joined against the state's atoms (the state's
        index by predicate and argument), only the rest of the precondition (negative
        literals, equalities, anything nested) is evaluated per binding, and each command's
        text is formatted once and remembered. No ground action is built and no precondition
        is tested for a binding that the state's atoms already rule out."""
        out = set()
        perceived = self.perceived
        for compiled in self._admissible:
            for binding in self._join(compiled.action, {})[0]:
                args = tuple(binding[name] for name in compiled.names)
                if any(not perceived(args[i]) for i in compiled.shown):
                    continue
                if compiled.rest is None or compiled.rest(self.state, binding, self.world):
                    out.add(compiled.command(args, self.display))
        return sorted(out) + [m for m in self.META_COMMANDS if "{" not in m]

    @cached_property
    def _admissible(self) -> list["_Admissible"]:
        return [_Admissible.compile(t, self._actions[t.action], self._positive_atoms)
                for t in self.action_schema]

    # ------------------------------------------------------------------ command -> ground action

    def resolve(self, command: str) -> Union[GroundAction, _Failure]:
        """The ground action a command means, or why it cannot be done (message and code)."""
        unknown: Optional[_Failure] = None
        for template, pattern in self._patterns:
            m = pattern.match(command)
            if not m:
                continue
            action = self._actions[template.action]
            given: dict[str, str] = {}
            bad = None
            for p in action.parameters:
                key = p.name.lstrip("?").replace("-", "_")
                if key in m.groupdict():
                    shown = m.group(key)
                    name = self.object_name(shown)
                    if not self._is_a(name, p.types) or not self.perceived(name):
                        bad = _Failure("unknown-object", self.unknown_object(shown, p.name),
                                       {"object": name})
                        break
                    given[p.name] = name
            if bad is not None:
                unknown = unknown or bad
                continue
            return self._ground(action, given)
        if unknown is not None:
            return unknown
        return _Failure("unknown-command", self.unknown_command(command))

    def unknown_command(self, command: str) -> str:
        shapes = sorted({t.template for t in self.action_schema} | set(self.META_COMMANDS))
        return (f"I don't understand \"{command}\". Commands look like: "
                + ", ".join(s.replace("{", "<").replace("}", ">") for s in shapes) + ".")

    def _is_a(self, name: str, types: tuple[str, ...]) -> bool:
        if name not in self.world.object_types:
            return False
        return self.world.is_of_type(name, types)

    def _ground(self, action, given: dict) -> Union[GroundAction, _Failure]:
        bindings, stuck = self._join(action, given)
        if not bindings:
            atom, binding = stuck
            if all(p.name in binding for p in action.parameters):
                # every parameter is known: blame the precondition in the action's own order,
                # not the join's (which would test what a closed receptacle holds first)
                return self._explain(action.precondition, binding)
            return self._failure_for(atom, binding, positive=True)
        first_failure = None
        for binding in bindings:
            g = ground(action, tuple(binding[p.name] for p in action.parameters))
            if g.applicable(self.state, self.world):
                return g
            if first_failure is None:
                first_failure = self._explain(action.precondition, binding)
        return first_failure

    def _positive_atoms(self, action) -> list[Atom]:
        pre = action.precondition
        parts = pre.parts if isinstance(pre, And) else (pre,)
        return [p for p in parts if isinstance(p, Atom) and p.predicate != "="]

    def _join(self, action, given: dict) -> tuple[list[dict], Optional[tuple]]:
        """Bindings of all parameters that make the positive precondition atoms true; when
        there are none, the first atom that no extension of the binding satisfies."""
        partial = [dict(given)]
        for atom in self._positive_atoms(action):
            extended = []
            for b in partial:
                extended.extend(self._extend(atom, b))
            if not extended:
                return [], (atom, partial[0])
            partial = extended
        full = []
        types = {p.name: p.types for p in action.parameters}
        for b in partial:
            missing = [v for v in types if v not in b]
            if not missing:
                full.append(b)
                continue
            for extra in self.world.bindings([p for p in action.parameters if p.name in missing]):
                full.append({**b, **extra})
        return full, None

    def _extend(self, atom: Atom, binding: dict) -> list[dict]:
        args = atom.args
        bound = [(i, binding.get(a, a) if a.startswith("?") else a) for i, a in enumerate(args)
                 if not a.startswith("?") or a in binding]
        if len(bound) == len(args):
            return [binding] if (atom.predicate, *[v for _, v in bound]) in self.state.atoms else []
        if bound:
            i, v = bound[0]
            candidates = self.state.atoms_with(atom.predicate, i + 1, v)
        else:
            candidates = self.state.by_predicate.get(atom.predicate, ())
        out = []
        for fact in candidates:
            values = fact[1:]
            new = dict(binding)
            ok = True
            for a, val in zip(args, values):
                if a.startswith("?"):
                    if new.setdefault(a, val) != val:
                        ok = False
                        break
                elif a != val:
                    ok = False
                    break
            if ok:
                out.append(new)
        return out

    def _explain(self, formula, binding: dict) -> _Failure:
        literal = first_false_literal(formula, self.state, binding, self.world, self.messages)
        if literal is None:
            return _Failure("precondition", "You can't do that now.")
        return self._said(literal)

    def _failure_for(self, atom: Atom, binding: dict, positive: bool) -> _Failure:
        """Why a command's action has no binding: ``atom`` is the first precondition atom no
        extension of ``binding`` makes true. With a parameter the command did not bind
        ("move east": no ``?to``), ``info["failed"]`` says so as a pattern, ``{"pattern":
        "(connected corridor ?to east)", "holds": False}``: no value of its ``?``-variables
        makes it true. That is what "there is no exit in that direction" says, in the
        domain's terms, and names nothing the agent has not seen (measured with
        Qwen2.5-Coder 1.5B on CoinCollector: with no literal named, a model kept
        ``(connected corridor kitchen east)`` and the move east failed twice, the door to
        the east "opened" twice)."""
        args = tuple(binding.get(a) if a.startswith("?") else a for a in atom.args)
        failure = self._said(Unsatisfied("", (atom.predicate, *args), not positive))
        bound = [a for a in args if a is not None]
        if failure.failed is None and positive and len(bound) < len(args) \
                and all(isinstance(a, str) and self.perceived(a) for a in bound):
            shown = [a if a is not None else v for a, v in zip(args, atom.args)]
            failure.failed = {"pattern": "(" + " ".join([atom.predicate, *shown]) + ")",
                              "holds": False}
        return failure

    def _said(self, failed: Unsatisfied) -> _Failure:
        sentence = self.messages.sentence(failed, self.display, context=self)
        if sentence is None:
            shown = "(" + " ".join([failed.atom[0], *(self.display(a) for a in failed.atom[1:])]) + ")"
            sentence = (f"You can't do that: {shown} is "
                        f"{'true' if failed.negated else 'not true'}.")
        # a parameter nothing binds, or one bound to an object the agent has not perceived (the
        # room behind a closed door): the message says no more than what was seen, nor may this
        if not all(isinstance(a, str) and self.perceived(a) for a in failed.atom[1:]):
            return _Failure("precondition", sentence)
        literal = "(" + " ".join(failed.atom) + ")"
        return _Failure("precondition", sentence, {"literal": literal, "holds": failed.negated})


@dataclass
class _Admissible:
    """One command template compiled for :meth:`PDDLWorldEnv.admissible_commands`: the
    action, its parameter names, the positions shown in the command, the part of the
    precondition the join does not already guarantee, compiled (None: nothing), and the
    command texts formatted so far."""

    template: ActionTemplate
    action: object
    names: tuple[str, ...]
    shown: tuple[int, ...]
    rest: Optional[object]
    texts: dict = field(default_factory=dict)

    @classmethod
    def compile(cls, template: ActionTemplate, action, positive_atoms) -> "_Admissible":
        keys = {s.replace("-", "_") for s in template.shown}
        shown = tuple(i for i, p in enumerate(action.parameters)
                      if p.name.lstrip("?").replace("-", "_") in keys)
        joined = set(positive_atoms(action))
        pre = action.precondition
        parts = pre.parts if isinstance(pre, And) else (pre,)
        rest = [p for p in parts if p not in joined]
        rest_formula = None if not rest else rest[0] if len(rest) == 1 else And(tuple(rest))
        return cls(template, action, tuple(p.name for p in action.parameters), shown,
                   None if rest_formula is None else compile_formula(rest_formula))

    def command(self, args: tuple, display) -> str:
        text = self.texts.get(args)
        if text is None:
            if len(self.texts) > 100_000:  # a bound on memory for very large worlds
                self.texts.clear()
            text = self.texts[args] = self.template.command(args, display)
        return text


def _predicates(formula) -> set:
    """Every predicate name a formula mentions (through any nesting)."""
    found: set = set()
    stack = [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, Atom):
            found.add(f.predicate)
        for name in ("formula", "body", "condition", "consequence"):
            part = getattr(f, name, None)
            if part is not None:
                stack.append(part)
        stack.extend(getattr(f, "parts", ()))
    return found
