"""The LLM formalizer: the paper's prompts in, ``{"df": ..., "pf": ...}`` out.

Context: the prompt carries the episode's whole history, which grows by one entry a command.
When the backend knows its model's context (``local:`` servers do, see
:mod:`pddlkit.llm.context`) and the prompt would not leave room for the answer
(``max_tokens``, or :data:`ANSWER_TOKENS` when unset), the oldest entries after the first
observation go first, the last one is always kept, and the history says how many were left out.
The files themselves (the previous domain and problem) are what the model edits, so they are
cut last. They are shown tidied: trailing blanks and runs of blank lines go (no PDDL meaning is
lost; a small model under a grammar can fill its answer limit with blank lines). When the prompt
still does not fit with the fewest history entries, the longest of the previous problem, the
previous domain and the error is cut (its start kept, a line saying how many lines were left out
and why) until it fits: a revision prompt must never be refused by the server for carrying a
runaway answer whole (measured: a 2,048-token answer of blank lines made a 10,529-token prompt
against an 8,192-token context, and the episode ended).
"""

from __future__ import annotations

from collections import Counter
from typing import Optional, Union

from pddlkit.llm.base import LLM
from pddlkit.llm.context import CHARS_PER_TOKEN, estimate_tokens, fit_by_dropping, room

from .answer import AnswerError, Files, parse_answer, parse_problem_answer

#: the least of a cut text kept, in characters: its start says what it was
MIN_SHOWN = 200


def tidy(text: Optional[str]) -> Optional[str]:
    """``text`` without trailing blanks and with runs of blank lines made one."""
    if text is None:
        return None
    lines = [line.rstrip() for line in text.splitlines()]
    kept = [line for k, line in enumerate(lines) if line or (k and lines[k - 1])]
    return "\n".join(kept).strip("\n")


def cut(text: str, chars: int, what: str) -> str:
    """``text``'s start, at most ``chars`` characters of whole lines, and a line saying how
    many lines of ``what`` were left out to fit the model's context."""
    lines = text.splitlines()
    kept: list[str] = []
    size = 0
    for line in lines:
        if kept and size + len(line) + 1 > chars:
            break
        kept.append(line[:max(chars, MIN_SHOWN)])
        size += len(line) + 1
    left = len(lines) - len(kept)
    return "\n".join(kept) + (f"\n[... {left} more lines of the {what} left out to fit the "
                              f"model's context]" if left else "")


def _checks(files: Files) -> bool:
    """Whether the files pass ``pddlkit.check`` with no error (the samples help's filter)."""
    from pddlkit.checks import check

    return check(files.domain, files.problem).ok
from .base import Context, history_text
from .prompts import Prompts, optional


class PromptedLLM:
    """An LLM (an object or a spec string) with an environment's prompt templates.

    ``prompts`` is a folder of template files overriding the bundled ones. ``temperature``
    and ``max_tokens`` go to every call."""

    def __init__(self, llm: Union[LLM, str], env_id: str, *, prompts: Optional[str] = None,
                 temperature: float = 0.0, max_tokens: Optional[int] = None) -> None:
        if isinstance(llm, str):
            from pddlkit.llm.spec import load_llm

            llm = load_llm(llm)
        self.llm = llm
        self.prompts = Prompts.for_env(env_id, prompts)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.history_left_out = 0  # history entries the last prompt left out to fit the context
        self.files_cut = 0  # cuts of the previous files or error the last prompt needed to fit


#: the temperature of a prompt asked again unchanged (see LLMFormalizer)
RETRY_TEMPERATURE = 0.7
#: tokens kept free for the answer when ``max_tokens`` is not set (a domain and a problem file)
ANSWER_TOKENS = 1024


class LLMFormalizer(PromptedLLM):
    """``LLMFormalizer(llm, env_id, goal_style="detailed", prompts=None)``: the paper's
    prompts, answered with ``{"df": ..., "pf": ...}``.

    A prompt asked again unchanged (a retry whose error text is the same as the last one's)
    would get the same answer back at temperature 0, so every retry would repeat one mistake:
    the n-th repeat of a prompt is asked at :data:`RETRY_TEMPERATURE` with seed n, so it can
    differ, and a transcript still replays it (the seed is part of the request)."""

    name = "pddlego"

    def __init__(self, llm: Union[LLM, str], env_id: str, *, goal_style: str = "detailed",
                 prompts: Optional[str] = None, temperature: float = 0.0,
                 max_tokens: Optional[int] = None, constrained: bool = False,
                 samples: int = 1) -> None:
        super().__init__(llm, env_id, prompts=prompts, temperature=temperature,
                         max_tokens=max_tokens)
        if samples < 1:
            raise ValueError(f"samples must be 1 or more, got {samples}")
        #: answers drawn per request (the ``samples`` help): the first that parses and passes
        #: ``pddlkit.check`` is used, else the first that parses; the later ones are asked at
        #: :data:`RETRY_TEMPERATURE` with their own seeds. 1 is the paper's single answer
        self.samples = samples
        self.samples_drawn = 0   # answers asked for in all (each one a call in the ledger)
        self.samples_used: list[int] = []   # per request, which sample (1-based) was used
        self.goal_style = goal_style
        self.last_prompt = ""
        self._asked: dict[int, int] = {}  # prompt hash -> times asked
        #: decode under the answer's grammar (:func:`pddlkit.pddl.grammars.answer_grammar`):
        #: the JSON with both files, the environment's actions fixed, every list bounded; with
        #: a frozen domain (``fixed_domain``, set by the loop) the problem's facts are over its
        #: predicates. Object names stay free (bounded in length): the model names the rooms
        #: it has not seen yet itself.
        self.constrained = constrained
        self.fixed_domain: Optional[str] = None
        self.modes: list[str] = []   # each call's Completion.constraint_mode
        #: with a frozen domain, ask for the problem file alone (the ``problem_only`` help):
        #: the prompt shows the domain and asks for ``{"pf": ...}``, the grammar (when
        #: constrained) is the problem file's, and the frozen domain completes the files. Off,
        #: the model writes both files and the loop discards its domain (the paper's way)
        self.problem_only = False
        #: how often each help changed a request (label -> count; :mod:`.modular`'s too)
        self.acted: Counter = Counter()
        #: every answer's text since the last :meth:`work_done`, readable or not: recorded as
        #: an ``answers`` event, so a record of the whole-file mode can be replayed with the
        #: model's own answers (``benchmarks/replay_records.py``; its files alone say
        #: nothing of an answer that held none). The loop drains it after every request; a
        #: caller of :meth:`propose` alone drains it with :meth:`work_done`
        self.answers: list[str] = []

    def work_done(self) -> list[tuple[str, dict]]:
        """How often each help changed a request since the last call, and the answers given
        (:class:`.base.ReportsWork`)."""
        answers, self.answers = self.answers, []
        return ([("answers", {"answers": answers})] if answers else []) + \
            _drain_acted(self.acted)

    def render(self, context: Context) -> str:
        """The prompt for ``context``, its history trimmed to the model's context (see the
        module docstring); ``history_left_out`` says how many entries went."""
        prev = context.previous
        history = context.memory.history
        last_action, last_obs = history[-1] if history else ("look around", "")

        shown = {"previous_df": tidy(prev.domain if prev else None),
                 "previous_pf": tidy(prev.problem if prev else None),
                 "error": context.error}
        what = {"previous_df": "previous domain", "previous_pf": "previous problem",
                "error": "error"}

        def prompt(kept, left_out: int) -> str:
            return self.prompts.render(
                context.kind if context.previous is not None or context.kind != "update"
                else "initial",
                self.goal_style, task=context.memory.task,
                observation=f"Action: {last_action}\n{last_obs}",
                valid_actions=str(context.valid_actions), action_signatures=context.signatures,
                n_actions=str(context.n_actions),
                previous_df=optional(shown["previous_df"]),
                previous_pf=optional(shown["previous_pf"]),
                history=history_text(kept, left_out), error=optional(shown["error"]),
                failed_action=optional(context.failed_action),
                executed=", ".join(context.executed) or "(none)")

        budget = room(self.llm, self.max_tokens or ANSWER_TOKENS)
        text, self.history_left_out = fit_by_dropping(prompt, history, budget, keep_first=1)
        self.files_cut = 0
        while budget is not None and estimate_tokens(text) > budget:
            name = max(shown, key=lambda k: len(shown[k] or ""))
            size = len(shown[name] or "")
            over = int((estimate_tokens(text) - budget) * CHARS_PER_TOKEN) + 80
            if size <= MIN_SHOWN:
                break   # nothing left to cut: the server's refusal is the error reported
            shown[name] = cut(shown[name], max(MIN_SHOWN, size - over), what[name])
            self.files_cut += 1
            text, self.history_left_out = fit_by_dropping(prompt, history, budget,
                                                          keep_first=1)
        if self._problem_only():
            self.acted["problem-only"] += 1
            text += "\n" + self.prompts.fill("problem_only",
                                              domain=self.fixed_domain).strip() + "\n"
        return text

    def _problem_only(self) -> bool:
        return bool(self.problem_only and self.fixed_domain)

    def propose(self, context: Context) -> Files:
        self.last_prompt = self.render(context)
        key = hash(self.last_prompt)
        repeat = self._asked.get(key, 0)
        self._asked[key] = repeat + 1
        extra = {"constraint": self.grammar(context)} if self.constrained else {}
        fallback: Optional[Files] = None
        unreadable: Optional[AnswerError] = None
        for k in range(self.samples):
            draw = repeat * self.samples + k     # every sample of every repeat its own seed
            temperature = max(self.temperature, RETRY_TEMPERATURE) if draw else self.temperature
            answer = self.llm.complete([{"role": "user", "content": self.last_prompt}],
                                       temperature=temperature, seed=draw or None,
                                       max_tokens=self.max_tokens, **extra)
            self.samples_drawn += 1
            self.answers.append(answer.text)
            if self.constrained:
                self.modes.append(answer.constraint_mode)
            try:
                files = self._files(answer.text)
            except AnswerError as exc:
                unreadable = unreadable or exc
                continue
            if self.samples == 1 or _checks(files):
                self.samples_used.append(k + 1)
                return files
            fallback = fallback or files
        if fallback is not None:
            self.samples_used.append(0)   # none checked: the first readable one
            return fallback
        raise unreadable

    def _files(self, text: str) -> Files:
        if self._problem_only():
            return Files(self.fixed_domain, parse_problem_answer(text))
        return parse_answer(text)

    def grammar(self, context: Context):
        """The answer's grammar for this context (cached per signatures and frozen domain)."""
        key = (context.signatures.text, self.fixed_domain, self._problem_only())
        if getattr(self, "_grammar_key", None) != key:
            from pddlkit.pddl.grammars import answer_grammar, problem_answer_grammar
            from pddlkit.pddl.reader import read_domain

            domain = read_domain(self.fixed_domain)[0] if self.fixed_domain else None
            if self._problem_only() and domain is not None:
                self._grammar = problem_answer_grammar(domain)
            else:
                self._grammar = answer_grammar(
                    actions=list(context.signatures) or None, domain=domain)
            self._grammar_key = key
        return self._grammar


def _drain_acted(acted: Counter) -> list[tuple[str, dict]]:
    """A ``help-acted`` event of the helps that acted (none when none did), the counts
    cleared."""
    counts = {k: v for k, v in acted.items() if v}
    acted.clear()
    return [("help-acted", {"counts": counts})] if counts else []
