"""Which goals the model is offered: the atoms reachable from what is known, nearest first,
filtered by ``novel_goals``, ``task_goals`` and ``task_focus``.

A part of :class:`~.formalizer.ModularFormalizer` (issue 74: the 2,102-line module split by job).
"""

from __future__ import annotations

import re
from typing import Optional

from ..answer import AnswerError, Files
from ..base import SIMULATION_ERROR, SOLVER_ERROR, Context
from .parts import GOAL_CANDIDATES, _action_of
from .roles import GuardsPlans
from ..atoms import facts_text, ground_atom


class Goals:
    """The goals methods of :class:`~.formalizer.ModularFormalizer`."""

    # -- which parts -----------------------------------------------------------------------
    def _targets(self, context: Context, signatures: dict) -> list[str]:
        """The parts to write for this request, in order (see the module docstring's
        "Revision aimed at the part")."""
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
        if context.kind == SIMULATION_ERROR:
            return self._simulation_targets(context, signatures, learned)
        self._planner_error = context.error or ""
        return self._solver_targets(error, signatures, learned)

    def _simulation_targets(self, context: Context, signatures: dict,
                            learned: bool) -> list[str]:
        """The parts to rewrite after a plan step failed in the world."""
        self._refusal_message = context.error or ""
        if self._reread:
            self._reread = False          # names typed anew: the last facts read again
            self._withdrawn = None
            return ["facts", "goal"]
        if self._withdrawn:
            self._withdrawn = None        # a name that is not there: only the goal changes
            return ["goal"]
        if self._apply_world_corrections():
            return ["goal"]               # the world said which literal: code corrects it
        action = _action_of(context.failed_action or "", context, signatures)
        count = self._failed_actions.get(action or "", 0) + 1
        if action:
            self._failed_actions[action] = count
        if learned and action and count >= 2 and action not in self.evidence.set_aside:
            return [f"action {action}", "goal"]
        if self._corrections():
            return ["correction", "goal"]
        return ["facts", "goal"]

    def _solver_targets(self, error: str, signatures: dict, learned: bool) -> list[str]:
        """The parts to rewrite after the planner found no plan (``error``, lower case)."""
        if learned:
            for name in signatures:
                if re.search(rf"(action|:action)\s+'?{re.escape(name)}\b", error):
                    return [f"action {name}", "goal"]
            undeleted = self._undeleted_predicate(self._planner_error)
            if undeleted:   # .achievers: which action makes the needed fact false
                return [f"achiever not {undeleted}", "goal"]
            blocked = self._never_fires(signatures)
            if blocked:
                return [f"action {blocked}", "goal"]
            unadded = self._unadded_predicate(self._planner_error)
            if unadded:   # .achievers: which action makes the goal's fact true
                return [f"achiever {unadded}", "goal"]
        missing = self._missing_predicate(self._planner_error)
        if missing:
            return [f"missing {missing}", "goal"]
        if "goal" in error or "no plan" in error or "unsolvable" in error \
                or "unreachable" in error:
            self._goal_rewrites += 1
            if self._goal_rewrites <= 2:
                return ["goal"]
            self._goal_rewrites = 0
        return ["facts", "goal"]

    def _never_fires(self, signatures: dict) -> str:
        """While the model writes the domain: the first action the planner's why-no-plan
        says "can never fire" (``(move ?from ?to ?dir) can never fire: ... also needs
        (holding pantry), which is never reachable``), not asked for that same line before
        and not set aside; the line is what its rewrite request shows. "" when none.

        Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain, dev seed 1 at
        f236112: move's precondition held ``(holding ?from)``, which no action adds, so no
        place could be reached; the planner said so, but the line names the schema by its
        parameters, not as ``action move``, so only the goal was asked again, nine times,
        until the retries ran out (every goal a free one, each refused). A line that blames
        ``refused_steps``' guard (``kept-out-...``, ``unseen-name``: code's, given to the
        planner alone) is no schema's to fix: the world's refusals behind it are evidence
        the schema check already holds (measured: the household at bb67ced)."""
        from ..helps.refused_steps import KEPT, UNSEEN

        asked = self._never_fired
        for line in self._planner_error.splitlines():
            if KEPT in line or UNSEEN in line:   # the guard's own atoms: not the model's to fix
                continue
            m = re.match(r"\s*-\s*\((\S+)[^()]*\)\s+can never fire:", line)
            name = m and next((n for n in signatures if n.lower() == m.group(1).lower()), None)
            if not name or name in self.evidence.set_aside or (name, line.strip()) in asked:
                continue
            asked.add((name, line.strip()))
            self.evidence.asking[name] = (line.strip().lstrip("- ")
                                          + f"; rewrite {name}'s precondition")
            return name
        return ""

    def _goal_candidates(self) -> list[str]:
        """Atoms not true now that the known facts can reach under the domain, relaxed
        (delete effects ignored: :class:`pddlkit.semantics.heuristic.RelaxedDistance`),
        nearest first, at most :data:`GOAL_CANDIDATES`, less the goals already refused with
        these same files (a planner proved them unreachable, or the world refused their
        plan): the goal the model chooses is one a planner can work towards. [] when the files
        cannot be read, or every candidate was refused (the goal is then free over the known
        names, and the prompt says the facts miss something)."""
        rest = self._refusal_rest("goal")
        return [atom for atom in self._reachable_goals()
                if self._refusal_key("goal", f"(:goal {atom})", rest) not in self._refused
                ][:GOAL_CANDIDATES]

    def _reachable_goals(self) -> list[str]:
        """:meth:`_goal_candidates` before the refused ones are taken out (cached per files)."""
        context = getattr(self, "_context_now", None)
        key = (tuple(self._facts()), self.fixed_domain, tuple(self.predicates),
               tuple(sorted(self.bodies.items())), tuple(sorted(self._task_words)),
               context and (len(context.memory.history), tuple(map(str, context.valid_actions)),
                            len(getattr(self, "plans_ran", ()))))
        if getattr(self, "_candidates_key", None) == key:
            return self._candidates
        self._candidates_key, self._candidates, self._reachable_all = key, [], None
        self._candidates_world = None
        try:
            from pddlkit.pddl.reader import read_domain, read_problem
            from pddlkit.semantics.heuristic import RelaxedDistance
            from pddlkit.semantics.state import format_atom
            from pddlkit.semantics.world import World
            from ..objects import declare_objects

            domain = self.fixed_domain or self._domain_text(None)
            init = facts_text(self._facts())
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
        self._candidates_world = world   # for _files_why: what can never fire here
        static = {p.name for p in dom.predicates} - world.fluent_predicates
        ever = self.ever | set(self._facts())
        reached = sorted((ground_atom(atom) in ever, cost, format_atom(atom))
                         for atom, cost in costs.items() if cost > 0 and atom[0] not in static)
        self._reachable_all = [atom for _old, _cost, atom in reached]
        self._been = set()
        plannable = self._guarded_reach(files, context)
        if plannable is not None:
            reached = [r for r in reached if r[2] in plannable]
        reached = self._goal_policy(reached)
        self._candidates = [atom for _old, _cost, atom in reached]
        return self._candidates

    def _guarded_reach(self, files: Files, context) -> "Optional[set[str]]":
        """The atoms the relaxed problem reaches under the files the planner would be given
        (the guards of :class:`.roles.GuardsPlans`: ``refused_steps``), as text; None when
        no guard changes the files (or they cannot be read). A goal out of that set could
        only be refused: no plan reaches it, whatever the model's files allow. Why: measured
        with Qwen2.5-Coder 1.5B learning the household's domain (dev seeds 0-1 at 3e72055),
        the goals offered held placeholders no command can name (``(holds
        unknown_countertop_1)``, six such goals drawn, each refused by the planner, the
        solver's retries spent) and things no take could reach once take was kept out
        (four goals refused so). The files the goal is read against, and the no-goal check
        (:meth:`_no_goal_reachable`, which asks what blocks every goal), stay the model's."""
        if self.fixed_domain is not None and not self._plays_learned() or context is None:
            return None
        try:
            from pddlkit.pddl.reader import read_domain, read_problem
            from pddlkit.semantics.heuristic import RelaxedDistance
            from pddlkit.semantics.state import format_atom
            from pddlkit.semantics.world import World

            domain, problem = files.domain, files.problem
            for guard in self._roles(GuardsPlans):
                domain, problem = guard.guard(self, domain, problem, context)[:2]
            if (domain, problem) == (files.domain, files.problem):
                return None
            world = World(read_domain(domain)[0], read_problem(problem)[0])
            return {format_atom(a) for a in RelaxedDistance(world).costs(world.initial_state)}
        except Exception:   # noqa: BLE001 - guarded files that cannot be read: no filter
            return None

    def _no_goal_reachable(self) -> bool:
        """While the model writes the domain: True when its files can be read and no atom
        that is not true now can be reached under them (relaxed: delete effects ignored, so
        a goal outside that set cannot be planned), less the goals already refused with these
        same files; False when the files cannot be read (nothing is known then)."""
        self._reachable_goals()
        reachable = getattr(self, "_reachable_all", None)
        if self.fixed_domain is not None or reachable is None:
            return False
        rest = self._refusal_rest("goal")
        return all(self._refusal_key("goal", f"(:goal {atom})", rest) in self._refused
                   for atom in reachable)

    def _files_why(self) -> str:
        """The why-no-plan's lines of the actions that can never fire under the files the
        goal candidates were read from (no goal needed; :func:`pddlkit.planners.explain.
        never_firing`), as a planner error reads; "" when every action can fire. Why:
        measured with Qwen2.5-Coder 1.5B learning CoinCollector's domain (dev seed 2 at
        156944c, the domain kept from seed 1): its move required a closed door, seed 2 has
        none, no goal was reachable at the first step, and with no planner run yet nothing
        said so: the facts were asked again until the retries ran out, no command run.
        Only when nothing at all can be reached: where goals can be reached but each was
        refused, what can never fire is rarely what is wrong (at 156944c seed 1, only take,
        the coin not yet seen)."""
        from pddlkit.planners.explain import never_firing

        world = getattr(self, "_candidates_world", None)
        lines = [b.reason for b in never_firing(world)] if world is not None else []
        return "why no plan:\n" + "\n".join(f"  - {line}" for line in lines) if lines else ""

    def _before_free_goal(self, context: Context, signatures: dict) -> None:
        """While the model writes the domain and no goal can be reached
        (:meth:`_no_goal_reachable`): what could make one reachable is written first, the
        action that makes false a fact the why-no-plan says nothing deletes
        (:mod:`.achievers`), the action it says can never fire (not asked with that line
        before), else the facts read again (when not written in this request); when a goal
        is still out of reach, the goal is not asked for: an AnswerError says why, naming
        the why-no-plan's lines, and the loop counts it as an error (the episode ends at its
        retry limit without spending calls on goals that cannot plan).

        Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain, dev seed 1 at
        789b2de, f236112 and 5f39841: each episode ended with no goal reachable under the
        model's schemas and facts, the goal part asked four to eight times a step, each draw
        an unreachable goal (``(holding coin)``, the coin unseen) refused, then redrawn as
        refused, until the retries ran out."""
        if not self._no_goal_reachable():
            return
        self.acted["schema-check"] += 1
        if "can never fire" not in self._planner_error and not self._reachable_all:
            self._planner_error = self._files_why() or self._planner_error   # none reachable
        undeleted = self._undeleted_predicate(self._planner_error)
        if undeleted:   # .achievers: the action that makes a needed fact false, first
            self._write_achiever(f"achiever not {undeleted}", context, signatures)
            if not self._no_goal_reachable():
                return
        blocked = self._never_fires(signatures)
        if blocked and self._write(f"action {blocked}", context, signatures):
            self._written_last.append(f"action {blocked}")
            if not self._no_goal_reachable():
                return
        if "facts" not in self._written_last:
            self._write_facts(context, signatures)
            self._written_last.append("facts")
            if not self._no_goal_reachable():
                return
        why = [line.strip().lstrip("- ") for line in self._planner_error.splitlines()
               if "never" in line]
        raise AnswerError("no goal can be planned yet: under the domain and the facts no atom "
                          "that is not true now can be reached (or each was refused)"
                          + ("; the planner said: " + "; ".join(why[:3]) if why else "")
                          + "; the next request rewrites what that blames")

    def _try_untried(self, context: Context, signatures: dict) -> bool:
        """``try_untried`` (:mod:`..helps.try_untried`): whether a listed command of an
        action with no transition yet is run now instead of a plan; it is then what
        :meth:`probe` hands the loop."""
        self._probe = None
        if not (self.try_untried and self.schema_check and self.fixed_domain is None):
            return False
        from ..helps.try_untried import untried_command

        self._probe = untried_command(self, context, signatures)
        if self._probe is None:
            return False
        self.tried_untried.add(self._probe[1].strip("()").split()[0])
        self.acted["try-untried"] += 1
        return True

    def probe(self) -> "Optional[tuple[str, str]]":
        """The loop's :class:`~..base.TriesCommands`: the (command, action) to run as this
        step's one-command plan, once; None when the files are to be planned."""
        out, self._probe = self._probe, None
        return out

    def shortened(self, files: Files, plan):
        """The loop's :class:`~..base.ShortensItsPlans`: ``plan`` (for ``files``, the files
        the planner was given) less the steps the strategies that shorten plans find
        needless (:class:`.roles.ShortensPlans`); what each left out is a
        ``steps-kept-out`` line, counted as its help acting."""
        from .roles import ShortensPlans

        for strategy in self._roles(ShortensPlans):
            plan, said = strategy.shorten(self, files.domain, files.problem, plan)
            if said:
                self.steps_kept_out.append(said)
                self.acted["refused-steps"] += 1
        return plan

    def _goal_policy(self, reached: list) -> list:
        """The goal policy slot (:mod:`pddlkit.formalizers.helps`)."""
        return self._slot("goal_policy", reached)

    def _slot(self, slot: str, given: list) -> list:
        """A slot of :mod:`pddlkit.formalizers.helps`: each hook of a help that is on, in
        the table's order, given what the one before gave, counted as acting when it
        changed it."""
        from pddlkit.agents.helps import hooked

        from ..help_table import HELPS

        for help_, hook in hooked(HELPS, slot, lambda h: getattr(self, h.name, False)):
            changed = hook(self, given)
            self.acted[help_.label] += changed != given
            given = changed
        return given
