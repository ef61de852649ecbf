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
placeholder (``unknown_south_of_corridor``; ``formalizers/helps/here_facts.py``).

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
precondition (``formalizers/helps/world_literals.py``); recorded as
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
(``formalizers/helps/command_facts.py``); the model's other names of that type, and the
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

Files (issue 74: the 2,102-line module split by job; each a mixin of
:class:`ModularFormalizer`): ``formalizer.py`` the episode's state, ``propose`` and what the
loop tells it (``ran``, ``failed``, ``observe``, ``work_done``); ``writing.py`` asking for a
part and keeping the answer; ``reading.py`` an answer read into its part; ``prompting.py``
the requests and grammars; ``goals.py`` which parts to write and which goals to offer (the
goal policy slot, whose helps are files of :mod:`pddlkit.formalizers.helps`); ``facts.py``
the facts believed now; ``corrections.py`` what the world said was wrong; ``predicates.py``
the predicates asked for again from the evidence; ``parts.py`` the vocabulary and the text
helpers. The helps' own code (the strategies, the domain-writing helps' data and readers:
``schema_check``, ``predicate_slots``, ``schema_slots``) is in files of
:mod:`pddlkit.formalizers.helps`. ``benchmarks/replay_records.py`` replays the committed
records' answers through it.
"""

from .formalizer import ModularFormalizer
from .parts import (GOAL_CANDIDATES, MISSING_ASKS, MISSING_FACTS, PART_TOKENS, PARTS, REDRAWS,
                    STALLED_ASKS, PartCall, PartUnwritable, observed_names)

__all__ = ["GOAL_CANDIDATES", "MISSING_ASKS", "MISSING_FACTS", "PART_TOKENS", "PARTS", "REDRAWS",
           "STALLED_ASKS", "ModularFormalizer", "PartCall", "PartUnwritable", "observed_names"]
