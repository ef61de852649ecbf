"""The modular formalizer's episode: its state, ``propose`` and what it learns from a plan
that ran or failed; the other jobs are its parts (writing, reading, prompting, goals, facts,
corrections), each a file of this package.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Optional, Union

from pddlkit.llm.base import LLM
from pddlkit.pddl.model import Atom
from pddlkit.semantics.transitions import UNLISTED

from ..answer import AnswerError, Files
from ..base import INITIAL, SIMULATION_ERROR, SOLVER_ERROR, Context
from ..llm_formalizer import PromptedLLM, _drain_acted
from ..evidence import one_place_kept
from ..helps.schema_check import SchemaEvidence
from .parts import PartCall, STOP_WORDS, _bind_command, _templates, _types
from ..atoms import Signature, _words, facts_text, fact_text, ground_atom, names_of
from .corrections import Corrections
from .roles import (AsksForMissing, CorrectsFromRefusal, DeclaresNames, GuardsPlans,
                    HearsAbsence, ReadsCommands)
from .goals import Goals
from .achievers import Achievers
from .lacking import Lacking
from .predicates import PredicateRevision
from .writing import Writing
from .reading import Reading
from .prompting import Prompting
from .facts import Facts


class ModularFormalizer(Corrections, Goals, Achievers, Lacking, Writing, Reading, Prompting,
                        Facts, PredicateRevision, PromptedLLM):
    """``ModularFormalizer(llm, env_id)``: PDDLego+ with one part of the files per call (see
    the module docstring); a drop-in for :class:`~.llm_formalizer.LLMFormalizer`."""

    name = "pddlego-modular"

    def __init__(self, llm: Union[LLM, str], env_id: str, *, prompts: Optional[str] = None,
                 temperature: float = 0.0, max_tokens: Optional[int] = None,
                 constrained: bool = False, samples: int = 1, goal_style: str = "detailed",
                 **helps: bool) -> None:
        """``helps``: the modular formalizer's helps by name (``novel_goals=True``, ...),
        each one line of :data:`~pddlkit.formalizers.help_table.HELPS`; a name the table
        does not have is refused."""
        from ..help_table import MODULAR_HELPS

        super().__init__(llm, env_id, prompts=prompts, temperature=temperature,
                         max_tokens=max_tokens)
        if samples < 1:
            raise ValueError(f"samples must be 1 or more, got {samples}")
        unknown = sorted(set(helps) - set(MODULAR_HELPS))
        if unknown:
            raise TypeError(f"ModularFormalizer has no help {', '.join(unknown)} (its helps: "
                            f"{', '.join(MODULAR_HELPS)})")
        self.env_id = env_id
        self.constrained = constrained
        self.samples = samples
        for name in MODULAR_HELPS:   # each help's switch, off unless asked for
            setattr(self, name, bool(helps.get(name, False)))
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
        #: over a learned domain reused, what each predicate is for (set by the agent from
        #: the library entry: :class:`..base.PlaysLearnedAspects`); {} over any other
        self.reused_aspects: dict[str, str] = {}
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
        kept = (self.predicates, self.bodies, self.evidence, self.predicate_aspects) \
            if getattr(self, "keep_domain", False) else None
        self.predicates: list[Signature] = []      # (at ?r - room), as data
        self.bodies: dict[str, str] = {}           # action -> ":precondition ... :effect ..."
        self.base: list[Atom] = []                 # facts progressed through what ran
        self.chunk: list[Atom] = []                # facts from the last facts part
        self._fact_origin: dict[Atom, int] = {}    # ... fact -> the observation it was read in
        self._observation = 0                      # ... the observation being read
        self.goal = ""
        self.ever: set[Atom] = set()               # every fact true in a state so far
        #: every plan's transitions this episode, as they ran (``refused_steps``; the
        #: evidence keeps fewer: see ``SchemaEvidence.place_unstated``)
        self.plans_ran: list[list] = []
        self._been: set[str] = set()               # goals novel_goals left out: reached
        self.seen = 0                              # history entries the facts parts covered
        self.last_files: Optional[Files] = None
        self.answers: dict[str, str] = {}          # part -> its last answer
        self._refused: dict[tuple[str, str], str] = {}
        self._asked: dict[tuple[str, str], int] = {}
        self._goal_rewrites = 0
        self._failed_actions: dict[str, int] = {}
        self._never_fired: set[tuple[str, str]] = set()   # (action, why-no-plan line) asked
        self.failed_step: Optional[str] = None
        self._refusal_message = ""                 # the world's answer to the failed step
        self._said = False                         # whether the last one was said
        self._written_last: list[str] = []
        self._signatures_seen: dict = {}
        self._sentence = ""                        # the sentence a facts call reads
        self._facts_from = 0                       # history index the last facts part read from
        self.name_types: dict[str, str] = {}       # word -> its type, or NONE (types part)
        #: the strategies of the helps that are on (:mod:`pddlkit.formalizers.helps`), new
        #: each episode: help name -> the object that keeps its state (:meth:`_strategy`)
        self.strategies: dict = {}
        self._pinned_by = None                     # the strategy that pinned the sentence's
                                                   # facts to where the agent is (_pins)
        self._planner_error = ""                   # the last solver error (ask_missing)
        self._withdrawn: Optional[str] = None      # ... and one the world said is not there
        self._withdrawn_names: set[str] = set()    # ... typed again when a sentence names it
        self._reread = False                       # names of one type were typed anew
        self.world_corrected: list[str] = []       # world_literals: applied, since the loop
                                                   # last read it
        self.typed_declared: list[str] = []        # ... newly, since the loop last read it
        self.command_derived: list[str] = []       # command_facts: facts and types added,
        self.command_dropped: list[str] = []       # ... facts dropped, since the loop read them
        self._rewrites: list[str] = []             # lines the last _read kept changed
        self.evidence = SchemaEvidence()           # schema_check: the episode's transitions
        self.predicate_rewrites = 0                # ... predicates asked again (.predicates)
        self._predicates_why = ""                  # ... why, while they are asked
        self._refused_predicates: list[frozenset] = []   # ... the sets refused
        self.predicate_aspects: dict[str, str] = {}   # predicate_slots: name -> its aspect
        self._must_add: dict[str, set] = {}        # schema_slots: lines to list atoms after
        # try_untried: actions tried, the command to run now; .achievers (and .lacking):
        # asked, the lines the answers force, the action (literal) chosen
        self.tried_untried, self._probe = set(), None
        self._achiever_asked, self._achieving, self._achiever_chosen = set(), {}, None
        self._lacked_offer, self._lacking, self._lacked_chosen = {}, {}, None
        self._stating: list[str] = []              # ... the predicates a sentence states,
        self._stating_words: list[str] = []        # ... and its words, while asked for
        self.schema_refuted: list[str] = []        # ... findings acted on, since the loop read
        self.observed_after: list[dict] = []       # ... a one-command plan's effects, same
        self.steps_kept_out: list[str] = []        # ... refused_steps' guards, same
        if kept is not None:
            self.predicates, self.bodies, self.evidence, self.predicate_aspects = kept
            self.evidence.new_episode()

    # -- the loop's calls ----------------------------------------------------------------
    def propose(self, context: Context) -> Files:
        if context.kind == INITIAL and context.previous is None and self.last_files is not None:
            self._reset()
        self.last_parts = []
        self._context_now = context   # the goals offered are those the guarded files reach
        self._task_words = {w for w in re.findall(r"[a-z][a-z0-9]*", context.memory.task.lower())
                            if w not in STOP_WORDS}
        signatures = context.signatures.by_name()
        self._signatures_seen = signatures
        targets = self._targets(context, signatures)
        if context.kind in (SOLVER_ERROR, SIMULATION_ERROR):
            self._refuse_last_answers(context, targets)
        self._written_last = []
        for commands in self._roles(ReadsCommands):
            commands.new_request()
        self._from_commands(context, signatures)
        for part in targets:
            if part == "goal":
                self._before_goal(context, signatures)
                if self._try_untried(context, signatures):
                    continue   # a listed command is run instead (try_untried)
                if self.schema_check:
                    self._before_free_goal(context, signatures)
            self._write_target(part, context, signatures)
        files = self._assemble(context, signatures)
        self.last_files = files
        return files

    def _before_goal(self, context: Context, signatures: dict) -> None:
        """Before the goal is chosen: the schemas checked against the evidence, and, with
        ``ask_missing``, the facts of a predicate asked for when every place is visited and
        an action needs a fact none holds."""
        self._list_commands(context, signatures)
        self._recheck_schemas(context, signatures)
        if unadded := self._unadded_fluent():   # .achievers: a held fact no schema adds
            self._write_achiever(f"achiever {unadded}", context, signatures)
        if context.kind in (SOLVER_ERROR, SIMULATION_ERROR):
            return
        stalled = next(filter(None, (ask.when_stalled(self)
                                     for ask in self._roles(AsksForMissing))), None)
        if stalled:
            if self._write(f"missing {stalled}", context, signatures):
                self._written_last.append(f"missing {stalled}")

    def _write_target(self, part: str, context: Context, signatures: dict) -> None:
        """Write one part of the request; AnswerError when no answer to it can be kept."""
        if part == "facts":
            self._write_facts(context, signatures)
            self._written_last.append(part)
            return
        if part.startswith("achiever "):
            self._write_achiever(part, context, signatures)
            return
        if part.startswith("missing "):   # a none or unreadable answer: go on without
            if part.split(" ", 1)[1] not in self._held_predicates() \
                    and self._write(part, context, signatures):   # else the facts hold it
                self._written_last.append(part)
            return
        if part == "correction":
            if not self._write_correction(context, signatures):
                self._write_facts(context, signatures)   # no correction fits: re-read
            self._written_last.append(part)
            return
        if self._write(part, context, signatures):
            self._written_last.append(part)
            return
        if part.startswith("action ") and part.split(" ", 1)[1] in self.bodies \
                and self.evidence.any and self.schema_check:
            # schema_check refused every rewrite: the schema stays (see _recheck_schemas)
            self._set_aside(part.split(" ", 1)[1], signatures)
            return
        # every draw refused or unreadable: ask another part (the facts behind the goal)
        # before this one again, else say so as an unreadable answer
        if "facts" not in self._written_last and self._write_facts(context, signatures) \
                and self._write(part, context, signatures):
            self._written_last += ["facts", part]
            return
        last = next((c for c in reversed(self.last_parts) if c.part == part), None)
        raise AnswerError(f"the {part} part: " + (last.outcome if last else "no answer"))

    def work_done(self) -> list[tuple[str, dict]]:
        """The work of the requests since the last call, as events (:class:`..base.
        ReportsWork`): how often each help acted, the names declared because the model typed
        them (``typed_objects``), the schemas a transition refuted and what a one-command
        plan's observation stated (``schema_check``), the facts the world's literal
        corrected (``world_literals``), the facts read from the commands
        (``command_facts``), and every part's call."""
        work = _drain_acted(self.acted)
        if self.typed_declared:   # declared though no fact names them
            work.append(("objects-declared", {"fixes": [
                f"problem: declared {d} (typed by the model or a command; no fact names it)"
                for d in self.typed_declared]}))
        if self.schema_refuted:
            work.append(("schema-refuted", {"findings": list(self.schema_refuted)}))
        work += [("transition-observed", dict(item)) for item in self.observed_after]
        if self.steps_kept_out:
            work.append(("steps-kept-out", {"steps": list(self.steps_kept_out)}))
        if self.world_corrected:
            work.append(("facts-corrected", {"facts": self.world_corrected}))
        if self.command_derived or self.command_dropped:
            work.append(("facts-from-commands", {"facts": list(self.command_derived),
                                                 "dropped": list(self.command_dropped)}))
        if self.last_parts:
            work.append(("parts", {"parts": [p.to_dict() for p in self.last_parts]}))
        self.typed_declared, self.schema_refuted, self.observed_after = [], [], []
        self.steps_kept_out = []
        self.world_corrected, self.command_derived, self.command_dropped = [], [], []
        self.last_parts = []
        return work

    def one_value(self) -> set[str]:
        """The predicates of which the facts hold one value per slot (the loop's
        :class:`~.base.KeepsOneValue`: :meth:`_single_valued`, the player's place included
        while the model writes the domain), so ``fact_memory`` puts no remembered place back
        beside the one believed now."""
        return set(self._single_valued())

    def planning_files(self, files: Files, context: Optional[Context] = None) -> Files:
        """The files the planner is given (the loop's :class:`~.base.GuardsItsPlans`): these,
        guarded in code by the strategies that guard plans (``refused_steps``) while the
        model writes the domain, and over a learned one reused with its aspects
        (``reused_aspects``); the files recorded and kept are the model's. A guard that
        changed the files counts as its help acting; the refused commands it names are a
        ``steps-kept-out`` event."""
        if self.fixed_domain is not None and not self._plays_learned():
            return files   # a reference domain, or an entry saved without its aspects
        domain, problem = files.domain, files.problem
        for guard in self._roles(GuardsPlans):
            given = guard.guard(self, domain, problem, context)
            if given[:2] != (domain, problem):
                self.acted["refused-steps"] += 1
            domain, problem = given[:2]
            self.steps_kept_out += list(given[2])
        return Files(domain, problem)

    def observe(self, transitions: list) -> None:
        """The last plan's transitions (the loop's :class:`~.base.LearnsFromTransitions`):
        evidence for ``schema_check`` while the model writes the domain. Over a learned
        domain reused with its aspects, what ran is kept too, for the helps that play by
        them (``refused_steps``' guard, ``place_goals``' refused openings); no schema is
        checked."""
        writing = self.schema_check and self.fixed_domain is None
        if not (writing or self._plays_learned()):
            return
        self.plans_ran.append(list(transitions))
        self.evidence.add(transitions)
        if not writing:
            return
        from ..helps.predicate_slots import named_places

        stayed = self.evidence.place_unstated(self._player_predicates(),
                                              named_places(self._signatures_seen or {}))
        if stayed is not None:
            self.observed_after.append({"where": stayed.where,
                                        "observed": sorted(stayed.observed)}
                                       | ({"dropped": self.evidence.dropped}
                                          if self.evidence.dropped else {}))

    def _list_commands(self, context: Context, signatures: dict) -> None:
        """``schema_check``: the commands the environment lists as admissible now, each read
        through its action's command template (the parameters its words do not name left as
        variables), with the facts believed now, as evidence that the world would take them
        (:meth:`.schema_check.SchemaEvidence.list_commands`). Why: measured with
        Qwen2.5-Coder 1.5B writing CoinCollector's domain with ``schema_slots`` (dev seed 0),
        move's precondition held ``(not (player ?from))``, no plan ever moved, and the
        episode ended at the solver's retry limit with move never refuted: only a command
        that runs was evidence. The issue allows the environment's admissible commands."""
        if not (self.schema_check and self.fixed_domain is None and self.predicates
                and self.bodies):
            return
        from pddlkit.semantics.transitions import Transition

        facts = [fact_text(f) for f in self._facts()]   # a transition's states are text
        objects = {name: kind for name, (kind, _fact) in self._fact_types().items() if kind}
        listed = []
        for command in context.valid_actions:
            bound = _bind_command(str(command), signatures)
            if bound is None or bound[0] not in self.bodies:
                continue
            name, binding = bound
            params = signatures[name][0]
            if not set(binding) <= {v.lower() for v, _t in params}:
                continue
            named = dict(objects)
            for v, t in params:
                if v.lower() in binding and t:
                    named.setdefault(binding[v.lower()], t)
            action = "(" + " ".join([name] + [binding.get(v.lower(), v.lower())
                                              for v, _t in params]) + ")"
            listed.append(Transition(action, frozenset(facts), True, objects=named,
                                     where=f"step {len(context.memory.history)}: '{command}' "
                                           "listed"))
        left_out = []
        if context.commands_complete and context.valid_actions:
            from ..helps.unlisted_refusals import unlisted, unconditional

            bodies = self.bodies if self.unlisted_refusals else unconditional(self.bodies)
            left_out = unlisted(context, signatures, bodies, objects, facts) if bodies else []
        self.evidence.list_commands(listed, left_out)

    def _recheck_schemas(self, context: Context, signatures: dict) -> None:
        """``schema_check``: the first finding of the evidence against the model's domain
        not yet acted on names one action; its schema is refused and asked for again alone
        (:mod:`..helps.schema_check`). When no draw gets past the evidence, the schema stays and is
        not asked for again in the episode: the facts believed before the transition may be
        what is wrong, and an episode is not ended over it (measured with Qwen2.5-Coder 1.5B
        on CoinCollector, dev seed 0: open-door's schema refuted by a refused "open door to
        east" (an open doorway), the same three schemas drawn in turn, first until the
        solver retries ran out, then, with each finding asked once, 12 calls a step). The
        event says so."""
        if not (self.schema_check and self.fixed_domain is None and self.predicates):
            return
        self._tell_evidence_aspects()
        finding = self.evidence.first_new(self._domain_text(signatures))
        if finding is None or finding.schema not in signatures:
            return
        part = f"action {finding.schema}"
        if finding.schema in self.bodies:
            self.evidence.refuse(finding.schema, self.bodies[finding.schema], finding)
        self.acted["schema-check"] += 1
        self.acted["unlisted-refusals"] += finding.detail == UNLISTED and self.unlisted_refusals
        self.schema_refuted.append(finding.format())
        if not self._ask_lacked(finding, context, signatures) \
                or not self._write(part, context, signatures):   # .lacking: none can
            if self._rewrite_predicates(finding, context, signatures):
                self._written_last.append("predicates")
                return
            self.schema_refuted[-1] += (" (no rewrite explained every transition: the schema "
                                        "stays, not asked for again in this episode)")
            self._set_aside(finding.schema, signatures)
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
        from pddlkit.semantics.world import World

        dom, _ = read_domain(self.last_files.domain)
        prob, _ = read_problem(self.last_files.problem)
        if dom is None or prob is None:
            return
        world = World(dom, prob)
        state = world.initial_state
        # every state the plan passed through, its first included: a goal true in any of them
        # is one the agent has reached (novel_goals)
        self.ever.update(ground_atom(a) for a in state.atoms)
        player = set(self._player_predicates())
        for step in steps:
            simulated = simulate(world, state, step)
            if not simulated.applicable:
                break
            state = one_place_kept(state, simulated.successor, player)
            self.ever.update(ground_atom(a) for a in state.atoms)
        self.base = self._unsaid_closed_dropped(
            sorted((ground_atom(a) for a in state.atoms), key=fact_text),
            {ground_atom(a) for a in world.initial_state.atoms})
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
        failed = failed if isinstance(failed, dict) else {}
        for hearer in self._roles(CorrectsFromRefusal):
            hearer.heard(failed)
        said = failed.get("object")
        name = said.strip().lower() if isinstance(said, str) \
            and re.fullmatch(r"\s*[a-z][\w\-]*\s*", said.lower()) else ""
        if self.schema_check and self.fixed_domain is None and isinstance(said, str):
            # its words joined as the facts name it ("unknown front": unknown_front)
            joined = "_".join(said.lower().split())
            where = self.evidence.drop_refused_over(joined) if joined else None
            if where:
                self.observed_after.append({"where": where, "not evidence":
                                            f"refused because the world has no {joined}"})
        if name:
            self._not_there(name)

    def _not_there(self, name: str) -> None:
        """The world said ``name`` is not there (see :meth:`failed`): a type the commands
        name every one of was wrong, or the name (and, with ``world_literals``, the model's
        facts about it) goes."""
        gone = [f for f in self._facts() + self.chunk if name in names_of(f)]
        if any(commands.close_type(self, name, gone)
               for commands in self._roles(ReadsCommands)):
            # a name the model's facts used at a type the commands name every one of: the
            # type was wrong, not the name (a room typed as a direction); its facts go, and
            # it is typed again (not at that type) with the last observation's facts
            self._forget(name, gone)
            return
        typed = self.name_types.get(name, "NONE") != "NONE"
        # the first help that withdraws it decides (typed_objects: a name typed by the
        # model in no fact; world_literals: the model's facts about it go): HearsAbsence
        if any(hearer.absent(self, name, gone, typed) for hearer in self._roles(HearsAbsence)):
            self.name_types[name] = "NONE"
            for declarer in self._roles(DeclaresNames):
                declarer.withdrawn(name)
            self._withdrawn = name
            self._withdrawn_names.add(name)

    def _forget(self, name: str, gone: list[Atom]) -> None:
        """Every fact naming ``name`` goes, recorded as corrected by the world."""
        self.base = [f for f in self.base if name not in names_of(f)]
        self.chunk = [f for f in self.chunk if name not in names_of(f)]
        self.world_corrected += [f"(not {fact_text(f)})" for f in dict.fromkeys(gone)]

    @property
    def _command_typed(self) -> dict[str, str]:
        """name -> the type a command gave it (:class:`.roles.ReadsCommands`; empty when
        no help reads them)."""
        typed: dict[str, str] = {}
        for commands in self._roles(ReadsCommands):
            typed = {**commands.typed, **typed}
        return typed

    @property
    def _closed_types(self) -> set[str]:
        """The types whose every name the commands list (empty when no help reads them):
        a fact or a type label may give such a type only those names."""
        return set().union(*(commands.closed for commands in self._roles(ReadsCommands)))

    def _command_names(self) -> set[str]:
        """Every name a command filled (empty when no help reads them)."""
        return set().union(*(commands.names for commands in self._roles(ReadsCommands)))

    def _roles(self, role: type) -> list:
        """The strategies of the helps that are on and play ``role`` (a protocol of
        :mod:`.roles`), in the table's order; each made at its first use in the episode
        (:data:`strategies`). The switches decide, so turning a help off between episodes,
        or on, takes effect."""
        out = []
        for name, cls in _strategy_classes():
            if not getattr(self, name) or not _plays(cls, role):
                continue
            if name not in self.strategies:
                self.strategies[name] = cls()
            out.append(self.strategies[name])
        return out

    def _strategy(self, name: str):
        """Help ``name``'s strategy object while its switch is on, or None: for a test or a
        tool that asks one help; the formalizer itself asks by role (:meth:`_roles`)."""
        cls = dict(_strategy_classes()).get(name)
        if cls is None or not getattr(self, name):
            return None
        if name not in self.strategies:
            self.strategies[name] = cls()
        return self.strategies[name]

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
                f"  (:predicates\n    " + "\n    ".join(map(str, self.predicates)) + ")\n"
                + "\n".join(actions) + ")\n")

    def _assemble(self, context: Context, signatures: dict) -> Files:
        from ..objects import declare_objects

        self._signatures_seen = signatures
        domain = self.fixed_domain or self._domain_text(signatures)
        dom = self._domain_model()
        name = dom.name if dom is not None else "world"
        init = facts_text(self._facts(), "\n    ")
        objects = " ".join(self._typed_objects(self._facts(), self.goal))
        problem = (f"(define (problem step)\n  (:domain {name})\n  (:objects {objects})\n"
                   f"  (:init\n    {init})\n  {self.goal or '(:goal (and))'})\n")
        files, _ = declare_objects(Files(domain, problem))
        return files

    def _typed_objects(self, facts: list[Atom], goal: str = "", count: bool = True
                       ) -> list[str]:
        """``typed_objects`` (:mod:`pddlkit.formalizers.helps.typed_objects`): the names the
        model typed that ``facts`` and ``goal`` do not name, as ``name - type``; none when
        off."""
        declarers = self._roles(DeclaresNames)
        if not declarers:
            return []
        named = {w.lower() for f in facts for w in names_of(f)} | set(_words(goal.lower()))
        out: list[str] = []
        for declarer in declarers:
            out += [o for o in declarer.objects(self, named, count) if o not in out]
        return out


def _strategy_classes() -> tuple:
    """(help name, its ``strategy`` class) for every line of the table with one (its file
    in ``formalizers/helps/``), in the table's order."""
    from ..help_table import HELPS

    return _classes_of(HELPS)


@lru_cache(maxsize=None)
def _plays(cls: type, role: type) -> bool:
    """Whether a strategy class plays ``role``: its objects have the protocol's methods and
    attributes (asked of one object, once a class: the formalizer asks at every prompt)."""
    return isinstance(cls(), role)


@lru_cache(maxsize=4)
def _classes_of(helps: tuple) -> tuple:
    """:func:`_strategy_classes` of one table, loaded once (a test may swap the table)."""
    from pddlkit.agents.helps import hooked

    return tuple((h.name, cls) for h, cls in hooked(helps, "strategy", lambda h: True))
