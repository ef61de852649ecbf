"""What a formalizer sees and returns, and the episode memory it keeps.

A formalizer turns a :class:`Context` (the task, the observations so far, the previous files,
and the error to fix, if any) into PDDL :class:`~.answer.Files`. The LLM-backed one renders
the paper's prompts from the context; the offline ones read the same observation text. The
loop (:mod:`.loop`) never cares which one it drives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Union, runtime_checkable

from .answer import Files
from .signatures import Signatures

INITIAL, UPDATE, SOLVER_ERROR, SIMULATION_ERROR = ("initial", "update", "solver_error",
                                                   "simulation_error")


@dataclass
class Memory:
    """The episode so far: every command with its observation (the paper's 'memory')."""

    task: str
    history: list[tuple[str, str]] = field(default_factory=list)
    files: list[Files] = field(default_factory=list)
    #: every failed command: (length of ``history`` then, commands of its plan run before
    #: it, command, observation).
    #: The env is rolled back after a failure, so ``history`` no longer shows them; what a
    #: failure teaches (ALFWorld: two receptacles share a spot) must not be lost with it.
    failures: list[tuple[int, tuple[str, ...], str, str]] = field(default_factory=list)

    @property
    def observation(self) -> str:
        return self.history[-1][1] if self.history else ""


def history_text(entries, left_out: int = 0) -> str:
    """'Action: a\nobservation' for each (command, observation); with ``left_out`` > 0, a line
    after the first entry says how many were left out to fit the model's context."""
    shown = [f"Action: {a}\n{o}" for a, o in entries]
    if left_out:
        s = "s" if left_out > 1 else ""
        shown.insert(min(1, len(shown)), f"({left_out} earlier action{s} and observation{s} "
                                          "left out to fit the model's context)")
    return "\n".join(shown)


@dataclass
class Context:
    kind: str
    env_id: str
    memory: Memory
    valid_actions: list[str]
    #: the actions to write (:class:`.signatures.Signatures`: records, ``str()`` the prompt's
    #: text); a text given here is read into records once, when the Context is made
    signatures: Union[Signatures, str]
    n_actions: int
    previous: Optional[Files] = None
    error: Optional[str] = None
    failed_action: Optional[str] = None
    executed: list[str] = field(default_factory=list)
    #: the environment lists every command it would take now (``admissible_complete``), so
    #: one its list leaves out would be refused (evidence for the schema check)
    commands_complete: bool = False
    #: predicates of which the formalizer keeps one value (where the player is, while the
    #: model writes the domain: :class:`KeepsOneValue`), so no pass of code's puts a
    #: remembered value back beside the one it keeps (``fact_memory``)
    one_value: frozenset = frozenset()

    def __post_init__(self) -> None:
        if not isinstance(self.signatures, Signatures):
            self.signatures = Signatures.read(str(self.signatures))


@runtime_checkable
class Formalizer(Protocol):
    name: str

    def propose(self, context: Context) -> Files:
        """The domain and problem files for this context; AnswerError if it cannot."""
        ...


@runtime_checkable
class LearnsFromTransitions(Protocol):
    """A formalizer that keeps what each command the agent ran is evidence of (issue 75: the
    modular formalizer checks the action schemas the model writes against them). The loop
    calls ``observe`` once per plan with the :class:`~pddlkit.semantics.transitions.
    Transition` of each command that ran (the refused one last), in order."""

    def observe(self, transitions: list) -> None:
        ...


@runtime_checkable
class ReadsTheLastAnswer(Protocol):
    """A formalizer that reads the world's answer to the command that won the episode (the
    modular formalizer's ``final_effects``, while the model writes the domain): the loop
    calls ``read_last`` once, after the win, with an update context; it returns whether it
    read anything. Why the loop asks: nothing else asks the formalizer after a win, so the
    last command's effects would never meet an observation."""

    def read_last(self, context: "Context") -> bool:
        ...


@runtime_checkable
class GuardsItsPlans(Protocol):
    """A formalizer that gives the planner its files with a guard of code's (the modular
    formalizer's ``refused_steps``): the loop plans ``planning_files(files)``, and records,
    checks and refuses the files themselves."""

    def planning_files(self, files, context): ...


@runtime_checkable
class ShortensItsPlans(Protocol):
    """A formalizer that may take needless steps out of the plan found for the files it
    gave the planner (the modular formalizer's ``refused_steps``, over a learned entry
    reused): the loop runs ``shortened(files, plan)``."""

    def shortened(self, files, plan): ...


@runtime_checkable
class TriesCommands(Protocol):
    """A formalizer that sometimes runs a command of its own choosing instead of a plan (the
    modular formalizer's ``try_untried``, while the model writes the domain): ``probe()``
    gives (the command, its action as ``(name arg ...)``) once, and the loop runs it as a
    one-command plan of the files just proposed; None: plan the files."""

    def probe(self): ...


@runtime_checkable
class KeepsOneValue(Protocol):
    """A formalizer that keeps one value of some predicates whatever the domain's schemas say
    (the modular formalizer, while the model writes the domain: the player is at one place,
    though the model's move may add the new place and delete nothing): ``one_value()`` names
    them, and the loop tells code's passes (:attr:`Context.one_value`)."""

    def one_value(self) -> set[str]:
        ...


@runtime_checkable
class FollowsThePlan(Protocol):
    """A formalizer that keeps the state itself (the modular formalizer): the loop says which
    steps of the plan ran (``ran``, when the plan did not fail) and which step failed in the
    world, with the world's ``info`` (``failed``), so it can progress its facts and aim its
    revision at the step."""

    def ran(self, steps: list[str]) -> None:
        ...

    def failed(self, step: Optional[str], info: Optional[dict] = None) -> None:
        ...


@runtime_checkable
class ReportsWork(Protocol):
    """A formalizer whose work the record shows beyond its files (the modular formalizer's
    parts, what a help changed inside it): ``work_done`` returns the work since it was last
    called as (event kind, data) pairs, in order, and forgets it. The loop counts what it
    knows of (``objects-declared``, ``parts``) and writes every pair as an event."""

    def work_done(self) -> list[tuple[str, dict]]:
        ...


@runtime_checkable
class PlaysAGivenDomain(Protocol):
    """A formalizer that can play on a domain it is given (``--domain``, ``--reuse-domain``,
    ``formalize_and_plan(domain=...)``): it writes the problem side against
    ``fixed_domain``."""

    fixed_domain: Optional[str]


@runtime_checkable
class PlaysLearnedAspects(Protocol):
    """A formalizer that, over a learned domain reused from the library, plays by what each
    of its predicates was written for (``reused_aspects``: predicate -> aspect, from the
    entry's ``learning.json``; {} for any other domain): the player at one place, goals of
    places to look, plans kept from names the game never used (issue 75)."""

    reused_aspects: dict


@runtime_checkable
class AsksForTheProblemAlone(Protocol):
    """A formalizer that, on a given domain, can ask the model for the problem file alone
    (``problem_only``)."""

    problem_only: bool


@runtime_checkable
class TrimsItsHistory(Protocol):
    """A formalizer that cuts its prompt's history to the model's context: the entries the
    last prompt left out (the loop records them, ``history-trimmed``)."""

    history_left_out: int


@runtime_checkable
class CutsItsFiles(Protocol):
    """A formalizer that cuts the previous files or the error in its prompt to fit the
    model's context: the cuts the last prompt needed (the loop records them, ``files-cut``)."""

    files_cut: int


@runtime_checkable
class AsksAnLLM(Protocol):
    """A formalizer with an LLM, whose ledger the loop reads for the episode's calls and
    tokens (and which ``formalize_and_plan`` shares, not copies, between calls)."""

    llm: Any


@runtime_checkable
class DrawsAtRandom(Protocol):
    """A formalizer whose answers depend on a random generator (the noisy stand-ins): the
    agent seeds it per episode, so a row replays."""

    rng: Any


@runtime_checkable
class InjectsMistakes(Protocol):
    """A stand-in that makes mistakes on purpose: the last one it made (its ``kind`` goes
    into the files' record event)."""

    last_mistake: Optional[Any]


@runtime_checkable
class DecodesUnderGrammars(Protocol):
    """A formalizer whose calls may be decoded under a grammar: each call's constraint mode
    (the row says how the calls were decoded)."""

    modes: list


@runtime_checkable
class DrawsSamples(Protocol):
    """A formalizer that draws several answers per request and keeps the first that passes
    the check (``--samples``): answers drawn in all, and which sample each request used."""

    samples_drawn: int
    samples_used: list


def ledger_of(formalizer: Any):
    """The usage ledger of a formalizer's LLM, or None (an offline formalizer, or an LLM of
    the caller's that keeps none)."""
    if not isinstance(formalizer, AsksAnLLM):
        return None
    return getattr(formalizer.llm, "ledger", None)   # an LLM object of the caller's may have none
