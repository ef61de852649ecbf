"""IPP (seed 001): an LLM writes one program for every instance of a task, and refines it on
its worst instances.

* Direct generation (DG): turn 1 asks for pseudocode, turn 2 for the code (one chat).
* Iterative refinement (IR, the paper's Algorithm 2.2): score the program on the training set
  in the sandbox; give the LLM the rules, its code and the ``k`` = 3 worst instances; stop
  when the mean does not strictly improve (``patience=n`` allows n such rounds, an option
  beyond the paper) or after ``max_rounds``; **return the best program seen** (the paper's Algorithm returns the last one, but its tables are the best iterate's).
* Feedback: ``feedback="rich"`` (default) adds, for each worst instance, the constraint
  setting, its score and the simulator's account of the run (for MiniGrid, also the first step
  the PDDL model rejects), and a program that failed to run gets its ``ProgramError``;
  ``feedback="bare"`` is the paper's refinement template word for word
  (``prompts/ipp/refine_paper_grasp.txt`` and ``refine_paper_minigrid.txt``, Appendix A.3:
  no request for a fenced block, MiniGrid's extra sentence "Observe and understand ...") with
  the grids only (MiniGrid: the grid and
  ``start_direction``), no setting, start, score or error; only the note of instances left out
  to fit a small context is ours.
* Prompts: ``prompts="ours"`` (default) are our templates (``prompts/ipp/``); ``prompts=
  "paper"`` sends Appendix A.3's text word for word (``prompts/ipp/paper/<task>/``: direct
  generation's two turns, and the game instructions the refinement prompt quotes), refined with
  the paper's refinement template; ``prompts/ipp/README.md`` lists how ours differ. The
  stand-in writer answers either.
* Probe (``probe=N``, issue 48, off by default): before a round scores a program on every
  training instance, it runs on the first N; a failure there (a crash, with the program's
  line and the exception; a wrong return type) goes back to the LLM with that instance, the
  signature, the return type and one worked call on the sample instance
  (``prompts/ipp/probe_fix.txt``), and the fixed program is tried again, at most
  :data:`PROBE_FIXES` times; the round then scores what it has. The fixes are not rounds;
  each round records the failures found and the fixes asked for. A fix whose program is the
  one it was asked to fix (whitespace aside) is drawn once more, at
  :data:`REDRAW_TEMPERATURE` with a seed of its own (n for a round's n-th such draw), before
  it counts (``probe_redraws`` counts these draws): at temperature 0, both GRASP fixes of a
  round by Qwen2.5-Coder 1.5B returned the crashing program unchanged, so the probe spent its
  fixes on one answer. A crash inside one of several top-level functions asks for that
  function only (``prompts/ipp/probe_fix_function.txt``), and the answer is put back into the
  program (:mod:`.splice`, which says why; ``probe_function_fixes`` counts these requests); a
  syntax error, or a program of one function, is asked for whole. Measured with Qwen2.5-Coder 1.5B: its GRASP and DoorKey programs crashed on every held-out instance (a
  type error in a ``max`` key; a wrong return type), so every round was spent on a crash.
* Mend (``mend=True``, issue 48, off by default): before a program runs (a round's, and
  each probe fix), code mends what it can without guessing the program's meaning: an empty
  block gets ``pass``, tabs in indentation become spaces (:mod:`.mend`, which says why); each
  mend is kept in the round's ``mends``. Measured with Qwen2.5-Coder 1.5B: every GRASP
  program it wrote failed on an ``else:`` holding only a comment.
* Skeleton (``skeleton=True``, issue 76, off by default): the prompts show tested helpers
  over the task's API (:mod:`.skeletons`: a path search and a nearest-cell finder for GRASP,
  a walker that knows the agent's facing for MiniGrid) and ask for ``solve`` only; the
  helpers run after the model's code in the sandbox (so its lines keep their numbers, and a
  helper it redefines is ours again). The prompts show each helper's signature and docstring
  (shown whole, they were copied into the answer); a copy the model writes anyway, at the
  top level or inside ``solve``, is dropped and said in the round's ``dropped``. A round's program is what ran, helpers included;
  prompts show the model's part only. With the paper's prompts it is refused (their text is
  the paper's).
* Solve first (``solve_first=True``, issue 76, off by default): every request for code is
  decoded under a grammar (:func:`function_first`) whose answer opens a Python block with the
  requested function's ``def`` line and ends at the block's closing fence, so the function
  asked for is written before any helper. Why: measured with Qwen2.5-Coder 1.5B on DoorKey
  with the skeleton (2026-12-02, ``helps-records/ipp-minigrid-doorkey-probe-skeleton-on``),
  its first code answers rewrote the given helpers and ran out of tokens before ``solve``
  ("no solve"), and round 0 was lost. It needs a backend that decodes under grammars
  (``local:`` servers); each call's decoding is counted in the round's ``decoding``, so a
  request that went unconstrained is said, not hidden.
* A program that cannot be read from the answer, does not define ``solve``, crashes or returns
  the wrong type never stops the run: its error is the next prompt's feedback, and it scores as
  the worst (see :mod:`.tasks`).

* Context: when the backend knows its model's context (``local:`` servers do), a refinement
  prompt that would leave less than :data:`ANSWER_TOKENS` for the answer shows fewer worst
  instances, the least bad going first (the worst one always stays), and says how many it left
  out. The curriculum's one chat is not trimmed: a step the server refuses ends the curriculum
  with the server's error as that step's, and the steps before it are kept.

Generated code runs only in :mod:`pddlkit.sandbox`. The result keeps every round's program
and scores, and :meth:`IPPResult.save` writes the winning program next to its scores so it can
be reused without an LLM.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from pddlkit.llm.context import fit_by_dropping, room
from pddlkit.llm.errors import LLMError
from pddlkit.llm.grammar import Grammar
from pddlkit.llm.usage import usage_since, usage_snapshot
from pddlkit.sandbox import Policy, SandboxPool

from .answer import ProgramAnswerError, extract_program, numbered
from .mend import drop_module_statements, mend_program
from .skeletons import SKELETONS, load_skeleton
from .splice import drop_definitions, failing_function, splice
from .tasks import Scored, Task, template


def function_first(entry: str) -> Grammar:
    """``solve_first``'s grammar: a Python block that opens with ``def <entry>(`` and ends at
    its closing fence, with no backtick inside (the fence is the only way out, so the model
    stops there)."""
    if not entry.isidentifier():
        raise ValueError(f"the function asked for must be a Python name, not {entry!r}")
    return Grammar('start: "```python\\ndef %s(" CODE "```"\nCODE: /[^`]+/\n' % entry,
                   name=f"the function {entry} first")


@dataclass
class Round:
    index: int                  # 0 = direct generation
    program: Optional[str]
    mean: float
    failures: int               # instances where the program did not run or return a list
    scores: list[float] = field(default_factory=list, repr=False)
    worst: list[int] = field(default_factory=list)   # indices of the k worst instances
    error: Optional[str] = None                      # why there is no program this round
    samples_left_out: int = 0   # worst instances its prompt left out to fit the context
    #: probe: the failures found on the first training instances before scoring, each with
    #: its instance, and how many fixes were asked for (not rounds)
    probe_failures: list[str] = field(default_factory=list)
    probe_fixes: int = 0
    probe_redraws: int = 0      # fixes that returned the program unchanged, drawn again
    probe_function_fixes: int = 0   # fixes that asked for the failing function only
    #: mend: what code mended in this round's programs before they ran (see :mod:`.mend`)
    mends: list[str] = field(default_factory=list)
    #: the top-level statements code dropped before the programs loaded (always on, issue 76:
    #: :func:`.mend.drop_module_statements`)
    dropped: list[str] = field(default_factory=list)
    #: solve_first: how this round's code requests were decoded ("gbnf", or "unconstrained:
    #: why"), with how many of each
    decoding: dict[str, int] = field(default_factory=dict)


@dataclass
class Probe:
    """What the probe did in one round: the program it leaves to be scored, the failures it
    found, and the fixes it asked for (:meth:`IPP.probe_and_fix`)."""
    program: Optional[str]
    failures: list[str] = field(default_factory=list)
    fixes: int = 0
    redraws: int = 0
    function_fixes: int = 0


@dataclass
class IPPResult:
    task: str
    rounds: list[Round]
    best: int                   # index into rounds
    usage: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def program(self) -> Optional[str]:
        return self.rounds[self.best].program

    @property
    def best_mean(self) -> float:
        return self.rounds[self.best].mean

    @property
    def direct_mean(self) -> float:
        return self.rounds[0].mean

    def save(self, folder: Union[str, Path]) -> Path:
        """``program.py`` (the best program) and ``scores.json`` (every round's mean)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "program.py").write_text(self.program or "")
        (folder / "scores.json").write_text(json.dumps({
            "task": self.task, "best_round": self.best, "usage": self.usage,
            "rounds": [{k: v for k, v in asdict(r).items() if k not in ("program", "scores")}
                       for r in self.rounds]}, indent=2))
        return folder / "program.py"


def score(task: Task, program: str, instances: Sequence, policy: Policy,
          workers: Optional[int] = None, args=None) -> list[Scored]:
    """Every instance's score for ``program``, through the sandbox pool, in order; ``args``
    (instance -> keyword arguments) overrides the task's interface (curriculum steps)."""
    args = args or task.program_args
    with SandboxPool(program, policy, workers=workers) as pool:
        results = pool.map([args(i) for i in instances])
    return [task.score(i, r) for i, r in zip(instances, results)]


def _worst(scored: list[Scored], k: int) -> list[int]:
    """The k lowest scores; programs that failed to run come first (not the authors' bug of
    sorting successes by reward descending)."""
    order = sorted(range(len(scored)), key=lambda i: (scored[i].ok, scored[i].score, i))
    return order[:k]


def _same_program(a: str, b: str) -> bool:
    """Whether two programs are the same text, whitespace aside."""
    return a.split() == b.split()


#: the line between the model's code and the skeleton's helpers in a program that ran
SKELETON_MARK = "# ---- the helpers given to this program (pddlkit IPP skeleton) ----"
#: fixes the probe asks for at most before a round is scored anyway
PROBE_FIXES = 2
#: the temperature a fix is drawn again at when it returned the program unchanged (as
#: PDDLego+'s formalizer draws a repeated answer again)
REDRAW_TEMPERATURE = 0.7

#: the line our pseudocode prompts end the pseudocode with, and the turn's stop (issue 76)
PSEUDOCODE_END = "END OF PSEUDOCODE"
#: tokens a refinement prompt leaves for the answer (a program), whatever ``max_tokens`` says:
#: the server cuts ``max_tokens`` to what the context has left
ANSWER_TOKENS = 1536


def _samples(task: Task, instances: Sequence, scored: list[Scored], worst: list[int],
             feedback: str, left_out: int = 0) -> str:
    parts = []
    for i in worst:
        if feedback == "bare":   # the paper's sample grids: the grid alone
            parts.append(task.show_bare(instances[i]))
            continue
        shown = task.show(instances[i])
        if feedback == "rich":
            shown += f"\nyour program's result: {scored[i].account}"
        parts.append(shown)
    if left_out:
        parts.append(f"({left_out} more of your worst instance{'s' if left_out > 1 else ''} "
                     "left out to fit the model's context)")
    return "\n———\n".join(parts)


PROMPT_SETS = ("ours", "paper")


def paper_prompt(task: Task, name: str) -> str:
    """Appendix A.3's text for ``task`` (``direct_1``, ``direct_2``, ``instructions``)."""
    from .tasks import PROMPTS

    return (PROMPTS / "paper" / task.name / f"{name}.txt").read_text().strip()


class IPP:
    """``IPP(task, llm).run()``; the LLM is any pddlkit LLM (a spec string, an object)."""

    def __init__(self, task: Task, llm: Any, *, k: int = 3, max_rounds: int = 5,
                 feedback: str = "rich", policy: Optional[Policy] = None,
                 workers: Optional[int] = None, temperature: float = 0.0,
                 max_tokens: Optional[int] = 4000, patience: int = 0,
                 prompts: str = "ours", probe: int = 0, mend: bool = False,
                 skeleton: bool = False, solve_first: bool = False,
                 on_round: Optional[Callable[[Round], None]] = None) -> None:
        if feedback not in ("rich", "bare"):
            raise ValueError(f"feedback must be 'rich' or 'bare', got {feedback!r}")
        if prompts not in PROMPT_SETS:
            raise ValueError(f"prompts must be one of {', '.join(PROMPT_SETS)}, got "
                             f"{prompts!r}")
        self.prompts = prompts
        #: the task's helpers (:mod:`.skeletons`), None when ``skeleton`` is off; and the
        #: text run after the model's code ("" when off)
        self._skeleton = load_skeleton(task.name) if skeleton else None
        self.skeleton = ""
        if skeleton:
            if self._skeleton is None:
                raise ValueError(f"no skeleton for the task {task.name!r}; skeletons exist for "
                                 f"{', '.join(sorted(SKELETONS))} (leave skeleton out)")
            if prompts == "paper":
                raise ValueError("skeleton adds helpers to our prompts; the paper's prompts "
                                 "are its text word for word (use prompts='ours')")
            self.skeleton = f"\n\n\n{SKELETON_MARK}\n{self._skeleton.source}"
        if isinstance(llm, str):
            from pddlkit.llm import load_llm

            llm = load_llm(llm)
        self.task, self.llm, self.k, self.max_rounds = task, llm, k, max_rounds
        self.feedback = feedback
        self.policy = policy or Policy(call_timeout=5.0, cpu_seconds=5.0)
        self.workers = workers
        self.temperature, self.max_tokens = temperature, max_tokens
        self.patience = patience  # rounds without improvement allowed (0: the paper's rule)
        self.samples_left_out = 0  # worst instances the last refinement prompt left out
        if probe < 0:
            raise ValueError(f"probe must be 0 or more, got {probe}")
        self.probe = probe         # training instances a program is tried on first (0: off)
        self.mend = mend           # code mends empty blocks and tabs before a program runs
        self._mends: list[str] = []   # this round's mends so far
        self._dropped: list[str] = []   # this round's top-level statements dropped so far
        self.solve_first = solve_first
        self._decoding: dict[str, int] = {}   # this round's code requests by decoding so far
        #: called with each round as soon as it is scored: a run takes minutes, and its
        #: rounds are what a user watches (``pddlkit run ipp`` prints each as it ends)
        self.on_round = on_round

    def _rules(self) -> str:
        """The task's rules, and with ``skeleton`` the helpers given and what to write."""
        if not self.skeleton:
            return self.task.rules()
        return (self.task.rules() + "\n\nThese helper functions are defined for you (pddlkit "
                "wrote and tested them; their bodies are left out here); call them from your "
                "function, and do not write them again (they are added after your code when "
                "it runs):\n```python\n" + self._skeleton.api.strip()
                + f"\n```\nWrite only the function `{self.task.signature}` (and any small "
                "helpers of your own).")

    def _own(self, program: str) -> str:
        """The model's part of ``program`` (without the skeleton's helpers)."""
        return program.split(SKELETON_MARK, 1)[0].rstrip() + "\n" if self.skeleton \
            else program

    def _ended(self, rounds: list[Round], current: Round) -> None:
        """Append ``current`` to ``rounds`` and tell :attr:`on_round`."""
        rounds.append(current)
        if self.on_round is not None:
            self.on_round(current)

    def _ask(self, messages: list[dict], temperature: Optional[float] = None,
             seed: Optional[int] = None, entry: str = "solve"
             ) -> tuple[Optional[str], Optional[str], str]:
        """(program, problem, the raw answer); ``temperature`` defaults to the run's; the
        program is the answer's block defining ``entry``."""
        try:
            # the constraint only when on: an LLM of the caller's may take no such keyword
            extra = {"constraint": function_first(entry)} if self.solve_first else {}
            done = self.llm.complete(
                messages, temperature=self.temperature if temperature is None else temperature,
                max_tokens=self.max_tokens, seed=seed, **extra)
        except LLMError as exc:
            return None, f"the LLM call failed: {exc}", ""
        answer = done.text
        if self.solve_first:
            mode = getattr(done, "constraint_mode", "") or "unconstrained"
            self._decoding[mode] = self._decoding.get(mode, 0) + 1
        try:
            return extract_program(answer, entry), None, answer
        except ProgramAnswerError as exc:
            if entry != "solve":   # the whole program, answered to a request for one function
                try:
                    return extract_program(answer), None, answer
                except ProgramAnswerError:
                    pass
            return None, exc.problem, answer

    def direct(self, extension: bool = False) -> tuple[Optional[str], Optional[str]]:
        """Direct generation: pseudocode, then code. ``extension=True`` is the paper's
        pseudocode extension (PE, GRASP): the first turn also shows its greedy pseudocode."""
        rules = self._rules()
        first = "pseudocode_extension.txt" if extension else "pseudocode.txt"
        if self.prompts == "paper" and not extension:
            chat = [{"role": "user", "content": paper_prompt(self.task, "direct_1")}]
        else:   # issue 76: the function, its arguments and what it returns; no one types
            chat = [{"role": "user", "content": template(first).fill(
                rules=rules, signature=self.task.signature, returns=self.task.returns)}]
        try:   # ours end at END OF PSEUDOCODE (a 1.5B model ran to its token cap every time)
            stop = [PSEUDOCODE_END] if first == "pseudocode.txt" and self.prompts != "paper" \
                else None
            pseudo = self.llm.complete(chat, temperature=self.temperature,
                                       max_tokens=self.max_tokens, stop=stop).text
        except LLMError as exc:
            return None, f"the LLM call failed: {exc}"
        second = paper_prompt(self.task, "direct_2") if self.prompts == "paper" else \
            template("code.txt").fill(signature=self.task.signature)
        chat += [{"role": "assistant", "content": pseudo},
                 {"role": "user", "content": second}]
        program, problem, answer = self._ask(chat)
        if program is None and problem and not problem.startswith("the LLM call failed"):
            # one more turn, with what was wrong: an unreadable answer does not end the run
            chat += [{"role": "assistant", "content": answer},
                     {"role": "user", "content": f"I could not use that answer: {problem}."}]
            program, problem, _ = self._ask(chat)
        return program, problem

    def refine(self, program: str, instances: Sequence, scored: list[Scored],
               worst: list[int]) -> tuple[Optional[str], Optional[str]]:
        def prompt(kept: Sequence[int], left_out: int) -> str:
            samples = _samples(self.task, instances, scored, list(reversed(kept)),
                               self.feedback, left_out)
            if self.prompts == "paper":
                return template(self.task.paper_refine).fill(
                    rules=paper_prompt(self.task, "instructions"), code=code, samples=samples)
            if self.feedback == "bare":
                return template(self.task.paper_refine).fill(
                    rules=self._rules(), code=code, samples=samples)
            return template("refine.txt").fill(
                signature=self.task.signature, rules=self._rules(), code=code,
                samples=samples)

        code = self._own(program).strip()
        # reversed: the least bad instance is dropped first, the worst one always stays
        text, self.samples_left_out = fit_by_dropping(
            prompt, list(reversed(worst)), room(self.llm, min(self.max_tokens or ANSWER_TOKENS,
                                                              ANSWER_TOKENS)))
        program, problem, _ = self._ask([{"role": "user", "content": text}])
        return program, problem

    def _round(self, index: int, program: Optional[str], problem: Optional[str],
               instances: Sequence, args=None) -> tuple[Round, list[Scored]]:
        probe = Probe(program)
        program = self._mended(program)
        if program is not None and self.probe and args is None:
            probe = self.probe_and_fix(program, instances)
            program = probe.program
        done_by_code = {"mends": self._mends, "dropped": self._dropped,
                        "probe_failures": probe.failures, "probe_fixes": probe.fixes,
                        "probe_redraws": probe.redraws,
                        "probe_function_fixes": probe.function_fixes,
                        "decoding": self._decoding}
        self._mends, self._dropped, self._decoding = [], [], {}
        if program is None:
            return Round(index, None, float("-inf"), len(instances), [], [], problem,
                         **done_by_code), []
        scored = score(self.task, program, instances, self.policy, self.workers, args)
        values = [s.score for s in scored]
        return Round(index, program, statistics.fmean(values),
                     sum(not s.ok for s in scored), values, _worst(scored, self.k),
                     **done_by_code), scored

    def _mended(self, program: Optional[str]) -> Optional[str]:
        """``program`` without statements that run at load time
        (:func:`.mend.drop_module_statements`, always) and with what
        :func:`.mend.mend_program` mends, when ``mend`` is on; both are kept for the round's
        record (``dropped``, ``mends``)."""
        if program is None:
            return program
        program, dropped = drop_module_statements(self._own(program))
        if self.skeleton:   # a copy of a given helper: ours runs anyway (see the module)
            program, copies = drop_definitions(program, self._skeleton.names)
            dropped += copies
        self._dropped.extend(d for d in dropped if d not in self._dropped)
        if self.mend:
            program, mends = mend_program(program)
            # a probe fix that repeats the mended slip is mended again: said once per round
            self._mends.extend(m for m in mends if m not in self._mends)
        return program.rstrip() + self.skeleton + "\n" if self.skeleton else program

    def probe_and_fix(self, program: str, instances: Sequence) -> "Probe":
        """The probe (issue 48): run ``program`` on the first :attr:`probe` training instances;
        a failure (a crash with its line, a wrong return type) comes back to the LLM with the
        instance, the signature, the return type and one worked call, and the fixed program
        is tried again, at most :data:`PROBE_FIXES` times, before the round scores it on every
        instance. A crash in one of several functions asks for that function only, and a fix
        that returns the program unchanged is drawn once more (see the module)."""
        probe = Probe(program)
        first = list(instances[:self.probe])
        while True:
            scored = score(self.task, probe.program, first, self.policy, self.workers)
            bad = next((k for k, s in enumerate(scored) if not s.ok), None)
            if bad is None:
                return probe
            probe.failures.append(f"instance {bad + 1}: {scored[bad].account}")
            if probe.fixes == PROBE_FIXES:
                return probe
            fixed = self._probe_fix(probe, scored[bad], first[bad])
            probe.fixes += 1
            if fixed is None:      # no usable answer: the round scores what it has
                return probe
            probe.program = fixed

    def _probe_fix(self, probe: "Probe", failed: Scored, instance: Any) -> Optional[str]:
        """One fix of the probe: the failing function (or the whole program) asked for, put
        back, and drawn once more when the program comes back unchanged."""
        program = self._own(probe.program)
        asked = failing_function(program, failed.line)
        fields = dict(rules=self._rules(), signature=self.task.signature,
                      error=failed.account, instance=self.task.show(instance),
                      returns=self.task.returns, worked=self.task.worked_call(),
                      code=numbered(program.strip()))
        if asked is None:
            prompt = template("probe_fix.txt").fill(**fields)
        else:
            probe.function_fixes += 1
            prompt = template("probe_fix_function.txt").fill(
                function=asked.name, first=asked.first, last=asked.last, **fields)

        def answer(**draw: Any) -> Optional[str]:
            code = self._ask([{"role": "user", "content": prompt}],
                             entry="solve" if asked is None else asked.name, **draw)[0]
            if code is not None and asked is not None:
                code = splice(program, asked, code)
            return self._mended(code)

        fixed = answer()
        if fixed is not None and _same_program(fixed, probe.program):
            probe.redraws += 1
            drawn = answer(temperature=max(self.temperature, REDRAW_TEMPERATURE),
                           seed=probe.redraws)
            if drawn is not None:   # unusable: keep the answer
                fixed = drawn
        return fixed

    def retry(self, previous: Optional[str], problem: str) -> tuple[Optional[str], Optional[str]]:
        """Ask again after an answer that held no usable program, saying why."""
        shown = (f"Your last working code was:\n<your_code>\n{self._own(previous).strip()}\n"
                 "</your_code>\n") if previous else ""
        prompt = template("retry.txt").fill(rules=self._rules(), problem=problem,
                                              previous=shown, signature=self.task.signature)
        program, problem, _ = self._ask([{"role": "user", "content": prompt}])
        return program, problem

    def curriculum(self, instances: Optional[Sequence] = None) -> list[Round]:
        """The paper's step-by-step curriculum (GRASP): a simplified game first (4
        directions, no obstacles, no carry limit, no cost), then one constraint a turn, in one
        chat; every step's program is scored on the full game (``Round.index`` = step)."""
        if self.task.name != "grasp":
            raise ValueError("the step-by-step curriculum is defined for GRASP only")
        if self.solve_first:   # its steps' code comes in the chat's replies, not as requests
            raise ValueError("solve_first constrains requests for code; the curriculum's steps "
                             "answer in one chat (leave solve_first out, or use ir or pe)")
        instances = list(instances if instances is not None else self.task.instances)
        from .tasks import ascii_grid

        chat = [{"role": "user", "content": template("curriculum_start.txt").fill(
            sample_grid=ascii_grid(self.task.sample.grid.cells))}]
        rounds: list[Round] = []
        for step, (constraint, signature) in enumerate(CURRICULUM):
            try:
                reply = self.llm.complete(chat, temperature=self.temperature,
                                          max_tokens=self.max_tokens).text
            except LLMError as exc:
                self._ended(rounds, Round(step, None, float("-inf"), len(instances), [], [],
                                          f"the LLM call failed: {exc}"))
                break
            chat.append({"role": "assistant", "content": reply})
            if step == 0:  # the first reply is the pseudocode; now the code of step 0
                chat.append({"role": "user", "content": template("curriculum_code.txt").text})
                program, problem, reply = self._ask(chat)
                chat.append({"role": "assistant", "content": reply})
            else:
                try:
                    program, problem = extract_program(reply), None
                except ProgramAnswerError as exc:
                    program, problem = None, exc.problem
            self._ended(rounds, self._round(step, program, problem, instances,
                                            curriculum_args(step))[0])
            if step + 1 < len(CURRICULUM):
                nxt, sig = CURRICULUM[step + 1]
                chat.append({"role": "user", "content": template("curriculum_step.txt").fill(
                    constraint=nxt, signature=sig)})
        return rounds

    def run(self, instances: Optional[Sequence] = None, extension: bool = False) -> IPPResult:
        """Direct generation, then refinement rounds (see the module docstring). A round whose
        answer held no program, or whose program failed on every instance, is retried with the
        reason and does not end the run; it counts toward ``max_rounds``."""
        instances = list(instances if instances is not None else self.task.instances)
        start = time.monotonic()
        ledger = getattr(self.llm, "ledger", None)
        before = usage_snapshot(ledger)
        program, problem = self.direct(extension)
        current, scored = self._round(0, program, problem, instances)
        rounds: list[Round] = []
        self._ended(rounds, current)
        previous_mean = float("-inf")
        stale = 0
        last_program = current.program
        while len(rounds) <= self.max_rounds:
            if current.program is None:
                program, problem = self.retry(last_program, current.error or "no program")
            else:
                # a program that failed on every instance (crash, wrong return, no solve) is
                # fed back like an unusable answer: it does not trigger the stopping rule
                if current.failures < len(instances):
                    if current.mean <= previous_mean:
                        stale += 1
                        if stale > self.patience:
                            break
                    else:
                        stale = 0
                    previous_mean = max(previous_mean, current.mean)
                program, problem = self.refine(current.program, instances, scored,
                                               current.worst)
            left_out, self.samples_left_out = self.samples_left_out, 0
            current, scored = self._round(len(rounds), program, problem, instances)
            current.samples_left_out = left_out
            self._ended(rounds, current)
            last_program = current.program or last_program
        return _result(self.task.name, rounds, ledger, before, start)

    def run_curriculum(self, instances: Optional[Sequence] = None) -> IPPResult:
        """:meth:`curriculum` as a result: its steps are the rounds, the best step wins."""
        start = time.monotonic()
        ledger = getattr(self.llm, "ledger", None)
        before = usage_snapshot(ledger)
        return _result(self.task.name, self.curriculum(instances), ledger, before, start)


#: the curriculum's steps: (the constraint added, the signature asked for)
CURRICULUM = (
    ("", "solve(grid, start_position, max_actions)"),
    ("diagonal moves: when `is_diagonals_allowed` is true you may also move UPLEFT, UPRIGHT, "
     "DOWNLEFT and DOWNRIGHT.", "solve(grid, start_position, max_actions, "
     "is_diagonals_allowed)"),
    ("a carry limit: you can carry at most `carry_limit` energy tokens at a time; TAKE does "
     "nothing beyond it.", "solve(grid, start_position, max_actions, is_diagonals_allowed, "
     "carry_limit)"),
    ("every action costs `cost_per_step` (a float), TAKE and DROP included; the cost is taken "
     "off your score.", "solve(grid, start_position, max_actions, is_diagonals_allowed, "
     "carry_limit, cost_per_step)"),
    ("obstacles: cells marked 'O' cannot be entered; a move into one does nothing but still "
     "uses up an action.", "solve(grid, start_position, max_actions, is_diagonals_allowed, "
     "carry_limit, cost_per_step)"),
)


def curriculum_args(step: int):
    """The keyword arguments a curriculum step's signature takes."""
    names = ["grid", "start_position", "max_actions", "is_diagonals_allowed", "carry_limit",
             "cost_per_step"][:3 + min(step, 3)]

    def args(instance) -> dict:
        full = instance.program_args()
        full["start_position"] = full.pop("start_pos")
        return {k: full[k] for k in names}
    return args


def _result(task: str, rounds: list[Round], ledger, before: Optional[dict],
            start: float) -> IPPResult:
    best = max(range(len(rounds)), key=lambda i: (rounds[i].mean, -i))
    return IPPResult(task, rounds, best, usage_since(ledger, before).to_dict(),
                     time.monotonic() - start)
