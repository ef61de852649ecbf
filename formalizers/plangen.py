"""PlanGen, the paper's LLM-as-planner baseline: one action per LLM call, with error feedback.

No PDDL is written: the LLM sees the task, the latest observation, the valid actions and the
history, and answers ``{"actions": ["move north"]}`` (PDDLego+ Appendix C.5 and C.10, kept as
``plangen.txt`` beside the other prompt files). The command is run; if it fails, the
environment's message goes back with the next prompt, up to ``max_simulation_retries``
consecutive failures (5 in the paper). An unreadable answer counts as a failed command with a
message that says what was wrong. The episode ends on a win, the action budget, or the retry
limit, and its metrics use the same :class:`~.loop.Metrics` as the PDDLego+ loop, so the two
are compared in one table. Done, won and the valid actions follow the same rules as the
PDDLego+ loop's (:func:`pddlkit.envs.api.ending`, :func:`.prompts.valid_actions`).
"""

from __future__ import annotations

import os
import time
from typing import Optional, Union

from pddlkit.agents.episode import RecordFile
from pddlkit.llm.context import fit_by_dropping, room
from pddlkit.llm.usage import usage_snapshot

from .base import history_text
from .llm_formalizer import PromptedLLM
from .loop import EpisodeResult, Limits, Metrics, finish_metrics, emitter, stop_reason
from .prompts import optional, valid_actions

#: tokens kept free for the answer when ``max_tokens`` is not set (one action as JSON)
ANSWER_TOKENS = 256


class PlanGenAgent(PromptedLLM):
    """``PlanGenAgent(llm, env_id, prompts=None)``: the LLM picks the next command."""

    name = "plangen"

    def render(self, task: str, history: list[tuple[str, str]], valid: list[str],
               error: Optional[str]) -> str:
        """The prompt; the history is trimmed to the model's context as the PDDLego+
        formalizer's is (oldest entries after the first go first, and the prompt says so)."""
        action, observation = history[-1]

        def prompt(kept, left_out: int) -> str:
            return self.prompts.fill("plangen",
                task=task, observation=f"Action: {action}\n{observation}",
                valid_actions=str(valid),
                history=history_text(kept, left_out) or "No additional memory available.",
                error=optional(error) if error else "No errors or obstacles mentioned."
            ).strip() + "\n"

        text, self.history_left_out = fit_by_dropping(
            prompt, history[:-1], room(self.llm, self.max_tokens or ANSWER_TOKENS),
            keep_first=1, keep_last=0)
        return text

    def act(self, task: str, history: list[tuple[str, str]], valid: list[str],
            error: Optional[str]) -> tuple[Optional[str], Optional[str]]:
        """(command, None), or (None, why the answer could not be used)."""
        from pddlkit.llm.extract import extract_json

        prompt = self.render(task, history, valid, error)
        answer = self.llm.complete([{"role": "user", "content": prompt}],
                                   temperature=self.temperature, max_tokens=self.max_tokens)
        try:
            data = extract_json(answer.text)
        except Exception:
            data = None
        actions = data.get("actions") if isinstance(data, dict) else None
        if isinstance(actions, str):
            actions = [actions]
        if not actions or not isinstance(actions[0], str) or not actions[0].strip():
            return None, ('Your answer could not be read: give one action as JSON, '
                          '{"actions": ["<one valid action>"]}.')
        return actions[0].strip(), None


def run_plangen(env, agent: PlanGenAgent, *, seed: Optional[int] = None,
                limits: Optional[Limits] = None,
                record: Union[str, os.PathLike, None] = None, on_event=None) -> EpisodeResult:
    """Play one episode with the LLM choosing each command; never raises for its mistakes."""
    from pddlkit.envs.api import as_step, check_env_once, ending, ending_at_reset
    from pddlkit.llm.errors import LLMError

    limits = limits or Limits()
    log = RecordFile(record)
    obs, info = env.reset(seed)
    check_env_once(env, purpose="act", context="run_plangen")
    end = ending_at_reset(info, env)
    history = [("look around", obs)]
    result = EpisodeResult(env.id, getattr(env, "seed", seed), env.task, agent.name, Metrics())
    m = result.metrics
    ledger = getattr(agent.llm, "ledger", None)
    before = usage_snapshot(ledger)
    started = time.monotonic()
    emit = emitter(log, on_event)
    emit("start", env=env.id, seed=result.seed, task=env.task, observation=obs,
         formalizer=agent.name)
    error: Optional[str] = None
    failures = 0
    while not end.done and m.actions < limits.action_budget:
        m.steps += 1
        try:
            valid = valid_actions(env)
            command, unreadable = agent.act(env.task, history, valid, error)
        except LLMError as exc:
            m.abort_reason = f"llm: {exc.message}"
            emit("abort", reason=m.abort_reason)
            break
        if agent.history_left_out:
            m.history_left_out = max(m.history_left_out, agent.history_left_out)
            emit("history-trimmed", step=m.steps, left_out=agent.history_left_out)
        if command is None:
            failed, error = "(unreadable answer)", unreadable
        else:
            result.plans.append([command])
            emit("plan", step=m.steps, commands=[command])
            step = as_step(env.step(command), f"step({command!r})", env)
            m.actions += 1
            emit("action", step=m.steps, command=command, observation=step.observation,
                 error=step.error)
            end = ending(step, env)
            if end.done:   # won, lost or truncated: the LLM is not asked again
                if not step.error:
                    history.append((command, step.observation))
                break
            if not step.error:
                history.append((command, step.observation))
                if failures:
                    m.simulation_fixed += 1
                failures, error = 0, None
                continue
            failed, error = command, step.observation
        m.simulation_errors += 1
        failures += 1
        result.errors.append({"step": m.steps, "kind": "simulation", "command": failed,
                              "message": error})
        emit("simulation-error", step=m.steps, command=failed, message=error, executed=[])
        if failures > limits.max_simulation_retries:
            m.simulation_aborts += 1
            m.abort_reason = "simulation errors: retry limit reached"
            emit("abort", reason=m.abort_reason)
            break
    m.success = end.won
    if not m.success and m.abort_reason is None:
        m.abort_reason = stop_reason(end, m.actions, limits.action_budget)
        emit("abort", reason=m.abort_reason)
    return finish_metrics(result, ledger, before, started, emit)
