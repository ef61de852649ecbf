"""Modular generation: the LLM writes one small part of the PDDL at a time, code assembles the
files (issue 46, the ``modular`` option; off by default: the paper's whole-file answer).

Why: a 1.5B model asked for a domain and a problem in one answer spends 300-500 tokens and
slips somewhere (an action without effect, predicates used at other arities than declared, a
problem without ``(:objects ...)``); every retry rewrites everything. Asked for one part,
decoded (with ``constrained``) under a grammar derived from what is already fixed
(:mod:`pddlkit.pddl.grammars`: ``predicates_grammar``, ``action_body_grammar``,
``facts_grammar``, ``goal_grammar``), it can only make the mistakes that part allows, and a
revision rewrites only the part that is wrong.

The parts, in order:

* **the domain** (skipped when the domain is frozen: ``fixed_domain``, set by the loop from
  ``--reuse-domain``): its predicates, typed with the types the environment's action
  signatures use; then, for each action (name and parameters fixed by the environment, as in
  the paper), its precondition and effect over the declared predicates and the action's own
  parameters. Code writes the requirements, types, parameters and layout. The domain is
  written once and kept; only a part an error names is rewritten.
* **the types** of a sentence's words (``kitchen=ROOM east=DIRECTION closed=NONE``), under a
  grammar that lists the sentence's words and the domain's types: a word typed once keeps
  its type for the episode;
* **the facts** one sentence of the new observations states (every observation since the
  last facts part, not only the newest: a plan of three moves passes through rooms; the
  task's own sentence left out), each parameter named (``(connected ?from=kitchen
  ?to=corridor ?dir=east)``: measured with Qwen2.5-Coder 1.5B, bare arguments come out in
  the wrong order far more often), over the domain's predicates and, per parameter type,
  the names of that type: the sentence's words (single words and adjacent pairs joined with
  ``_``) and the names in the known facts; ``unknown_<word>`` placeholders only when the
  sentence mentions something it does not name (a word typed NONE: "a closed door"). Not
  the task's words, so a coin nobody has seen cannot be placed. Code keeps the state
  between steps: after a plan ran, the init is progressed through the steps that ran under
  the model's own domain (pddlkit's semantics), and a new fact of a *single-valued*
  predicate (one every action that adds it also deletes, as ``at`` under ``move``)
  replaces the old one (same first argument, for arity 2 or more); a placeholder the plan
  reached (``(at unknown_north)``) is renamed to the name the new facts give the same slot.
  Free answers are read leniently; code refuses a fact over an unknown predicate, with the
  wrong arity, naming what no observation names, or giving a name a second type, and
  records it.
* **the goal**, one of the atoms the known facts can reach under the domain (relaxed
  reachability, :meth:`pddlkit.semantics.heuristic.RelaxedDistance.costs`; atoms never
  true in an earlier state first, then the nearest; with ``novel_goals``, only those never
  true while any is reachable: measured with Qwen2.5-Coder 1.5B on CoinCollector, offered
  the room it came from, the model went back and forth between two rooms until the budget
  ran out), with the environment's goal guidance
  (its ``goal_detailed`` template). When none is reachable the goal is free over the known
  predicates and names, and the planner's why-no-plan says what the facts miss.
* **the correction**, after a command the world refused: the literals of the failed plan
  step's precondition (in the model's domain) as corrections (``(not F)``: a fact the known
  facts hold is false; ``F``: a fact they lack holds, as a door the step assumed away), the
  additions first; the model says which predicate the world's message is about, and code
  applies the first correction over it; when it names none, the facts are read again.

With ``local_facts``, a sentence's facts may name only what the sentence names and where the
agent is (the names the single-valued facts now hold give: ``(at corridor)``), not every place
it knows: measured with Qwen2.5-Coder 1.5B, "To the West you see the kitchen", read in the
corridor, came out as ``(connected pantry kitchen west)``, the room it had left, again and
again.

With ``here_facts``, a fact over two places read in a sentence has where the agent is in the
argument an action takes it from (``(connected ?from=corridor ...)``, in the grammar and when
read: measured, the way back was written with its ends swapped), and one that names where the
agent is in both (``(connected corridor corridor south)`` for "To the South you see a closed
sliding door.") is read as leading to the place the known facts have that way, else to a
placeholder (``unknown_south_of_corridor``; :meth:`ModularFormalizer._away`).

Within one facts part (every observation since the last), the later of two facts of one
single-valued slot is kept: a plan of two moves gives ``(at corridor)`` then ``(at kitchen)``
(measured: both were kept, and moves were planned from the room the agent had left).

Code declares the problem's objects, typed by the predicates (:func:`.objects.declare_objects`).
With ``typed_objects``, a name the types part gave a domain type is declared as an object of
that type even when no fact names it: measured with Qwen2.5-Coder 1.5B on the household, "you
see a cabinet 1, a countertop 1, ..." was typed right (``cabinet_1=RECEPTACLE`` for all 8) but
its facts named one or two of them (``(heater countertop_1)``), so no plan could go to the
others. The declarations are recorded (``typed_declared``; the loop writes them as an
``objects-declared`` event). A name declared only so, that the world says is not there (its
``info["failed"]``: ``{"object": "room"}``, "You don't see any room here.") is withdrawn, and
only the goal is asked again (see :meth:`ModularFormalizer.failed`).

With ``world_literals``, a command the world refused naming the literal that failed
(``info["failed"]``, as pddlkit's PDDL-backed environments give it) is corrected in code in
place of the ``correction`` part: the literal, and what it implies through the failed step's
precondition (:meth:`ModularFormalizer._world_corrections`); recorded as
``world_corrected`` (the loop writes a ``facts-corrected`` event). A command refused because
a thing it names is not there (``{"object": "middle"}``) takes the facts about that name out
and withdraws the name; only the goal is asked again. A command refused for a precondition
no values make true (``{"pattern": "(connected corridor ?to east)", "holds": false}``, "You
can't move east: there is no exit in that direction") takes out every known fact the pattern
matches. An environment that names no literal gets the ``correction`` part as before.

With ``task_goals``, the goals offered that name a thing the task names (``ladle_1`` for "put
some ladle on countertop") come first: measured with Qwen2.5-Coder 1.5B on the household,
offered every object it had seen (novel goals: ``(holds bread_1)`` was never true), it took
and put down bread, a cup, a mug and a statue, one after another, while the task's ladle was
in sight.

With ``task_focus``, while a goal naming every thing the task names is reachable
(``(inreceptacle ladle_1 countertop_1)`` for "put some ladle on countertop": the most task
words any candidate or known fact names, two at least), only such goals are offered, and a
thing a known fact already has so is left there (no goal naming it is offered: the first of
two credit cards stays on the countertop); while none is reachable, no goal about another
thing of the type the task moves is offered (a butterknife put on the countertop). Measured with Qwen2.5-Coder 1.5B on the household
with ``task_goals`` and ``command_facts``: with the ladle known on the desk and its goal offered
first, the model chose ``(atlocation drawer_1)`` and then every unvisited place in turn, as
the paper's guidance says for stage 1 ("Always searching for the aim object first!!!"); and
with one credit card on the countertop it took it back. Its limit: a task whose object must
first be heated, cooled or cleaned is focused on placing it (the task's verb names no
argument); the planner-reached goal then fails the task, so it is for pick-and-place tasks.

With ``command_facts``, code reads the environment's valid commands (the list the paper's
prompts show) through the action templates of the signatures (``take {o} from {r}``): each
name a command fills gets that parameter's type in the domain, over what the types part said;
and a command the world lists can run now, so the atoms of its action's precondition (of its
conjunction, not inside ``or``/``not``; those whose arguments the command names) are facts:
"take vase 1 from drawer 2" gives ``(atlocation drawer_2)``, ``(inreceptacle vase_1
drawer_2)``, ``(handempty)``; "open drawer 2" gives ``(openable drawer_2)``. They join the new
facts, and a single-valued one replaces the model's fact of the same slot; so does a fact the
domain never lets hold with a command's (:meth:`ModularFormalizer._exclusive`: ``(holds
vase_1)`` against ``(inreceptacle vase_1 drawer_2)``). A known fact that gives a name another
type than a command does is dropped. A name the world said is not there comes back only
when a command names it, not when a sentence does (measured at 0b6ffb5: "go to open" five
times in the row, "open" typed again from each "You open the cabinet 1"). Once the world
refuses a name as no such thing and the model gave it a type the commands fill (a direction:
``move east``), a fact may give that type only the names the commands gave it
(:meth:`ModularFormalizer._close_type`); the model's other names of that type, and the
refused one when its facts used it, are typed again (not at that type) with the last
observation's facts (a room typed as a direction had kept the agent, by the model's facts,
in the room it had left). Recorded as ``command_derived`` and
``command_dropped`` (the loop writes a ``facts-from-commands`` event). Only with a frozen
domain (a learned precondition is the model's guess); a template's fixed words match whole
words; a name two commands type differently, a non-ASCII name and a command over
:data:`MAX_COMMAND` characters give nothing. Measured with
Qwen2.5-Coder 1.5B on the household with the helps above: 5 and 2 of the 8 receptacles typed
as objects (the agent went back and forth between the others), ``none`` for which receptacles
can be opened in all 4 episodes, and "On the countertop 1, you see a ladle 1" written as
``(holds ladle_1)``. Nothing is read from a command that is not in the list, and an
environment that lists none gives nothing.

With ``ask_missing``, a planner's why-no-plan that says an action's precondition is never true
over a predicate no known fact holds (``its precondition (atlocation ?from) is never true``)
is answered by asking for that predicate's facts alone (the ``missing`` part: up to
:data:`MISSING_FACTS` facts of that predicate, one for a single-valued one, or ``none``), under
a grammar of that predicate over the names the types part or a known fact gave its types, and
the facts join the known facts; for a single-valued predicate of one argument (where the
agent is) a ``none`` is answered in code by a placeholder, ``(atlocation unknown_receptacle)``
(:meth:`ModularFormalizer._placeholder`; since 2026-11-28, after seed 3 of the household
stopped at 0 actions on ``none`` twice). Measured on the household: "You are in the middle of a room"
came out as ``(heater middle)`` in 7 of 15 problem files, and with no ``atlocation`` fact
nothing could move; the goal was then rewritten, never the facts behind it. At most
:data:`MISSING_ASKS` times per predicate in an episode; ``none`` and unreadable answers are
recorded and the revision goes on as without the option.

Revision aimed at the part (what an error names):

* a solver error naming an action of a learned domain -> that action's part;
* an error about the goal (no plan, the goal already holds, unreachable) -> the goal; after
  two goal rewrites in a row, the facts and then the goal;
* anything else (an object used at two types, an undeclared name) -> the facts, then the goal;
* a simulation error -> the correction and the goal (the facts and the goal when the failed
  step cannot be read); the second in a row for the same action of a learned domain -> that
  action's precondition and effect, then the goal.

The rewrite request shows the part's last answer and the error. An answer identical to one
already refused for the same part is not used: it is drawn again with the next seed (up to
:data:`REDRAWS` times) and counted (``redrawn``).

Records: every call is a :class:`PartCall` (which part, why, its tokens, its answer, and what
code did with it: used, refused lines, redrawn); the loop writes them as a ``parts`` event.
``samples`` > 1 draws that many answers per part and keeps the first whose assembled files
pass ``pddlkit check`` (the goal: whose files also plan).
"""

from __future__ import annotations

import re
import string
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, Union

from pddlkit.llm.base import LLM

from .answer import AnswerError, Files, closing_bracket
from .base import INITIAL, SIMULATION_ERROR, SOLVER_ERROR, Context
from .llm_formalizer import RETRY_TEMPERATURE, PromptedLLM
from .schema_check import SchemaEvidence

BUNDLED = Path(__file__).parent / "prompts" / "modular"
PARTS = ("context", "predicates", "action", "types", "facts", "goal", "correction", "missing")
#: times the ``missing`` part is asked for one predicate in an episode (``ask_missing``)
MISSING_ASKS = 2
#: facts one ``missing`` answer may give (one for a single-valued predicate: where one is)
MISSING_FACTS = 4
#: ``missing`` parts asked in an episode because no place was left to go (one per predicate)
STALLED_ASKS = 3
#: times a part is drawn again when its answer is one already refused
REDRAWS = 3
#: goals offered to the model at most (the nearest reachable atoms)
GOAL_CANDIDATES = 24
#: answer tokens per part when the run sets no ``max_tokens`` (a part is short by design)
PART_TOKENS = {"predicates": 200, "action": 160, "types": 120, "facts": 200, "goal": 60,
               "correction": 8, "missing": 40}
#: words that are never names of things in an observation
STOP_WORDS = frozenset("""a an the you your are is was be been am i me my it its in into on at to
of and or but for from with by as this that these those there here what which who can cannot
see seen not no nothing do does did have has had will would could should then than so if
just also very some any all one".""".split())


class PartUnwritable(AnswerError):
    """No answer to a part can be written: its grammar has no choice (a facts part for a
    sentence that names nothing a predicate takes, such as "There is no front door here."
    once the world said the front door is not there). A facts part skips that sentence and
    records it as a part with no call; any other part says so as an unreadable answer.
    Measured with Qwen2.5-Coder 1.5B (CoinCollector 3 rooms, seed 14, commit 030c575):
    raised for that sentence, it spent the episode's six solver retries in one second with
    no call made, each retry failing the same way."""


@dataclass
class PartCall:
    """One call of the modular mode: the part it wrote and what code did with the answer."""

    part: str                 # "predicates", "action move", "facts", "goal"
    why: str                  # "initial", "update", "solver_error", "simulation_error"
    answer: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    seed: Optional[int] = None
    outcome: str = "used"     # "used", "redrawn: same as a refused answer", "unreadable", ...
    refused: list[str] = field(default_factory=list)   # lines code refused, with why
    rewritten: list[str] = field(default_factory=list)  # lines code kept changed, with why

    def to_dict(self) -> dict:
        return asdict(self)


def observed_names(texts, unknown: bool = False) -> list[str]:
    """Names that occur in ``texts``: words that are not :data:`STOP_WORDS`, and adjacent
    pairs of such words joined with ``_`` ("living room" -> living, room, living_room); a word
    followed by a number is one name with it ("cabinet 1" -> cabinet_1, as ALFWorld and the
    household name things and their commands say them: measured with Qwen2.5-Coder 1.5B on the
    household, the names offered were ``cabinet``, ``desk``, ..., so no file could name
    ``cabinet_1`` and no plan step could become "go to cabinet 1"). With
    ``unknown``, each also as ``unknown_<name>``: what is behind a closed door has no name in
    any observation, and a model must call it something (``unknown_north``)."""
    out: dict[str, None] = {}
    for text in texts:
        for sentence in re.split(r"[.!?,;:\n]", str(text).lower()):
            words = re.findall(r"[a-z][a-z0-9]*|[0-9]+", sentence)
            for i, word in enumerate(words):
                if word in STOP_WORDS or len(word) < 2 or word.isdigit():
                    continue
                after = words[i + 1] if i + 1 < len(words) else ""
                if after.isdigit():     # "cabinet 1" is one thing: cabinet_1, not cabinet
                    out[f"{word}_{after}"] = None
                    continue
                out[word] = None
                if after and after not in STOP_WORDS and len(after) > 1:
                    out[f"{word}_{after}"] = None
    if unknown:
        for name in list(out):
            out[f"unknown_{name}"] = None
    return list(out)


_ATOM = re.compile(r"\(\s*([A-Za-z][\w\-]*)((?:\s+[^\s()]+)*)\s*\)")


def _norm(text: str) -> str:
    return " ".join(text.replace("(", " ( ").replace(")", " ) ").split()).lower()


def _balanced(text: str, start: int) -> Optional[str]:
    """The balanced ``(...)`` starting at ``start``, or None when it is not closed."""
    end = closing_bracket(text, start)
    return None if end is None else text[start:end]


class ModularFormalizer(PromptedLLM):
    """``ModularFormalizer(llm, env_id)``: PDDLego+ with one part of the files per call (see
    the module docstring); a drop-in for :class:`~.llm_formalizer.LLMFormalizer`."""

    name = "pddlego-modular"

    def __init__(self, llm: Union[LLM, str], env_id: str, *, prompts: Optional[str] = None,
                 temperature: float = 0.0, max_tokens: Optional[int] = None,
                 constrained: bool = False, samples: int = 1, goal_style: str = "detailed",
                 novel_goals: bool = False, local_facts: bool = False,
                 typed_objects: bool = False, ask_missing: bool = False,
                 world_literals: bool = False, task_goals: bool = False,
                 command_facts: bool = False, task_focus: bool = False,
                 here_facts: bool = False, schema_check: bool = False) -> None:
        super().__init__(llm, env_id, prompts=prompts, temperature=temperature,
                         max_tokens=max_tokens)
        if samples < 1:
            raise ValueError(f"samples must be 1 or more, got {samples}")
        self.env_id = env_id
        self.constrained = constrained
        self.samples = samples
        self.novel_goals = novel_goals
        self.local_facts = local_facts
        self.typed_objects = typed_objects
        self.ask_missing = ask_missing
        self.world_literals = world_literals
        self.task_goals = task_goals
        self.command_facts = command_facts
        self.task_focus = task_focus
        self.here_facts = here_facts
        self.schema_check = schema_check
        #: how often each help changed something (label -> count), written by the loop as a
        #: ``help-acted`` event after each step and cleared (issue 73: rows count the helps
        #: that acted): a goal filter that removed or reordered candidates, a fact filter
        #: that removed facts, a sentence's facts pinned to where the agent is, a missing
        #: part asked for, a name declared from its type
        self.acted: Counter = Counter()
        self._task_words: set[str] = set()
        self.guidance = self.prompts.fill(f"goal_{goal_style}").strip()
        self.templates = _templates(prompts)
        self.fixed_domain: Optional[str] = None   # set by the loop (a frozen domain)
        #: keep the domain written (predicates, schemas, their evidence) from one episode to
        #: the next (``--keep-domain``: learning over episodes, ``pddlkit learn-domain``)
        self.keep_domain = False
        self.problem_only = False                  # accepted for the loop; always so here
        self.modes: list[str] = []
        self.calls: list[PartCall] = []            # every call of the episode
        self.last_parts: list[PartCall] = []       # the calls of the last propose
        self.redrawn = 0
        self.last_prompt = ""
        self._reset()

    # -- episode state -------------------------------------------------------------------
    def _reset(self) -> None:
        kept = (self.predicates, self.bodies, self.evidence) \
            if getattr(self, "keep_domain", False) else None
        self.predicates: list[str] = []            # "(at ?r - room)"
        self.bodies: dict[str, str] = {}           # action -> ":precondition ... :effect ..."
        self.base: list[str] = []                  # facts progressed through what ran
        self.chunk: list[str] = []                 # facts from the last facts part
        self.goal = ""
        self.ever: set[str] = set()                # every fact true in a state so far
        self._been: set[str] = set()               # goals novel_goals left out: reached
        self.seen = 0                              # history entries the facts parts covered
        self.last_files: Optional[Files] = None
        self.answers: dict[str, str] = {}          # part -> its last answer
        self._refused: dict[tuple[str, str], str] = {}
        self._asked: dict[tuple[str, str], int] = {}
        self._goal_rewrites = 0
        self._failed_actions: dict[str, int] = {}
        self.failed_step: Optional[str] = None
        self._said = False                         # whether the last one was said
        self._written_last: list[str] = []
        self._signatures_seen: dict = {}
        self._sentence = ""                        # the sentence a facts call reads
        self._facts_from = 0                       # history index the last facts part read from
        self.name_types: dict[str, str] = {}       # word -> its type, or NONE (types part)
        self._missing_asked: dict[str, int] = {}   # predicate -> missing parts asked
        self._stalled_asked: list[str] = []        # ... asked with no place left to go
        self._planner_error = ""                   # the last solver error (ask_missing)
        self._declared_typed: set[str] = set()     # typed_objects: declared so far
        self._withdrawn: Optional[str] = None      # ... and one the world said is not there
        self._withdrawn_names: set[str] = set()    # ... typed again when a sentence names it
        self._command_names: set[str] = set()      # command_facts: every name a command filled
        self._command_typed: dict[str, str] = {}   # ... name -> the type a command gave it
        self._closed_types: set[str] = set()       # ... types whose names the commands list
        self._reread = False                       # ... names of one were typed anew
        self._world_failed: Optional[tuple[str, bool]] = None   # world_literals
        self._world_pattern: Optional[str] = None  # ... no values make this true
        self.world_corrected: list[str] = []       # ... applied, since the loop last read it
        self.typed_declared: list[str] = []        # ... newly, since the loop last read it
        self.command_derived: list[str] = []       # command_facts: facts and types added,
        self.command_dropped: list[str] = []       # ... facts dropped, since the loop read them
        self._commands_said: set[str] = set()      # ... facts said in this propose
        self._rewrites: list[str] = []             # lines the last _read kept changed
        self.evidence = SchemaEvidence()           # schema_check: the episode's transitions
        self.schema_refuted: list[str] = []        # ... findings acted on, since the loop read
        self.observed_after: list[dict] = []       # ... a one-command plan's effects, same
        if kept is not None:
            self.predicates, self.bodies, self.evidence = kept
            self.evidence.new_episode()

    # -- the loop's calls ----------------------------------------------------------------
    def propose(self, context: Context) -> Files:
        if context.kind == INITIAL and context.previous is None and self.last_files is not None:
            self._reset()
        self.last_parts = []
        self._task_words = {w for w in re.findall(r"[a-z][a-z0-9]*", context.memory.task.lower())
                            if w not in STOP_WORDS}
        signatures = _signatures(context.signatures)
        self._signatures_seen = signatures
        targets = self._targets(context, signatures)
        if context.kind in (SOLVER_ERROR, SIMULATION_ERROR):
            for part in self._written_last:   # the answers that led to the error
                if part in targets and part in self.answers \
                        and part not in ("facts", "correction"):
                    self._refused[self._refusal_key(part, self.answers[part])] = \
                        context.error or ""
        self._written_last = []
        self._commands_said = set()
        self._from_commands(context, signatures)
        for part in targets:
            if part == "goal":
                self._recheck_schemas(context, signatures)
            if part == "goal" and self.ask_missing and context.kind not in (
                    SOLVER_ERROR, SIMULATION_ERROR):
                stalled = self._stalled_predicate()
                if stalled:   # every place visited, and an action needs a fact none holds
                    self._stalled_asked.append(stalled)
                    self.acted["ask-missing"] += 1
                    if self._write(f"missing {stalled}", context, signatures):
                        self._written_last.append(f"missing {stalled}")
            if part == "facts":
                self._write_facts(context, signatures)
                self._written_last.append(part)
                continue
            if part.startswith("missing "):   # a none or unreadable answer: go on without
                if part.split(" ", 1)[1] in self._held_predicates():
                    continue                  # the facts re-read just now hold it
                if self._write(part, context, signatures):
                    self._written_last.append(part)
                continue
            if part == "correction":
                if not self._write_correction(context, signatures):
                    self._write_facts(context, signatures)   # no correction fits: re-read
                self._written_last.append(part)
                continue
            if self._write(part, context, signatures):
                self._written_last.append(part)
                continue
            if part.startswith("action ") and part.split(" ", 1)[1] in self.bodies \
                    and self.evidence.transitions and self.schema_check:
                # schema_check refused every rewrite: the schema stays (see _recheck_schemas)
                self.evidence.set_aside.add(part.split(" ", 1)[1])
                continue
            # every draw refused or unreadable: ask another part (the facts behind the goal)
            # before this one again, else say so as an unreadable answer
            if part != "facts" and "facts" not in self._written_last \
                    and self._write_facts(context, signatures) \
                    and self._write(part, context, signatures):
                self._written_last += ["facts", part]
                continue
            last = next((c for c in reversed(self.last_parts) if c.part == part), None)
            raise AnswerError(f"the {part} part: " + (last.outcome if last else "no answer"))
        files = self._assemble(context, signatures)
        self.last_files = files
        return files

    def observe(self, transitions: list) -> None:
        """The last plan's transitions (the loop's :class:`~.base.LearnsFromTransitions`):
        evidence for ``schema_check`` while the model writes the domain."""
        if self.schema_check and self.fixed_domain is None:
            self.evidence.add(transitions)

    def _recheck_schemas(self, context: Context, signatures: dict) -> None:
        """``schema_check``: the first finding of the evidence against the model's domain
        not yet acted on names one action; its schema is refused and asked for again alone
        (:mod:`.schema_check`). When no draw gets past the evidence, the schema stays and is
        not asked for again in the episode: the facts believed before the transition may be
        what is wrong, and an episode is not ended over it (measured with Qwen2.5-Coder 1.5B
        on CoinCollector, dev seed 0: open-door's schema refuted by a refused "open door to
        east" (an open doorway), the same three schemas drawn in turn, first until the
        solver retries ran out, then, with each finding asked once, 12 calls a step). The
        event says so."""
        if not (self.schema_check and self.fixed_domain is None and self.predicates):
            return
        finding = self.evidence.first_new(self._domain_text(signatures))
        if finding is None or finding.schema not in signatures:
            return
        part = f"action {finding.schema}"
        if finding.schema in self.bodies:
            self.evidence.refuse(finding.schema, self.bodies[finding.schema])
        self.acted["schema-check"] += 1
        self.schema_refuted.append(finding.format())
        if not self._write(part, context, signatures):
            self.evidence.set_aside.add(finding.schema)
            self.schema_refuted[-1] += (" (no rewrite explained every transition: the schema "
                                        "stays, not asked for again in this episode)")
            return
        self._written_last.append(part)

    def ran(self, steps: list[str]) -> None:
        """The plan's steps that ran in the world (all of them: the loop calls this only when
        the plan did not fail): the init is progressed through them under the model's
        domain, and becomes the base the next facts are added to."""
        if self.last_files is None:
            return
        from pddlkit.pddl.reader import read_domain, read_problem
        from pddlkit.semantics.simulate import simulate
        from pddlkit.semantics.state import format_atom
        from pddlkit.semantics.world import World

        dom, _ = read_domain(self.last_files.domain)
        prob, _ = read_problem(self.last_files.problem)
        if dom is None or prob is None:
            return
        world = World(dom, prob)
        state = world.initial_state
        # every state the plan passed through, its first included: a goal true in any of them
        # is one the agent has reached (novel_goals)
        self.ever.update(format_atom(a) for a in state.atoms)
        for step in steps:
            simulated = simulate(world, state, step)
            if not simulated.applicable:
                break
            state = simulated.successor
            self.ever.update(format_atom(a) for a in state.atoms)
        self.base = sorted(format_atom(a) for a in state.atoms)
        self.chunk = []
        self._goal_rewrites = 0
        self._failed_actions = {}

    def failed(self, step: Optional[str], info: Optional[dict] = None) -> None:
        """The plan step (``(move corridor patio south)``) whose command failed in the world:
        the next revision asks which of its preconditions was wrong (the ``correction``
        part). With ``typed_objects``, when the world's ``info["failed"]`` says an object
        is not there (``{"object": "room"}``) and that name was declared only because the
        model typed it, the name is withdrawn (typed NONE: no longer declared or offered)
        and the revision asks for the goal alone: no precondition was wrong (measured with
        Qwen2.5-Coder 1.5B on the household: "middle" and "room" of "the middle of a room"
        typed as receptacles, gone to, "You don't see any room here.", and the correction
        then took away where the agent was)."""
        self.failed_step = step
        self._withdrawn = None
        failed = info.get("failed") if isinstance(info, dict) else None
        self._world_failed = None
        self._world_pattern = None
        pattern = failed.get("pattern") if isinstance(failed, dict) else None
        if isinstance(pattern, str) and failed.get("holds") is False \
                and pattern.count("(") == pattern.count(")") == 1:
            words = _words(pattern.lower())
            if words and all(re.fullmatch(r"\??[a-z][\w\-]*", w) for w in words):
                self._world_pattern = "(" + " ".join(words) + ")"
        literal = failed.get("literal") if isinstance(failed, dict) else None
        if isinstance(literal, str) and literal.count("(") == literal.count(")") <= 1 \
                and isinstance(failed.get("holds"), bool):   # one atom, "( opened x )" too
            words = _words(literal.lower())
            if words and all(re.fullmatch(r"[a-z][\w\-]*", w) for w in words):
                self._world_failed = ("(" + " ".join(words) + ")", failed["holds"])
        name = failed.get("object") if isinstance(failed, dict) else None
        name = name.strip().lower() if isinstance(name, str) \
            and re.fullmatch(r"\s*[a-z][\w\-]*\s*", name.lower()) else ""
        if not name:
            return
        gone = [f for f in self._facts() + self.chunk if name in _words(f)]
        if self._close_type(name, gone):
            # a name the model's facts used at a type the commands name every one of: the
            # type was wrong, not the name (a room typed as a direction); its facts go, and
            # it is typed again (not at that type) with the last observation's facts
            self.base = [f for f in self.base if name not in _words(f)]
            self.chunk = [f for f in self.chunk if name not in _words(f)]
            self.world_corrected += [f"(not {f})" for f in dict.fromkeys(gone)]
            return
        typed = self.name_types.get(name, "NONE") != "NONE"
        # typed by the model, in no fact (declared so, or named by the goal alone: measured,
        # "open" of "You open the cabinet 1" typed as a receptacle and gone to)
        withdraw = self.typed_objects and typed and not gone
        if not withdraw and self.world_literals and (gone or typed):
            # the world says no such thing is there: the model's facts about it are about
            # nothing (measured: "You are in the middle of a room" as (heater middle), then
            # "go to middle": "You don't see any middle here.")
            self.base = [f for f in self.base if name not in _words(f)]
            self.chunk = [f for f in self.chunk if name not in _words(f)]
            self.world_corrected += [f"(not {f})" for f in dict.fromkeys(gone)]
            withdraw = True
        if withdraw:
            self.name_types[name] = "NONE"
            self._declared_typed.discard(name)
            self._withdrawn = name
            self._withdrawn_names.add(name)

    def _close_type(self, name: str, gone: list[str]) -> bool:
        """``command_facts``: the world refused ``name`` as no such thing, and the type the
        model gave it is one the commands fill (``move east``: a direction). From now on a
        fact may give that type only the names the commands gave it. Measured with
        Qwen2.5-Coder 1.5B on CoinCollector 5 rooms (seed 0, commit 030c575): after a door
        was opened, the model named the way `door`, then `open`, `unknown_open`,
        `unknown_door`, `unknown_wooden_door`, `unknown_wooden`; each move was refused as
        "not a direction" and each refuted name replaced by a new one, until the simulation
        retries ran out. The model's other names of that type, and ``name`` itself when its
        facts (``gone``) used it, are typed again with the last observation's facts
        (measured, 3 rooms seed 14 at daadc89: "the corridor" typed as a direction kept the
        agent, by the model's facts, in the room it had left). Recorded as
        ``facts-from-commands`` lines. True when ``name`` is to be typed again."""
        if not self.command_facts:
            return False
        kind = self.name_types.get(name)
        if not kind or kind == "NONE":
            kind = self._fact_types().get(name, (None,))[0]
        if not kind or kind not in self._command_typed.values() \
                or self._command_typed.get(name) == kind:
            return False
        retyped = [name] if gone else []
        if kind not in self._closed_types:
            self._closed_types.add(kind)
            listed = sorted(n for n, k in self._command_typed.items() if k == kind)
            self.command_derived.append(f"{kind}: only {', '.join(listed)} (the commands' "
                                        f"names; the world has no {name})")
            retyped += [n for n, k in self.name_types.items()
                        if k == kind and n != name and self._command_typed.get(n) != kind]
        for n in retyped:
            self.name_types.pop(n, None)
            self._withdrawn_names.discard(n)
            self.command_derived.append(f"{n}: not a {kind}; asked again")
        self._reread = bool(retyped)
        return bool(gone)

    # -- which parts -----------------------------------------------------------------------
    def _targets(self, context: Context, signatures: dict) -> list[str]:
        learned = self.fixed_domain is None
        domain_parts = [] if not learned or self.predicates else \
            ["predicates"] + [f"action {name}" for name in signatures]
        if context.kind not in (SOLVER_ERROR, SIMULATION_ERROR):
            new = len(context.memory.history) > self.seen or not self.chunk and not self.base
            return domain_parts + (["facts"] if new else []) + ["goal"]
        error = (context.error or "").lower()
        if error.startswith("your answer could not be read"):
            # the planner's last why-no-plan still holds (measured: "none" once, then every
            # goal redrawn as refused, and the facts re-read five times over)
            missing = self._missing_predicate(self._planner_error)
            if missing:
                return ["facts", f"missing {missing}", "goal"]
            return ["facts", "goal"]
        if context.kind == SOLVER_ERROR:
            self._planner_error = context.error or ""
        if context.kind == SIMULATION_ERROR and self._reread:
            self._reread = False          # names typed anew: the last facts read again
            self._withdrawn = None
            return ["facts", "goal"]
        if context.kind == SIMULATION_ERROR and self._withdrawn:
            self._withdrawn = None        # a name that is not there: only the goal changes
            return ["goal"]
        if context.kind == SIMULATION_ERROR and self.world_literals \
                and self._apply_world_corrections():
            return ["goal"]               # the world said which literal: code corrects it
        if context.kind == SIMULATION_ERROR:
            action = _action_of(context.failed_action or "", context, signatures)
            count = self._failed_actions.get(action or "", 0) + 1
            if action:
                self._failed_actions[action] = count
            if learned and action and count >= 2 and action not in self.evidence.set_aside:
                return [f"action {action}", "goal"]
            if self._corrections():
                return ["correction", "goal"]
            return ["facts", "goal"]
        if learned:
            for name in signatures:
                if re.search(rf"(action|:action)\s+'?{re.escape(name)}\b", error):
                    return [f"action {name}", "goal"]
        missing = self._missing_predicate(context.error or "")
        if missing:
            return [f"missing {missing}", "goal"]
        if "goal" in error or "no plan" in error or "unsolvable" in error \
                or "unreachable" in error:
            self._goal_rewrites += 1
            if self._goal_rewrites <= 2:
                return ["goal"]
            self._goal_rewrites = 0
        return ["facts", "goal"]

    def _missing_predicate(self, error: str) -> Optional[str]:
        """``ask_missing``: the first predicate the planner's why-no-plan says an action's
        precondition needs and never has (``its precondition (atlocation ?from) is never
        true``) that no known fact holds and that was asked for fewer than
        :data:`MISSING_ASKS` times, counted as asked once more; None when there is none."""
        if not self.ask_missing:
            return None
        held = self._held_predicates()
        arities = {name: len(params) for name, params in self._signature_list()}
        for found in re.finditer(r"precondition \(([\w\-]+)[^)]*\) is never true", error):
            predicate = found.group(1).lower()
            if predicate in arities and predicate not in held \
                    and self._missing_asked.get(predicate, 0) < MISSING_ASKS:
                self._missing_asked[predicate] = self._missing_asked.get(predicate, 0) + 1
                self.acted["ask-missing"] += 1
                return predicate
        return None

    def _stalled_predicate(self) -> Optional[str]:
        """``ask_missing`` before a goal: when no place is left to go (no atom of a
        single-valued predicate, such as ``atlocation``, is reachable and never true so far),
        the first predicate that an action's precondition needs, that no action adds and
        that no known fact holds (``openable``: measured with Qwen2.5-Coder 1.5B on the
        household, "The cabinet 1 is closed." came out as ``(heater cabinet_1)`` at every
        receptacle, so nothing could ever be opened); each predicate once, at most
        :data:`STALLED_ASKS` in an episode. None otherwise."""
        dom = self._domain_model()
        if dom is None or len(self._stalled_asked) >= STALLED_ASKS:
            return None
        single = self._single_valued()
        ever = self.ever | set(self._facts())
        if not any(_head(f) in single for f in self._facts()) or any(
                _head(atom) in single and atom not in ever
                for atom in self._reachable_goals()):
            return None   # nowhere known to be, or somewhere left to go
        from pddlkit.pddl.model import And, Atom, iter_effect_literals

        added = {lit.atom.predicate.lower() for a in dom.actions
                 for lit in iter_effect_literals(a.effects) if lit.positive}
        held = self._held_predicates()
        for action in dom.actions:
            parts = action.precondition.parts if isinstance(action.precondition, And) \
                else [action.precondition]
            for atom in parts:
                if not isinstance(atom, Atom) or not atom.args:
                    continue
                predicate = atom.predicate.lower()
                if predicate not in added and predicate not in held \
                        and predicate not in self._stalled_asked:
                    return predicate
        return None

    # -- one part --------------------------------------------------------------------------
    def _write(self, part: str, context: Context, signatures: dict) -> bool:
        """Ask for ``part`` and keep the answer; False when every draw was unreadable or
        the same as an answer already refused for this part."""
        prompt = self._prompt(part, context, signatures)
        try:
            grammar = self._grammar(part, context, signatures) if self.constrained else None
        except ValueError as exc:   # no predicate fits the names known: say so, as data
            raise PartUnwritable(f"the {part} part cannot be written yet: {exc}") from None
        budget = PART_TOKENS[part.split()[0]]
        max_tokens = min(self.max_tokens, budget) if self.max_tokens else budget
        key = (part, prompt)
        draws = self._asked.get(key, 0)
        chosen: Optional[tuple[str, PartCall]] = None
        asked = prompt
        for attempt in range(REDRAWS + self.samples):
            draw = draws + attempt
            temperature = max(self.temperature, RETRY_TEMPERATURE) if draw else self.temperature
            t0 = time.monotonic()
            extra = {"constraint": grammar} if grammar is not None else {}
            self.last_prompt = asked
            answer = self.llm.complete([{"role": "user", "content": asked}],
                                       temperature=temperature, seed=draw or None,
                                       max_tokens=max_tokens, **extra)
            if grammar is not None:
                self.modes.append(answer.constraint_mode)
            call = PartCall(part, context.kind, answer.text, answer.prompt_tokens,
                            answer.completion_tokens, round(time.monotonic() - t0, 3),
                            draw or None)
            self.calls.append(call)
            self.last_parts.append(call)
            if self._refusal_key(part, answer.text) in self._refused:
                call.outcome = "redrawn: the same as an answer already refused for this part"
                self.redrawn += 1
                refused = [a for (p, a, _rest) in self._refused if p == part][-3:]
                asked = (prompt + "\nThese answers for this part were refused already; write "
                         "a different one:\n" + "\n".join(refused) + "\n")
                continue
            self._rewrites = []
            kept, refused = self._read(part, answer.text, context, signatures)
            call.refused, call.rewritten = refused, self._rewrites
            if kept is None:
                call.outcome = "unreadable: " + (refused[0] if refused else "no part found")
                if part.startswith("action ") and part.split(" ", 1)[1] in self.evidence.asking:
                    asked = self._prompt(part, context, signatures)   # the newest finding
                continue
            if self.samples > 1 and not self._sample_ok(part, kept, context, signatures):
                call.outcome = "sample not used: the files did not pass check" + \
                    (" and plan" if part == "goal" else "")
                chosen = chosen or (kept, call)
                if attempt + 1 >= self.samples:
                    break
                continue
            chosen = (kept, call)
            break
        self._asked[key] = draws + sum(1 for c in self.last_parts if c.part == part)
        if chosen is None:
            return False
        kept, call = chosen
        call.outcome = "used"
        self.answers[self._answer_key(part)] = call.answer
        self._store(part, kept, context)
        return True

    def _write_facts(self, context: Context, signatures: dict) -> bool:
        """The facts part, one call per sentence of the new observations (the task's sentence
        left out): a small model reads one sentence far better than a paragraph."""
        history = context.memory.history
        task = context.memory.task.strip()
        sentences = []
        if self.seen >= len(history):   # a revision: the sentences of the last facts part
            self.seen = self._facts_from
        self._facts_from = self.seen
        for _action, text in history[self.seen:]:
            text = text.replace(task, " ") if task else text
            for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
                sentence = sentence.strip()
                if re.search(r"[a-zA-Z]{2}", sentence) and not sentence.lower().startswith(
                        "your task is"):
                    sentences.append(sentence)
        self.chunk = []
        wrote = False
        for sentence in dict.fromkeys(sentences):
            self._sentence = sentence
            for word in set(observed_names([sentence])) & self._withdrawn_names:
                if self.command_facts and word not in self._command_names:
                    continue   # a command vouches for a thing; a sentence's word may be a verb
                self.name_types.pop(word, None)     # seen now: "not there" was for then
                self._withdrawn_names.discard(word)
            if self._untyped_words():
                self._write("types", context, signatures)
            try:
                wrote = self._write("facts", context, signatures) or wrote
            except PartUnwritable as exc:   # it names nothing a predicate takes: no call
                self.last_parts.append(PartCall("facts", context.kind, "", outcome=(
                    f"skipped, no call: {exc.args[0]} (the sentence: {sentence!r})")))
        self._sentence = ""
        self.seen = len(history)
        observed = self.evidence.observe_after(self.chunk)   # schema_check: what it did
        if observed is not None:
            self.observed_after.append({"where": observed.where,
                                        "observed": sorted(observed.observed)})
        self._from_commands(context, signatures)   # the chunk was written anew
        return wrote

    def _from_commands(self, context: Context, signatures: dict) -> None:
        """``command_facts``: what the environment's valid commands say, in code (see the
        module docstring): each command read through its action's command template gives
        its names their parameter's type, and a ground action the world says it can run
        now, whose precondition's atoms (those of its conjunction, all of whose arguments
        the command names) hold; they join the new facts, replacing a single-valued fact of
        the same slot and a fact the domain never lets hold with them. A known fact that
        gives a name a command typed in this call a type the command's is not (a subtype of)
        is dropped. A name two commands type differently is left alone. Only with a frozen
        domain: a learned precondition is the model's guess, not the world's. Recorded in
        :attr:`command_derived` and :attr:`command_dropped`."""
        if not self.command_facts or not signatures or not self.fixed_domain:
            return
        dom = self._domain_model()
        if dom is None:
            return
        types = {t.name.lower() for t in dom.types}
        reserved = _reserved(dom)
        kinds = self._kinds()
        single = self._single_valued()
        read = []   # (action, binding) of each command read
        for command in context.valid_actions:
            bound = _bind_command(str(command), signatures)
            if bound is None:
                continue
            name, binding = bound
            try:
                action = dom.action(name)
            except KeyError:
                continue
            if not set(binding) <= {p.name.lower() for p in action.parameters} or any(
                    v in reserved or len(v) > MAX_NAME for v in binding.values()):
                continue   # "go to and", "take receptacle from obj": not things' names
            read.append((action, binding))
        told: dict[str, set[str]] = {}   # name -> the types the commands give it
        for action, binding in read:
            for p in action.parameters:
                value = binding.get(p.name.lower())
                if value:
                    told.setdefault(value, set()).add(
                        p.types[0].lower() if len(p.types) == 1 else "")
        clash = {n for n, ts in told.items() if len(ts) > 1}   # "take drawer 1 from drawer 1"
        command_types = {n: next(iter(ts)) for n, ts in told.items()
                         if n not in clash and next(iter(ts)) in types}
        derived: list[str] = []
        for action, binding in read:
            if set(binding.values()) & clash:
                continue
            self._command_names.update(binding.values())
            for atom in _conjuncts(action.precondition):
                args = [binding.get(a.lower()) if a.startswith("?") else a.lower()
                        for a in atom.args]
                if all(args) and atom.predicate.lower() in kinds:
                    derived.append("(" + " ".join([atom.predicate.lower(), *args]) + ")")
        self._command_typed.update(command_types)
        for value, kind in command_types.items():
            if self.name_types.get(value) != kind:
                self.name_types[value] = kind
                self.command_derived.append(f"{value} - {kind}")
        derived = list(dict.fromkeys(derived))
        vouched = set(derived)
        parents = dom.type_parents

        def fits(name_type: str, wanted: str) -> bool:   # name_type is wanted or below it
            seen, todo = set(), [name_type]
            while todo:
                t = todo.pop()
                if t == wanted or wanted == "object":
                    return True
                if t not in seen:
                    seen.add(t)
                    todo.extend(parents.get(t, ()))
            return False
        # a known fact typing a name a command typed now otherwise is wrong
        wrong = {f for f in self.base + self.chunk if f not in vouched and any(
            a in command_types and k is not None and not fits(command_types[a], k)
            for a, k in zip(_words(f)[1:], kinds.get(_head(f), [])))}
        exclusive = self._exclusive()
        for fact in derived:   # one value of a single-valued slot: the command's
            words = _words(fact)
            for f in self.base + self.chunk:
                if f in vouched:
                    continue
                other = _words(f)
                if words[0] in single and other[0] == words[0] and (
                        len(words) < 3 or other[1:2] == words[1:2]):
                    wrong.add(f)
                # a fact the domain says cannot hold with the command's (an object held and
                # in a receptacle; the hand empty and an object held)
                elif other[0] in exclusive.get(words[0], ()) and (
                        len(words) == 1 or len(other) == 1 or other[1] == words[1]):
                    wrong.add(f)
        known = set(self._facts())
        new = [f for f in derived if f not in known]
        if wrong:
            self.base = [f for f in self.base if f not in wrong]
            self.chunk = [f for f in self.chunk if f not in wrong]
            self.command_dropped += sorted(wrong)
        self.chunk = self.chunk + new
        # the chunk is written anew after the facts parts: a fact read again is said once
        self.command_derived += [f for f in new if f not in self._commands_said]
        self._commands_said.update(new)

    def _write_correction(self, context: Context, signatures: dict) -> bool:
        """Ask which predicate the world's message is about, among those of the corrections
        (see :meth:`_corrections`), and apply the first correction over it. Measured with
        Qwen2.5-Coder 1.5B on "The door to the south is closed.": asked to pick a correction
        from the list it picked ``(not (at corridor))``; asked yes or no per correction it
        said no to all (or, worded otherwise, yes to all); asked which predicate the message
        is about it said ``has-door``."""
        said = self._write("correction", context, signatures) and self._said
        self.failed_step = None
        return said

    def _against_evidence(self, action: str, body: str, signatures: dict) -> Optional[str]:
        """``schema_check``: why ``body`` is not kept as ``action``'s schema (refused before,
        or refuted by a transition: :meth:`.schema_check.SchemaEvidence.check_body`)."""
        if not (self.schema_check and self.fixed_domain is None and self.predicates):
            return None
        saved = self.bodies.get(action)
        self.bodies[action] = body
        try:
            domain = self._domain_text(signatures)
        finally:
            if saved is None:
                del self.bodies[action]
            else:
                self.bodies[action] = saved
        return self.evidence.check_body(action, body, domain)

    def _answer_key(self, part: str) -> str:
        """Parts written per sentence (types, facts) keep their last answer per sentence."""
        return f"{part}: {self._sentence}" if part in ("types", "facts") and self._sentence \
            else part

    def _untyped_words(self) -> list[str]:
        """The sentence's words no earlier part has typed (see :meth:`_typed_names`)."""
        return [n for n in observed_names([self._sentence]) if n not in self.name_types]

    def _refusal_key(self, part: str, answer: str) -> tuple[str, str, str]:
        """An answer is refused together with the rest of the files it was assembled with:
        the same goal over other facts makes other files, which may plan."""
        rest = [self.predicates, sorted(self.bodies.items()), self.base]
        rest.append([self.goal, self._sentence] if part == "facts" else self.chunk)
        return part, _norm(answer), _norm(repr([r for r in rest]))

    def _sample_ok(self, part: str, kept, context: Context, signatures: dict) -> bool:
        from pddlkit.checks import check

        saved = (list(self.predicates), dict(self.bodies), list(self.chunk), self.goal)
        self._store(part, kept, context, counting=False)
        try:
            files = self._assemble(context, signatures)
            ok = check(files.domain, files.problem).ok
            if ok and part == "goal":
                import pddlkit

                ok = pddlkit.plan(files.domain, files.problem, timeout=10).solved
        finally:
            self.predicates, self.bodies, self.chunk, self.goal = saved
        return ok

    def _store(self, part: str, kept, context: Context, counting: bool = True) -> None:
        if part == "predicates":
            self.predicates = kept
        elif part.startswith("action "):
            self.bodies[part.split(" ", 1)[1]] = kept
        elif part == "facts":
            self.chunk = self.chunk + [f for f in kept if f not in self.chunk]
        elif part == "correction":
            correction = next((c for c in self._corrections()
                               if self._predicate_of(c) == kept), "")
            self._said = bool(correction)
            if not self._said or not counting:
                return
            fact = correction[len("(not "):-1] if correction.startswith("(not ") else correction
            if correction.startswith("(not "):
                self.base = [f for f in self.base if f != fact]
                self.chunk = [f for f in self.chunk if f != fact]
            elif fact not in self.chunk:
                self.chunk = self.chunk + [fact]
        elif part == "types":
            for word, kind in kept.items():
                self.name_types.setdefault(word, kind)
        elif part.startswith("missing "):   # facts that hold now: kept with the state
            if counting:
                self.base = self.base + [f for f in kept if f not in self.base]
        else:
            self.goal = kept

    # -- reading answers -------------------------------------------------------------------
    def _read(self, part: str, text: str, context: Context, signatures: dict):
        """(what to keep, lines refused with why); (None, [why]) when nothing can be kept."""
        text = text.strip().strip("`")
        if part == "predicates":
            kept, refused = [], []
            types = set(_types(signatures))
            for m in _ATOM.finditer(text):
                words = m.group(2).split()
                params, ok, i = [], True, 0
                while i < len(words):
                    if words[i].startswith("?"):
                        if i + 2 < len(words) and words[i + 1] == "-":
                            params.append(f"{words[i]} - {words[i + 2]}")
                            ok = ok and (words[i + 2] in types)
                            i += 3
                            continue
                        params.append(words[i])
                        i += 1
                        continue
                    ok = False
                    break
                line = f"({m.group(1).lower()}" + "".join(" " + p for p in params) + ")"
                if not ok:
                    refused.append(f"{m.group(0)}: not a typed predicate over {sorted(types)}")
                elif m.group(1).lower() in {k.split()[0].strip('(') for k in kept}:
                    refused.append(f"{m.group(0)}: declared twice")
                else:
                    kept.append(line)
            covered = {w for line in kept for w in line.strip("()").split()}
            missing = [t for t in _types(signatures) if t != "object" and t not in covered]
            if kept and missing:   # an action's parameter of that type would be unconstrained
                return None, refused + [f"no predicate has a parameter of type "
                                        f"{', '.join(missing)}, which the actions' parameters "
                                        "have"]
            return (kept or None), (refused or ["no predicate found"] if not kept else refused)
        if part.startswith("action "):
            pre = text.lower().find(":precondition")
            eff = text.lower().find(":effect")
            if eff < 0:
                return None, ["no :effect"]
            start = text.find("(", eff)
            effect = _balanced(text, start) if start >= 0 else None
            condition = None
            if pre >= 0:
                start = text.find("(", pre)
                condition = _balanced(text, start) if 0 <= start < eff else None
            if not effect or effect.replace(" ", "") in ("()", "(and)"):
                return None, ["the effect is empty"]
            body = (f":precondition {condition}\n    " if condition else "") + \
                f":effect {effect}"
            why = self._against_evidence(part.split(" ", 1)[1], body, signatures)
            return (None, [why]) if why else (body, [])
        if part == "correction":
            named = {self._predicate_of(c) for c in self._corrections()}
            found = re.search(r"[a-z][\w\-]*", text.lower())
            if found is None or found.group(0) not in named:
                return None, [f"not one of the predicates {', '.join(sorted(named))}"]
            return found.group(0), []
        if part == "types":
            kinds = {t.upper(): t for t in self._type_names()}
            found = {}
            for word, kind in re.findall(r"([a-z][\w\-]*)\s*=\s*([A-Za-z]+)", text):
                kind = kind.upper()
                found[word.lower()] = kinds.get(kind, "NONE")
            wanted = self._untyped_words()
            closed = {w: found[w] for w in wanted if found.get(w) in self._closed_types
                      and w not in self._command_typed}   # the commands name every one
            refused = [f"{w}={k.upper()}: the commands name every {k}, not {w}"
                       for w, k in closed.items()]
            found = {w: k for w, k in found.items() if w not in closed}
            if not any(w in found for w in wanted):
                return None, ["no word=TYPE found"] + refused
            return {w: found[w] for w in wanted if w in found}, refused
        arities = self._arities(signatures)
        # labelled parameters: ?from=kitchen; a space in their place, as the grammar lets
        # "(atlocation?r=countertop_1)" through (measured: read as "(atlocationcountertop_1)")
        text = re.sub(r"\s*\?[\w\-]+\s*=\s*", " ", text)
        if part.startswith("missing "):
            return self._read_missing(part.split(" ", 1)[1], text, arities, context)
        if part == "facts":
            names = set(self._fact_names(context))
            mentioned = set(observed_names([self._sentence]))
            kinds = self._kinds()
            typed = {}                       # name -> (type, the fact that fixed it)
            for fact in self.base:
                self._type_of(fact, kinds, typed)
            kept, refused = [], []
            pins = self._pins() or {}
            for m in _ATOM.finditer(text):
                predicate, args = m.group(1).lower(), m.group(2).lower().split()
                fact = "(" + " ".join([predicate, *args]) + ")"
                pinned = [(i, name) for i, name in pins.get(predicate, {}).items()
                          if i < len(args) and args[i] != name]
                if predicate not in arities:
                    refused.append(f"{fact}: no predicate {predicate} in the domain")
                elif arities[predicate] != len(args):
                    refused.append(f"{fact}: {predicate} takes {arities[predicate]} "
                                   "argument(s)")
                elif any(a not in names for a in args):
                    unseen = next(a for a in args if a not in names)
                    refused.append(f"{fact}: no observation names {unseen}")
                elif self._sentence and args and not set(args) & mentioned:
                    refused.append(f"{fact}: names nothing the sentence names")
                elif pinned:   # here_facts: read where the agent is, from where it is
                    refused.append(f"{fact}: argument {pinned[0][0] + 1} of {predicate} is "
                                   f"where the agent is, {pinned[0][1]}")
                else:
                    fact = self._away(predicate, args, pins) if pins else fact
                    clash = None if fact in kept else self._type_of(fact, kinds, typed)
                    if clash:
                        refused.append(f"{fact}: {clash}")
                    elif fact not in kept:
                        kept.append(fact)
            if not kept and refused:
                return None, refused
            return kept, refused
        start = text.lower().find("(:goal")
        goal = _balanced(text, start) if start >= 0 else None
        if goal is None:
            atoms = [m.group(0) for m in _ATOM.finditer(text)]
            if not atoms:
                return None, ["no (:goal ...) found"]
            goal = "(:goal " + (atoms[0] if len(atoms) == 1
                                else "(and " + " ".join(atoms) + ")") + ")"
        goal = " ".join(goal.lower().split())
        candidates = self._goal_candidates()
        inner = goal[len("(:goal"):-1].strip()
        if candidates and _norm(inner) not in {_norm(c) for c in candidates}:
            if _norm(inner) in {_norm(c) for c in self._been}:
                return None, [f"{inner}: already true earlier in this episode (novel goals: "
                              f"choose one never reached: {', '.join(candidates[:3])})"]
            return None, [f"{inner}: not one of the goals the known facts can reach"]
        return goal, []

    def _read_missing(self, predicate: str, text: str, arities: dict, context: Context):
        """The ``missing`` part's answer: its facts of ``predicate`` over names their types
        allow (see :meth:`_missing_names`; the first only, for a single-valued predicate);
        (None, [why]) for ``none`` or nothing usable."""
        allowed = self._missing_names(context, predicate)
        kinds = self._kinds()
        typed = self._fact_types()
        refused, kept = [], []
        limit = 1 if predicate in self._single_valued() else MISSING_FACTS
        for m in _ATOM.finditer(text):
            name, args = m.group(1).lower(), m.group(2).lower().split()
            fact = "(" + " ".join([name, *args]) + ")"
            if len(kept) >= limit or fact in kept:
                continue
            if name != predicate:
                refused.append(f"{fact}: not a fact of {predicate}")
            elif arities.get(name) != len(args):
                refused.append(f"{fact}: {predicate} takes {arities.get(name)} argument(s)")
            elif any(a not in names for a, names in zip(args, allowed)):
                unseen = next(a for a, names in zip(args, allowed) if a not in names)
                refused.append(f"{fact}: {unseen} is no name of its type in the observations")
            else:
                clash = self._type_of(fact, kinds, typed)
                if not clash:
                    kept.append(fact)
                else:
                    refused.append(f"{fact}: {clash}")
        if kept:
            return kept, refused
        if not refused and re.fullmatch(r"\W*none\W*", text.lower()):
            slot = self._placeholder(predicate)
            if slot:
                return [slot], ["the model said none: a placeholder holds the slot"]
            return [], ["the model said none"]   # an answer: not drawn again
        if not refused:
            refused = ["the model said none" if "none" in text.lower() else "no fact found"]
        return None, refused

    def _placeholder(self, predicate: str) -> Optional[str]:
        """``(atlocation unknown_receptacle)``: where the agent is when the model cannot say
        (a single-valued predicate of one argument that no known fact holds; measured with
        Qwen2.5-Coder 1.5B on the household, "You are in the middle of a room" and ``none``
        twice, and no plan could start: every action needs where the agent is). A command
        that does not name the place it leaves ("go to cabinet 1") runs from it, and the
        first fact that names the slot replaces it (see :meth:`_merge_placeholders`)."""
        kinds = self._kinds().get(predicate)
        if kinds is None or len(kinds) != 1 or predicate not in self._single_valued() \
                or predicate in self._held_predicates():
            return None
        return f"({predicate} unknown_{kinds[0] or 'thing'})"

    def _missing_names(self, context: Context, predicate: str) -> list[list[str]]:
        """For each parameter of the missing part's predicate, the names it may take: the
        observations' names that the types part or a known fact gave its type; placeholders
        left out: the fact asked for is one the game said."""
        typed = self._typed_names(context)
        by_facts = self._fact_types()
        params = dict(self._signature_list()).get(predicate, [])
        # only names the types part or a fact gave that type: not command words ("look"),
        # not words nobody typed ("room")
        return [[n for n in typed.get(t, []) if not n.startswith("unknown_")
                 and (self.name_types.get(n) == t or by_facts.get(n, (None,))[0] == t)]
                for _v, t in params]

    @staticmethod
    def _predicate_of(correction: str) -> str:
        return correction.replace("(not ", "").strip("() ").split()[0]

    def _apply_world_corrections(self) -> bool:
        """``world_literals``: apply :meth:`_world_corrections` to the known facts, and take
        out every known fact a pattern the world refuted matches (``{"pattern": "(connected
        corridor ?to east)", "holds": false}``: "You can't move east: there is no exit in
        that direction"); False when the world named neither or it implies nothing the
        facts do not already say."""
        corrections = self._world_corrections()
        if self._world_pattern:   # "there is no exit in that direction": no ?to at all
            from .refuted import matches

            corrections += [f"(not {f})" for f in dict.fromkeys(self._facts() + self.chunk)
                            if matches(self._world_pattern, f)
                            and f"(not {f})" not in corrections]
        self._world_failed = None
        self._world_pattern = None
        if not corrections:
            return False
        for correction in corrections:
            if correction.startswith("(not "):
                fact = correction[len("(not "):-1]
                self.base = [f for f in self.base if f != fact]
                self.chunk = [f for f in self.chunk if f != fact]
            elif correction not in self.chunk:
                self.chunk = self.chunk + [correction]
        self.world_corrected += corrections
        self.failed_step = None
        return True

    def _world_corrections(self) -> list[str]:
        """What the world's answer to a failed command implies for the known facts, when it
        names the literal that failed (``info["failed"]``: ``{"literal": "(opened
        cabinet_1)", "holds": false}``): the literal itself, when the known facts say
        otherwise; and, for a disjunction of the failed step's precondition (in the model's
        domain) that holds it, every other disjunct, which must have failed too: ``(or (not
        (openable cabinet_1)) (opened cabinet_1))`` failed with ``(opened cabinet_1)`` false,
        so ``(openable cabinet_1)`` holds. Measured with Qwen2.5-Coder 1.5B on the household:
        "The cabinet 1 is closed." after a put, and the model, asked which predicate the
        message was about, said ``atlocation``, which took away where the agent was."""
        failed = self._failed_step_action() if self._world_failed else None
        if failed is None:
            return []
        action, ground = failed
        fact, holds = self._world_failed
        from pddlkit.pddl.model import And, Atom, Not, Or

        known = set(self._facts())
        out = []
        grounded: set[str] = set()

        def atoms(f) -> None:   # the step's precondition atoms, over domain predicates
            if isinstance(f, (And, Or)):
                for part in f.parts:
                    atoms(part)
            elif isinstance(f, Not):
                atoms(f.formula)
            elif isinstance(f, Atom) and f.predicate != "=":
                grounded.add(ground(f))

        atoms(action.precondition)
        if fact not in grounded:   # "=", another predicate, a literal of no use here
            return []
        if holds is False and fact in known:
            out.append(f"(not {fact})")
        if holds is True and fact not in known:
            out.append(fact)

        def failing(f) -> bool:   # the disjunct the world says failed
            if isinstance(f, Atom):
                return ground(f) == fact and holds is False
            return isinstance(f, Not) and isinstance(f.formula, Atom) \
                and ground(f.formula) == fact and holds is True

        def visit(f) -> None:
            if isinstance(f, And):
                for part in f.parts:
                    visit(part)
            elif isinstance(f, Or) and any(failing(d) for d in f.parts):
                for other in f.parts:
                    if failing(other):
                        continue
                    if isinstance(other, Atom) and ground(other) in known:
                        out.append(f"(not {ground(other)})")     # false in the world
                    elif isinstance(other, Not) and isinstance(other.formula, Atom) \
                            and ground(other.formula) not in known:
                        out.append(ground(other.formula))         # its atom holds

        visit(action.precondition)
        return list(dict.fromkeys(c for c in out if "?" not in c))

    def _failed_step_action(self):
        """(the failed step's action in the model's domain, a function grounding one of its
        atoms over the step's arguments); None when the step cannot be read against it."""
        dom = self._domain_model() if self.failed_step else None
        if dom is None:
            return None
        words = self.failed_step.strip("()").lower().split()
        try:
            action = dom.action(words[0])
        except KeyError:
            return None
        if len(action.parameters) != len(words) - 1:
            return None
        binding = {p.name.lower(): a for p, a in zip(action.parameters, words[1:])}

        def ground(atom) -> str:
            return "(" + " ".join([atom.predicate.lower(),
                                   *(binding.get(a.lower(), a.lower()) for a in atom.args)]) + ")"
        return action, ground

    def _corrections(self) -> list[str]:
        """What could have been wrong when the failed step's command failed: for each
        literal of its precondition (in the model's domain, over the step's arguments),
        ``(not F)`` for a fact ``F`` the known facts hold (it is false in the world), ``F``
        for a fact they lack (the world has it: a door the precondition says is not there)."""
        failed = self._failed_step_action()
        if failed is None:
            return []
        action, ground = failed
        from pddlkit.pddl.model import Atom, Not, Or, And

        known = set(self._facts())
        out: list[str] = []

        def visit(f) -> None:
            if isinstance(f, (And, Or)):
                for part in f.parts:
                    visit(part)
            elif isinstance(f, Not) and isinstance(f.formula, Atom):
                fact = ground(f.formula)
                if fact not in known and f.formula.predicate != "=":
                    out.append(fact)
            elif isinstance(f, Atom) and f.predicate != "=":
                fact = ground(f)
                out.append(f"(not {fact})" if fact in known else fact)

        visit(action.precondition)
        # facts the model lacks first: a small model leaves facts out far more often than it
        # invents them (its measured fact recall is below its precision)
        return sorted(dict.fromkeys(out), key=lambda c: c.startswith("(not "))

    def _goal_candidates(self) -> list[str]:
        """Atoms not true now that the known facts can reach under the domain, relaxed
        (delete effects ignored: :class:`pddlkit.semantics.heuristic.RelaxedDistance`),
        nearest first, at most :data:`GOAL_CANDIDATES`, less the goals already refused with
        these same files (a planner proved them unreachable, or the world refused their
        plan): the goal the model chooses is one a planner can work towards. [] when the files
        cannot be read, or every candidate was refused (the goal is then free over the known
        names, and the prompt says the facts miss something)."""
        return [atom for atom in self._reachable_goals()
                if self._refusal_key("goal", f"(:goal {atom})") not in self._refused
                ][:GOAL_CANDIDATES]

    def _reachable_goals(self) -> list[str]:
        """:meth:`_goal_candidates` before the refused ones are taken out (cached per files)."""
        key = (tuple(self._facts()), self.fixed_domain, tuple(self.predicates),
               tuple(sorted(self.bodies.items())), tuple(sorted(self._task_words)))
        if getattr(self, "_candidates_key", None) == key:
            return self._candidates
        self._candidates_key, self._candidates = key, []
        try:
            from pddlkit.pddl.reader import read_domain, read_problem
            from pddlkit.semantics.heuristic import RelaxedDistance
            from pddlkit.semantics.state import format_atom
            from pddlkit.semantics.world import World
            from .objects import declare_objects

            domain = self.fixed_domain or self._domain_text(None)
            init = " ".join(self._facts())
            objects = " ".join(self._typed_objects(self._facts(), count=False))
            files, _ = declare_objects(Files(domain, (
                f"(define (problem p) (:domain {self._domain_model().name}) "
                f"(:objects {objects}) (:init {init}) (:goal (and)))")))
            dom, _ = read_domain(files.domain)
            prob, _ = read_problem(files.problem)
            world = World(dom, prob)
            state = world.initial_state
            costs = RelaxedDistance(world).costs(state)
        except Exception:   # noqa: BLE001 - a model's files that cannot be read: no candidates
            return []
        static = {p.name for p in dom.predicates} - world.fluent_predicates
        ever = self.ever | set(self._facts())
        reached = sorted((format_atom(atom) in ever, cost, format_atom(atom))
                         for atom, cost in costs.items() if cost > 0 and atom[0] not in static)
        if self.novel_goals and any(not old for old, _cost, _atom in reached):
            # a goal true in an earlier state takes the agent back where it has been: with
            # novel_goals, only atoms never true so far are offered while any is reachable
            self._been = {atom for old, _cost, atom in reached if old}
            novel = [r for r in reached if not r[0]]
            self.acted["novel-goals"] += len(novel) < len(reached)
            reached = novel
        else:
            self._been = set()
        if self.task_goals and self._task_words:
            # the task's things first (stable: never reached, then nearest, within each)
            ordered = sorted(reached, key=lambda r: -sum(_kind_word(a) in self._task_words
                                                          for a in _words(r[2])[1:]))
            self.acted["task-goals"] += ordered != reached
            reached = ordered
        if self.task_focus and self._task_words:
            focused = self._focused(reached)
            self.acted["task-focus"] += focused != reached
            reached = focused
        self._candidates = [atom for _old, _cost, atom in reached]
        return self._candidates

    def _task_things(self, atom: str) -> int:
        """How many of the task's words ``atom``'s arguments name (``ladle_1``: ladle)."""
        return len({_kind_word(a) for a in _words(atom)[1:]} & self._task_words)

    def _focused(self, reached: list) -> list:
        """``task_focus``: while a goal naming every thing the task names (the most any
        candidate or known fact names, two at least: ``(inreceptacle ladle_1
        countertop_1)``) is reachable, only such goals are offered; and a thing a known fact
        already has so (the first credit card on the countertop) is left there: no goal
        naming it is offered. Otherwise no goal naming another thing of the type the task
        moves (the first argument of such a goal: an ``obj``) is offered."""
        facts = self._facts()
        full = max([self._task_things(a) for _o, _c, a in reached]
                   + [self._task_things(f) for f in facts] + [0])
        if full < 2:
            return reached
        done = {_words(f)[1] for f in facts if self._task_things(f) == full}
        reached = [r for r in reached if not set(_words(r[2])[1:]) & done]
        best = [r for r in reached if self._task_things(r[2]) == full]
        if best:
            return best
        # else no goal about another thing of the kind the task moves (the butterknife, as
        # the credit card): the task's things, and places to search
        types = {n: t for n, (t, _why) in self._fact_types().items()}
        types.update({n: t for n, t in self.name_types.items() if t != "NONE"})
        moved = {types.get(_words(a)[1]) for a in [r[2] for r in reached] + facts
                 if self._task_things(a) == full} - {None}
        return [r for r in reached if not any(
            types.get(a) in moved and _kind_word(a) not in self._task_words
            for a in _words(r[2])[1:])]

    # -- prompts and grammars --------------------------------------------------------------
    def _prompt(self, part: str, context: Context, signatures: dict) -> str:
        history = context.memory.history
        shown = "\n".join(f"> {a}\n{o}" for a, o in history[:self.seen]) or "(nothing yet)"
        values = {"task": context.memory.task, "domain_part": self._domain_part(),
                  "known": " ".join(self._facts()) or "(none yet)"}
        common = self.templates["context"].substitute(values).strip()
        revision = ""
        last = self.answers.get(self._answer_key(part))
        if context.kind in (SOLVER_ERROR, SIMULATION_ERROR) and context.error:
            what = (f"The command '{context.failed_action}' failed in the game: "
                    if context.kind == SIMULATION_ERROR else "The planner reported: ")
            revision = what + context.error.strip()
            if last:
                revision = (f"Your last answer for this part was:\n{last.strip()}\n"
                            + revision + "\nWrite this part again, fixed.")
        kind = part.split()[0]
        if kind == "action":
            name = part.split(" ", 1)[1]
            params, command = signatures[name]
            if self.schema_check and self.evidence.transitions:
                revision = self._schema_revision(name, last, revision)
            return self.templates["action"].substitute(
                context=common, action=name, command=command, signatures=context.signatures,
                parameters=" ".join(f"{v} - {t}" if t else v for v, t in params),
                revision=revision).strip() + "\n"
        if kind == "predicates":
            return self.templates["predicates"].substitute(
                context=common, types=", ".join(_types(signatures)),
                signatures=context.signatures, history=shown,
                revision=revision).strip() + "\n"
        if kind == "correction":
            named = list(dict.fromkeys(self._predicate_of(c) for c in self._corrections()))
            return self.templates["correction"].substitute(
                context=common, command=context.failed_action or "", step=self.failed_step,
                message=(context.error or "").strip(),
                predicates=", ".join(named[:-1]) + (" or " if len(named) > 1 else "")
                + named[-1]).strip() + "\n"
        if kind == "types":
            return self.templates["types"].substitute(
                context=common, sentence=self._sentence, revision=revision,
                types=", ".join(t.upper() for t in self._type_names())).strip() + "\n"
        if kind == "missing":
            predicate = part.split(" ", 1)[1]
            label = next((line for line in self._labeled_lines()
                          if line.strip("()").split()[0] == predicate), f"({predicate})")
            one = predicate in self._single_valued()
            if context.kind == SOLVER_ERROR:
                message = "The planner found no plan: " + next(
                    (line.strip(" -") for line in (context.error or "").splitlines()
                     if f"({predicate}" in line and "never true" in line),
                    (context.error or "").strip())
            else:
                message = "Every place known has been visited, and the task is not done."
            return self.templates["missing"].substitute(
                context=common, history=shown, predicate=predicate, form=label,
                message=message, wanted="fact" if one else "facts",
                hold="holds" if one else "hold", only="the fact" if one else "the facts"
                ).strip() + "\n"
        if kind == "facts":
            return self.templates["facts"].substitute(
                context=common, revision=revision, sentence=self._sentence).strip() + "\n"
        candidates = self._goal_candidates()
        commands = ", ".join(a for a, _ in history) or "(none)"
        order = ("those naming the task's things first, then those never reached before, "
                 "then nearest first") if self.task_goals else \
            "those never reached before first, then nearest first"
        return self.templates["goal"].substitute(
            context=common, guidance=self.guidance, revision=revision, commands=commands,
            order=order,
            candidates="\n".join(candidates) if candidates else (
                "(none: from the known facts no action makes a new fact true, so the facts "
                "miss something; write the goal the task needs, and the planner will say what "
                "is missing)")).strip() + "\n"

    def _schema_revision(self, name: str, last: Optional[str], revision: str) -> str:
        """The action's observed uses, what a transition says against its last schema, and
        the schemas refuted before (measured: Qwen2.5-Coder 1.5B drew a refuted one again)."""
        uses = self.evidence.uses(name)
        out = ("What the game did when this action's command was given:\n"
               + "\n".join(uses) + "\n") if uses else ""
        refuted = self.evidence.refuted_bodies(name)
        if refuted:
            out += ("These schemas for it were refuted already; write a different one:\n"
                    + "\n".join(refuted) + "\n")
        finding = self.evidence.asking.get(name)
        if finding and last:
            return (out + f"Your last answer for this action was:\n{last.strip()}\n"
                    f"It is wrong: {finding}\nWrite this action again, fixed.")
        if finding:
            return out + f"A schema for it was wrong: {finding}\nWrite it fixed."
        return out + revision

    def _domain_part(self) -> str:
        if self.fixed_domain is None and not self.predicates:
            return ""
        return ("The domain's predicates, each parameter with its type:\n"
                + "\n".join(self._labeled_lines()))

    def _signature_list(self) -> list[tuple[str, list[tuple[str, Optional[str]]]]]:
        """(predicate, [(parameter, type)]) for every predicate of the domain."""
        out = []
        for line in self._predicate_lines():
            words = line.strip("()").split()
            params, i = [], 1
            while i < len(words):
                if words[i].startswith("?"):
                    kind = words[i + 2] if i + 2 < len(words) and words[i + 1] == "-" else None
                    params.append((words[i], kind))
                i += 1
            out.append((words[0].lower(), params))
        return out

    def _labeled_lines(self) -> list[str]:
        """``(connected ?from=ROOM ?to=ROOM ?dir=DIRECTION)``: a fact is written with its
        parameters named (measured with Qwen2.5-Coder 1.5B: it orders arguments right when
        each is labelled, and wrong far more often when they are bare)."""
        return ["(" + " ".join([name] + [f"{v}={(t or 'object').upper()}" for v, t in params])
                + ")" for name, params in self._signature_list()]

    def _typed_names(self, context: Context) -> dict[str, list[str]]:
        """type -> the names a fact may give a parameter of that type: names the known facts
        give that type, and names no fact has typed yet (None: untyped parameters)."""
        typed = self._fact_types()
        for word, kind in self.name_types.items():
            if kind != "NONE":
                typed.setdefault(word, (kind, "the types part"))
        names = [n for n in self._fact_names(context) if self.name_types.get(n) != "NONE"]
        if self._sentence:   # a placeholder only where the sentence mentions what it does
            unnamed = any(self.name_types.get(w) == "NONE"   # not name ("a closed door")
                          for w in observed_names([self._sentence]))
            names = [n for n in names if unnamed or not n.startswith("unknown_")
                     or any(n in f.split() or n + ")" in f for f in self._facts())]
        types = {t for _p, params in self._signature_list() for _v, t in params}
        return {t: [n for n in names if (n not in typed or t is None or typed[n][0] == t)
                    and (t not in self._closed_types or self._command_typed.get(n) == t)]
                for t in types}

    def _fact_types(self) -> dict:
        """name -> (its type, the fact that gave it) for the names the known facts and the new
        ones use (see :meth:`_type_of`)."""
        kinds = self._kinds()
        typed: dict = {}
        for fact in self._facts() + self.chunk:
            self._type_of(fact, kinds, typed)
        return typed

    def _held_predicates(self) -> set[str]:
        """The predicates the known facts and the new ones hold a fact of."""
        return {_head(f) for f in self._facts() + self.chunk}

    def _type_names(self) -> list[str]:
        """The types the domain's predicates use (the types part's choices)."""
        return list(dict.fromkeys(t for _p, params in self._signature_list()
                                  for _v, t in params if t)) or ["object"]

    def _predicate_lines(self) -> list[str]:
        if self.fixed_domain is None:
            return list(self.predicates)
        if getattr(self, "_frozen_lines", (None,))[0] != self.fixed_domain:
            from pddlkit.pddl.reader import read_domain   # read once per frozen domain

            dom, _ = read_domain(self.fixed_domain)
            lines = [] if dom is None else [
                "(" + " ".join([p.name] + [f"{v.name} - {v.types[0]}" if v.types else v.name
                                           for v in p.parameters]) + ")"
                for p in dom.predicates]
            self._frozen_lines = (self.fixed_domain, lines)
        return list(self._frozen_lines[1])

    def _kinds(self) -> dict[str, list]:
        """predicate -> the type of each parameter (None: untyped)."""
        return {name: [t for _v, t in params] for name, params in self._signature_list()}

    @staticmethod
    def _type_of(fact: str, kinds: dict, typed: dict) -> str:
        """Record the types ``fact`` gives its names; why not, when one already has another
        type (a name used at two types is refused, not guessed)."""
        words = fact.strip("()").split()
        types = kinds.get(words[0], [])
        mine: dict = {}
        for arg, kind in zip(words[1:], types):
            if kind is None:
                continue
            before = typed.get(arg) or mine.get(arg)
            if before and before[0] != kind:
                return (f"{arg} is a {before[0]} in {before[1]}, and a name has one type; "
                        f"here it would be a {kind}")
            mine.setdefault(arg, (kind, fact))
        for arg, value in mine.items():
            typed.setdefault(arg, value)
        return ""

    def _arities(self, signatures: dict) -> dict[str, int]:
        return {name: len(params) for name, params in self._signature_list()}

    def _fact_names(self, context: Context) -> list[str]:
        if self._sentence:   # one sentence: its names, and the names already in facts
            facts = self._facts()   # the chunk's too, of one slot the later
            if self.local_facts:   # ... or only where the agent is, not every place known
                single = self._single_valued()
                local = [f for f in facts if f.strip("()").split()[0] in single]
                self.acted["local-facts"] += len(local) < len(facts)
                facts = local
            known = [a for f in facts for a in f.strip("()").split()[1:]]
            return list(dict.fromkeys(known + observed_names([self._sentence], unknown=True)))
        task = context.memory.task.strip()
        texts = [o.replace(task, " ") if task else o for _, o in context.memory.history]
        texts += [a for a, _ in context.memory.history]
        texts += [str(c) for c in context.valid_actions]
        known = [a for f in self._facts() for a in f.strip("()").split()[1:]]
        return list(dict.fromkeys(known + observed_names(texts, unknown=True)))

    def _grammar(self, part: str, context: Context, signatures: dict):
        from pddlkit.pddl import grammars

        if part == "predicates":   # as many as the actions' parameter types, at least
            return grammars.predicates_grammar(_types(signatures),
                                               at_least=len(_types(signatures)))
        arities = self._arities(signatures)
        if part.startswith("action "):
            params, _ = signatures[part.split(" ", 1)[1]]
            return grammars.action_body_grammar(self._kinds(), [(v, t or None) for v, t in params])
        if part == "correction":
            from pddlkit.llm.grammar import Grammar
            from pddlkit.llm.lark_subset import choice

            named = {self._predicate_of(c) for c in self._corrections()}
            return Grammar(f"start: {choice(named)}\n", "the message's predicate", 4)
        if part == "types":
            from pddlkit.llm.grammar import Grammar
            from pddlkit.llm.lark_subset import choice, literal

            kinds = [t.upper() for t in self._type_names()] + ["NONE"]
            open_kinds = [k for k in kinds if k.lower() not in self._closed_types]
            words = " ".join(f"{literal(w + '=')} "
                             + ("kind" if open_kinds == kinds or w in self._command_typed
                                else "open_kind") for w in self._untyped_words())
            return Grammar(f"start: {words}\nkind: {choice(kinds)}\n"
                           + f"open_kind: {choice(open_kinds)}\n"
                           + "WS: /[ \\t\\r\\n]+/\n%ignore WS\n", "word types", 4)
        if part.startswith("missing "):
            return self._missing_grammar(part.split(" ", 1)[1], context)
        if part == "facts":
            return grammars.labeled_facts_grammar(
                self._signature_list(), self._typed_names(context),
                mentioned=observed_names([self._sentence]) if self._sentence else None,
                pinned=self._pins())
        candidates = self._goal_candidates()
        if candidates:
            from pddlkit.llm.grammar import Grammar
            from pddlkit.llm.lark_subset import choice

            lines = ['start: "(" ":goal" goal ")"', f"goal: {choice(candidates)}",
                     r"WS: /[ \t\r\n]+/", "%ignore WS"]
            return Grammar("\n".join(lines) + "\n", "goal (reachable atoms)", 24)
        typed = self._typed_names(context)   # free goal: each argument of its type
        for word in observed_names([context.memory.task]):
            for kind in typed:
                if word not in typed[kind] and self.name_types.get(word, kind) == kind:
                    typed[kind].append(word)
        return grammars.goal_grammar(arities, [], typed=(self._kinds(), typed))

    def _missing_grammar(self, predicate: str, context: Context):
        """A fact of ``predicate`` (up to :data:`MISSING_FACTS` of them, one for a
        single-valued predicate), each parameter named and filled with a name of its type
        (:meth:`_missing_names`), or ``none``."""
        from pddlkit.llm.grammar import Grammar
        from pddlkit.llm.lark_subset import choice, literal

        params = dict(self._signature_list()).get(predicate, [])
        allowed = self._missing_names(context, predicate)
        if any(not names for names in allowed):
            return Grammar('start: "none"\n', f"{predicate}: no names of its types", 4)
        slots = " ".join(f"{literal(v + '=')} name_{i}" for i, (v, _t) in enumerate(params))
        many = "fact" if predicate in self._single_valued() else \
            " ".join(["fact"] + ["fact?"] * (MISSING_FACTS - 1))
        lines = [f'start: {many} | "none"', f'fact: "(" {literal(predicate)} {slots} ")"']
        lines += [f"name_{i}: {choice(names)}" for i, names in enumerate(allowed)]
        lines += [r"WS: /[ \t\r\n]+/", "%ignore WS"]
        return Grammar("\n".join(lines) + "\n", f"one fact of {predicate}", 4)

    # -- assembling the files --------------------------------------------------------------
    def _facts(self) -> list[str]:
        """The init: the progressed base with the new facts, a new fact of a single-valued
        predicate replacing the old one (see the module docstring)."""
        single = self._single_valued()
        new = list(self.chunk)
        # of two new facts of one single-valued slot, the later: the chunk reads every
        # observation since the last facts part in order, so a plan of two moves gives
        # (at corridor) then (at kitchen) (measured with Qwen2.5-Coder 1.5B, CoinCollector 5
        # rooms seeds 1 and 3 at 13733b8: both were kept, and moves were planned from the
        # room the agent had left)
        last = {_slot(f): f for f in new if _head(f) in single}   # a later one overwrites
        new = [f for f in new if _head(f) not in single or last[_slot(f)] == f]
        if not self._sentence:   # the chunk is whole: where the plan's last step ended
            self._merge_placeholders(single, new)
        kept = [f for f in self.base if _head(f) not in single or _slot(f) not in last]
        return kept + [f for f in dict.fromkeys(new) if f not in kept]

    def _merge_placeholders(self, single: set, new: list[str]) -> None:
        """A place the model named ``unknown_...`` before it was seen, reached by a plan
        (the progressed state has ``(at unknown_north)``), and the name the new facts give
        the same single-valued slot (``(at pantry)``) are one thing: the placeholder is
        renamed in the base, so what was known about it (how it connects) is kept. Only
        once the facts part has read every sentence (not while it reads one): measured with
        Qwen2.5-Coder 1.5B (CoinCollector 3 rooms seed 8, ea1a6b4), a plan went through the
        corridor to the placeholder, and the first sentence's ``(at corridor)`` renamed the
        placeholder to ``corridor``: the door became a loop again."""
        for fact in new:
            words = fact.strip("()").split()
            if len(words) != 2 or words[0] not in single:
                continue
            for old in self.base:
                o = old.strip("()").split()
                if len(o) == 2 and o[0] == words[0] and o[1] != words[1] \
                        and o[1].startswith("unknown_"):
                    rename = {o[1]: words[1]}

                    def renamed(fact: str) -> str:
                        return "(" + " ".join(rename.get(w, w)
                                              for w in fact.strip("()").split()) + ")"
                    self.base = [renamed(b) for b in self.base]
                    # what was true of the placeholder was true of the place
                    self.ever = {renamed(e) for e in self.ever}
                    return

    def _here_slots(self) -> dict[str, int]:
        """``here_facts``: predicate -> the argument that is where the agent is, for a
        predicate over two or more places that some action's precondition needs with that
        argument the agent's place (``(at ?from) (connected ?from ?to ?dir)``: argument 0 of
        ``connected``); read from the frozen domain's conjunctions."""
        dom = self._domain_model()
        if dom is None:
            return {}
        if getattr(self, "_here_of", (None,))[0] is dom:   # once per domain read
            return self._here_of[1]
        single = self._single_valued()
        kinds = self._kinds()
        slots: dict[str, int] = {}
        for action in dom.actions:
            conj = list(_conjuncts(action.precondition))
            places = {a.args[0] for a in conj if a.predicate.lower() in single
                      and len(a.args) == 1}
            for atom in conj:
                name = atom.predicate.lower()
                if name in single or name not in kinds:
                    continue
                for i, arg in enumerate(atom.args):
                    place = kinds[name][i] if i < len(kinds[name]) else None
                    if arg in places and place is not None \
                            and sum(1 for k in kinds[name] if k == place) >= 2:
                        slots.setdefault(name, i)
        self._here_of = (dom, slots)
        return slots

    def _here(self) -> Optional[str]:
        """Where the agent is, by the known and new facts (a single-valued fact of one
        argument); None when they do not say, or say two places."""
        single = self._single_valued()
        places = {_words(f)[1] for f in self._facts()
                  if _head(f) in single and len(_words(f)) == 2}
        return next(iter(places)) if len(places) == 1 else None

    def _pins(self) -> Optional[dict[str, dict[int, str]]]:
        """``here_facts``, for a sentence's facts: predicate -> {argument: where the agent
        is} (see :meth:`_here_slots`). Measured with Qwen2.5-Coder 1.5B on CoinCollector
        (commit 030c575): read in the pantry, "To the East you see the corridor." came out as
        ``(connected corridor pantry east)``, ends swapped, and after a move the way back was
        written from the room ahead; no new room was reachable and every goal was refused
        (3 rooms seed 8, 5 rooms seed 3). None when off or nowhere known."""
        if not self.here_facts or not self._sentence:
            return None
        here = self._here()
        if here is None:
            return None
        pins = {p: {i: here} for p, i in self._here_slots().items()} or None
        self.acted["here-facts"] += pins is not None
        return pins

    def _away(self, predicate: str, args: list[str], pins: dict) -> str:
        """``here_facts``: a fact over two places that names where the agent is in both
        (``(connected corridor corridor south)``, read from "To the South you see a closed
        sliding door.") joins a place to itself, so a move along it goes nowhere. The other
        place is one the sentence does not name: the one the known facts already have that
        way from here (the same other arguments), else a placeholder,
        ``unknown_south_of_corridor``, renamed to the place's name once the agent is there
        (:meth:`_merge_placeholders`). Recorded as a rewritten line of the part. Measured
        with Qwen2.5-Coder 1.5B on CoinCollector (3 rooms seed 8, 5 rooms seeds 1 and 3, at
        13733b8): the closed door was written so in every reading, the room behind it was
        never a goal, and the agent went back and forth between two rooms."""
        fact = "(" + " ".join([predicate, *args]) + ")"
        pinned = pins.get(predicate) or {}
        if len(pinned) != 1:
            return fact
        (i, here), = pinned.items()
        j = self._there_slots().get(predicate)
        if j is None or j >= len(args) or args[i] != here or args[j] != here:
            return fact
        rest = [a for k, a in enumerate(args) if k not in (i, j)]
        here_slots, there_slots = self._here_slots(), self._there_slots()
        there = None
        for known in self._facts():
            words = _words(known)[1:]
            p = _head(known)
            if (here_slots.get(p), there_slots.get(p)) == (i, j) \
                    and len(words) == len(args) and words[i] == here and words[j] != here \
                    and [a for k, a in enumerate(words) if k not in (i, j)] == rest:
                there = words[j]
                break
        there = there or "unknown_" + "_".join([*(rest or [predicate]), "of", here])
        kept = "(" + " ".join([predicate, *(there if k == j else a
                                            for k, a in enumerate(args))]) + ")"
        self._rewrites.append(f"{fact}: a place joined to itself; read as {kept}")
        return kept

    def _there_slots(self) -> dict[str, int]:
        """``here_facts``: predicate -> its other argument of the type of the one
        :meth:`_here_slots` names (``connected``: 1, where a move goes), when it has one."""
        kinds = self._kinds()
        out = {}
        for predicate, i in self._here_slots().items():
            kind = kinds[predicate][i]
            others = [j for j, k in enumerate(kinds[predicate]) if j != i and k == kind]
            if len(others) == 1:
                out[predicate] = others[0]
        return out

    def _single_valued(self) -> set[str]:
        dom = self._domain_model()
        if dom is None:
            return set()
        from pddlkit.pddl.model import iter_effect_literals

        adds: dict[str, set] = {}
        dels: dict[str, set] = {}
        for action in dom.actions:
            for literal in iter_effect_literals(action.effects):
                (adds if literal.positive else dels).setdefault(
                    literal.atom.predicate.lower(), set()).add(action.name)
        return {p for p, by in adds.items() if by and dels.get(p) == by}

    def _exclusive(self) -> dict[str, set[str]]:
        """predicate -> the predicates the domain never lets hold with it over the same
        first argument (or at all, when either has none): each is added only by actions that
        delete the other, both ways (``holds ?o`` and ``inreceptacle ?o ?r``: a take adds the
        one and deletes the other, a put the reverse; ``handempty`` and ``holds``). Read from
        the actions' unconditional effects; a cheap invariant, used only against a fact the
        world vouches for (``command_facts``)."""
        dom = self._domain_model()
        if dom is None:
            return {}
        if getattr(self, "_exclusive_of", (None,))[0] is dom:   # once per domain read
            return self._exclusive_of[1]
        from pddlkit.pddl.model import Literal

        adds: dict[str, list] = {}
        for action in dom.actions:
            literals = [e for e in action.effects if isinstance(e, Literal)]
            for added in (lit.atom for lit in literals if lit.positive):
                dels = {(lit.atom.predicate.lower(), lit.atom.args[:1])
                        for lit in literals if not lit.positive}
                adds.setdefault(added.predicate.lower(), []).append((added.args[:1], dels))

        def excludes(p: str, q: str) -> bool:   # every action adding p deletes q with it
            return bool(adds.get(p)) and all(
                any(pred == q and (not first or not args or args == first)
                    for pred, args in dels) for first, dels in adds[p])
        names = list(adds)
        exclusive = {p: {q for q in names if q != p and excludes(p, q) and excludes(q, p)}
                     for p in names}
        self._exclusive_of = (dom, exclusive)
        return exclusive

    def _domain_model(self):
        from pddlkit.pddl.reader import read_domain

        text = self.fixed_domain or (self._domain_text(None) if self.predicates else None)
        if not text:
            return None
        if getattr(self, "_model", (None,))[0] != text:   # read once per domain text
            self._model = (text, read_domain(text)[0])
        return self._model[1]

    def _domain_text(self, signatures: Optional[dict]) -> str:
        signatures = signatures or getattr(self, "_signatures_seen", {})
        types = _types(signatures)
        actions = []
        for name, (params, _command) in signatures.items():
            body = self.bodies.get(name, ":effect (and)")
            actions.append(f"  (:action {name}\n    :parameters ("
                           + " ".join(f"{v} - {t}" if t else v for v, t in params)
                           + f")\n    {body})")
        name = re.sub(r"[^a-z0-9\-]", "-", self.env_id.lower()).strip("-") or "world"
        return (f"(define (domain {name})\n  (:requirements :strips :typing "
                ":negative-preconditions :disjunctive-preconditions)\n"
                f"  (:types {' '.join(types)})\n"
                f"  (:predicates\n    " + "\n    ".join(self.predicates) + ")\n"
                + "\n".join(actions) + ")\n")

    def _assemble(self, context: Context, signatures: dict) -> Files:
        from .objects import declare_objects

        self._signatures_seen = signatures
        domain = self.fixed_domain or self._domain_text(signatures)
        dom = self._domain_model()
        name = dom.name if dom is not None else "world"
        init = "\n    ".join(self._facts())
        objects = " ".join(self._typed_objects(self._facts() + [self.goal]))
        problem = (f"(define (problem step)\n  (:domain {name})\n  (:objects {objects})\n"
                   f"  (:init\n    {init})\n  {self.goal or '(:goal (and))'})\n")
        files, _ = declare_objects(Files(domain, problem))
        return files

    def _typed_objects(self, used: list[str], count: bool = True) -> list[str]:
        """``typed_objects``: ``name - type`` for each name the types part gave a domain type
        that ``used`` (the facts and the goal) does not name; the names used are declared by
        :func:`.objects.declare_objects`, typed by the predicates they fill. Names that are
        the domain's own words (a type, a predicate, an action) are left out. With ``count``,
        the names declared for the first time are added to :attr:`typed_declared`."""
        if not self.typed_objects:
            return []
        dom = self._domain_model()
        if dom is None:
            return []
        types = {t.name.lower() for t in dom.types}
        reserved = _reserved(dom)
        named = {w for fact in used for w in _words(fact.lower())}
        out = []
        for word, kind in self.name_types.items():
            if kind == "NONE" or kind.lower() not in types or word in named \
                    or word in reserved or not re.fullmatch(r"[a-z][a-z0-9_\-]*", word):
                continue
            out.append(f"{word} - {kind}")
            if count and word not in self._declared_typed:
                self._declared_typed.add(word)
                self.acted["typed-objects"] += 1
                self.typed_declared.append(f"{word} - {kind}")
        return out


#: PDDL's own words, never a thing's name
PDDL_WORDS = frozenset("""object either and not or imply exists forall when define domain
problem increase decrease assign""".split())
#: the longest name a command may give a thing (a longer one is junk, not a name)
MAX_NAME = 64
#: the longest command read (a longer one is junk; matching it could take long)
MAX_COMMAND = 256


def _reserved(dom) -> set[str]:
    """The names a thing may not have: the domain's types, predicates, actions and constants,
    and PDDL's own words."""
    return ({t.name.lower() for t in dom.types} | {p.name.lower() for p in dom.predicates}
            | {a.name.lower() for a in dom.actions} | {c.name.lower() for c in dom.constants}
            | PDDL_WORDS)


def _conjuncts(formula):
    """The atoms of ``formula``'s conjunction (not inside ``or``/``not``), ``=`` left out."""
    from pddlkit.pddl.model import And, Atom

    if isinstance(formula, And):
        for part in formula.parts:
            yield from _conjuncts(part)
    elif isinstance(formula, Atom) and formula.predicate != "=":
        yield formula


def _kind_word(name: str) -> str:
    """The word of a name without its number (``ladle_1``: ladle), as a task says it."""
    return re.sub(r"_\d+$", "", name)


def _words(fact: str) -> list[str]:
    """The predicate and the names of a fact (or a goal), ``(at kitchen)`` -> at, kitchen."""
    return fact.replace("(", " ").replace(")", " ").split()


def _slot(fact: str) -> tuple:
    """What a single-valued fact holds one value of: its predicate, with its first argument
    when it has two or more (``(at kitchen)`` -> at; ``(inreceptacle x_1 desk_1)`` ->
    inreceptacle, x_1)."""
    words = _words(fact)
    return tuple(words[:2]) if len(words) > 2 else tuple(words[:1])


def _head(fact: str) -> str:
    """A fact's predicate ("" for a fact with none)."""
    return (_words(fact) or [""])[0]


def _templates(folder: Optional[str]) -> dict[str, string.Template]:
    out = {}
    for part in PARTS:
        own = Path(folder) / f"modular_{part}.txt" if folder else None
        path = own if own is not None and own.is_file() else BUNDLED / f"{part}.txt"
        out[part] = string.Template(path.read_text())
    return out


def _signatures(text: str) -> dict[str, tuple[tuple[tuple[str, str], ...], str]]:
    """action -> (parameters, command) from the prompt's signatures text."""
    from pddlkit.pddl.grammars import parse_signatures

    commands = dict(re.findall(r":action\s+(\S+)\s+\(command:\s*([^)]*)\)", text))
    return {s.name: (s.parameters, commands.get(s.name, s.name))
            for s in parse_signatures(text)}


def _types(signatures: dict) -> list[str]:
    return list(dict.fromkeys(t for params, _ in signatures.values() for _, t in params if t)) \
        or ["object"]


def _bind_command(command: str, signatures: dict) -> Optional[tuple[str, dict[str, str]]]:
    """(action, {?param: name}) for a command read through the action's command template
    (``take {o} from {r}`` reads "take vase 1 from drawer 2" as ``?o=vase_1 ?r=drawer_2``;
    a name's words joined with ``_``, as the facts write it; a template's fixed words match
    whole words only: "move potato 1 to ..." is not "move pota ..."); the template with the
    most fixed words wins; None when no template reads it, or the command is longer than
    :data:`MAX_COMMAND` characters or names something no ASCII name can be."""
    text = " ".join(command.lower().split())
    if len(text) > MAX_COMMAND:
        return None
    best: Optional[tuple[int, str, dict[str, str]]] = None
    for name, (_params, template) in signatures.items():
        pieces = re.split(r"\{(\w+)\}", template.lower())
        slots = pieces[1::2]
        tokens = [re.escape(" ".join(p.split())) if k % 2 == 0 else r"(.+?)"
                  for k, p in enumerate(pieces)]
        pattern = r"\s+".join(t for t in tokens if t)
        found = re.fullmatch(pattern, text) if slots else None
        if not found:
            continue
        values = ["_".join(v.split()) for v in found.groups()]
        if not all(re.fullmatch(r"[a-z][a-z0-9_\-]*", v) for v in values):
            continue
        fixed = len(re.sub(r"\{\w+\}", "", template).strip())
        if best is None or fixed > best[0]:
            best = (fixed, name, {"?" + k: v for k, v in zip(slots, values)})
    return (best[1], best[2]) if best else None


def _action_of(command: str, context: Context, signatures: dict) -> Optional[str]:
    """The domain action a command of the environment runs (its template's leading words)."""
    best = None
    for name, (_params, template) in signatures.items():
        head = template.split("{")[0].strip()
        if head and command.lower().startswith(head.lower()) and \
                (best is None or len(head) > len(signatures[best][1].split("{")[0].strip())):
            best = name
    return best
