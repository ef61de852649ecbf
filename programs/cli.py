"""IPP as an agent of :mod:`pddlkit.agents` (entry point ``ipp``): ``pddlkit run ipp``, ``pddlkit
bench`` cells and ``run_job`` all go through :data:`IPP_AGENT`.

    pddlkit run ipp --env grasp --llm standin:ipp:carry,cost
    pddlkit run ipp --env minigrid-doorkey --llm openai:o3-mini --save-program out/

``--llm standin[:MISTAKE,MISTAKE]`` (the default) is the stand-in program writer: our own
strategy with injected mistakes, each repaired only when the feedback shows its symptom.

An episode is one IPP run (direct generation, then refinement) with the seed splitting the
instances. IPP's outcome is a score, not a win: its row is a scored row
(:class:`pddlkit.agents.row.Row`) whose ``score`` is the best program's mean over the held-out
instances, a reward on MiniGrid ("mean held-out reward", a crash earning 0) and GRASP's score
("mean held-out score"), printed as that figure and never as WON or LOST. ``won`` and
``success_rate`` count held-out episodes that reached the goal: on MiniGrid the completion (won:
every one did); GRASP's instances have no goal, only a score, so none is won there. Running
without crashing is not winning: the crashes are counted apart (``eval_failures``, and named in
the summary). The training mean, the direct-generation mean, the completion and the best round
are columns. The record has one ``round`` event per round, written (and printed) as the round
is scored: its program, scores, failures, why no program, worst instances left out to fit the
context, and ``best``, whether it beats every earlier round.

Exit status (``pddlkit run ipp``): 0 when every episode's program was written and scored on
the held-out instances, whatever its score (a score of 0 is a measurement, read it from the
line or ``--json``); 1 when an episode had nothing to score (no round produced a program); 2
for bad input or an error that stopped the run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pddlkit.agents import AgentError, AgentSpec, option
from pddlkit.agents.helps import Help, helps_column, helps_on, helps_summary, options_with_helps
from pddlkit.agents.standins import knows

from .runner import TASK_IDS
from .standin import STAND_INS


@dataclass
class _LoopOptions:
    """The options of the paper's loop; the helps beyond it come from :data:`IPP_HELPS`."""

    train: Optional[int] = option(None, "training grids (GRASP) or seeds (MiniGrid); default "
                                        "all 1,000 GRASP grids of the split, 100 seeds",
                                  minimum=1)
    evaluate: Optional[int] = option(None, "held-out grids or seeds to report on (default "
                                           "1,000 / 100)", flag="--eval", aliases=("eval",),
                                     minimum=1)
    rounds: int = option(5, "refinement rounds at most", minimum=0)
    k: int = option(3, "worst instances shown in each refinement prompt", minimum=1)
    feedback: str = option("rich", "rich (settings, scores, the simulator's account) or bare "
                                   "(the paper's grids only)", choices=("rich", "bare"))
    mode: str = option("ir", "iterative refinement from direct generation (ir), from the "
                             "paper's pseudocode extension (pe, GRASP), or the step-by-step "
                             "curriculum (GRASP)", choices=("ir", "pe", "curriculum"))
    prompts: str = option("ours", "our prompt templates, or the paper's Appendix A.3 text "
                                  "word for word", choices=("ours", "paper"))
    patience: int = option(0, "refinement rounds without improvement allowed (0: the paper's "
                              "rule)", minimum=0)
    workers: Optional[int] = option(None, "sandbox workers scoring programs (default: the "
                                          "cores)", minimum=1)
    save_program: Optional[str] = option(None, "write the best program and its scores into "
                                               "this folder")


#: IPP's helps beyond the paper's loop, one line each (:mod:`pddlkit.agents.helps`): their
#: options, the rows' helps column and summary come from here
IPP_HELPS: tuple[Help, ...] = (
    Help("probe", "try each program on this many training instances first; a failure comes "
                  "back with its line, the instance, the return type and a worked call, and "
                  "the fix is asked for before the round is scored (0: off, the paper's "
                  "loop)", counted=True),
    Help("mend", "code mends what it can in each program before it runs (an empty block gets "
                 "`pass`, tabs in indentation become spaces), each mend named in the round's "
                 "record (off: the paper's loop)"),
    Help("skeleton", "the prompts give tested helpers over the task's API (a path search and "
                     "a nearest-cell finder for GRASP, a walker that knows the agent's facing "
                     "for MiniGrid) and ask for solve only; they run after the program (off: "
                     "the paper's loop)"),
    Help("solve_first", "each request for code is decoded under a grammar: the answer opens "
                        "a Python block with the requested function's def line (def solve(), "
                        "so it is written before any helper, and ends at the block's fence; "
                        "needs an LLM whose server takes grammars (local:), refused elsewhere "
                        "(off: the paper's loop)"),
)
#: ``pddlkit run ipp``'s options: the paper's loop's, then one per help of :data:`IPP_HELPS`
IPPOptions = options_with_helps("IPPOptions", _LoopOptions, IPP_HELPS, __name__)


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in program writer knows, for row labels and summaries; None for an LLM."""
    return knows(llm, STAND_INS, "ipp")


def measure(env: str) -> str:
    """What an IPP row's score is on ``env``: MiniGrid's mean reward (a crash earns 0), or
    GRASP's mean score (energy collected net of costs)."""
    return "mean held-out reward" if env.startswith("minigrid") else "mean held-out score"


def _finite(value: Optional[float]) -> Optional[float]:
    """``value``, or None for the -inf a run without a program carries (not JSON)."""
    return value if value is not None and math.isfinite(value) else None


def _round_events(episode, task: str, mode: str):
    """The ``on_round`` of a run: each round is a ``round`` event the moment it is scored,
    so ``pddlkit run ipp`` prints it then (a run takes minutes; its lines used to come all
    at once at the end). ``best`` is whether the round beats every earlier one (the run's
    best is the last so marked, and the row's ``best_round``)."""
    top = [float("-inf")]

    def emit(r) -> None:
        best = r.mean > top[0]
        top[0] = max(top[0], r.mean)
        episode.emit("round", task=task, round=r.index, program=r.program, mean=r.mean,
                     failures=r.failures, instances=len(r.scores), scores=r.scores,
                     worst=r.worst, error=r.error, samples_left_out=r.samples_left_out,
                     best=best, mode=mode, probe_failures=r.probe_failures,
                     probe_fixes=r.probe_fixes, probe_redraws=r.probe_redraws,
                     probe_function_fixes=r.probe_function_fixes, mends=r.mends,
                     dropped=r.dropped, decoding=r.decoding)
    return emit


def decoding_said(rounds) -> str:
    """How the code requests of a run were decoded (``solve_first``): ``gbnf x7``, and any
    that went unconstrained with why."""
    counts: dict[str, int] = {}
    for r in rounds:
        for mode, n in r.decoding.items():
            counts[mode] = counts.get(mode, 0) + n
    return ", ".join(f"{mode} x{n}" for mode, n in counts.items()) or "no code request"


def play(job):
    from .runner import run_task

    o = job.options
    if o.probe and o.mode == "curriculum":
        raise AgentError("--probe tries each program on training instances of the full game; "
                         "the curriculum's steps play simplified games (leave --probe out, or "
                         "use --mode ir or pe)")
    if o.solve_first and o.mode == "curriculum":
        raise AgentError("--solve-first constrains requests for code; the curriculum's steps "
                         "answer in one chat (leave --solve-first out, or use --mode ir or pe)")
    if o.skeleton and o.prompts == "paper":
        raise AgentError("--skeleton adds tested helpers to our prompts; --prompts paper sends "
                         "the paper's text word for word (leave one of them out)")
    llm = job.make_llm() or "standin"   # after the checks: loading may start a server
    if o.solve_first:
        from .runner import solve_first_refused
        why = solve_first_refused(llm)
        if why:
            raise AgentError(f"--solve-first decodes each request for code under a grammar, "
                             f"and this LLM cannot: {why} (give --llm local:MODEL, or leave "
                             "--solve-first out)")
    for seed in job.seeds:
        episode = job.episode(seed)
        episode.emit("plan", task=job.env, llm=job.llm or "standin", rounds=o.rounds,
                     mode=o.mode, train=o.train, evaluate=o.evaluate)
        split = job.make_env(train=o.train, evaluate=o.evaluate, seed=seed)
        outcome = run_task(job.env, llm, seed=seed, train=o.train, evaluate=o.evaluate,
                           split=split, on_round=_round_events(episode, job.env, o.mode),
                           rounds=o.rounds, k=o.k, feedback=o.feedback, patience=o.patience,
                           prompts=o.prompts, probe=o.probe, mend=o.mend,
                           skeleton=o.skeleton, solve_first=o.solve_first,
                           mode=o.mode, workers=o.workers,
                           save=Path(o.save_program) if o.save_program else None,
                           max_tokens=job.max_tokens or 4000)
        result = outcome.result
        if outcome.writer is not None:
            episode.emit("stand-in", injected=outcome.writer.injected,
                         repaired=outcome.writer.repaired)
        scored = result.program is not None
        # a trial is won when it reaches the goal: MiniGrid's completion; GRASP has no goal
        rate = outcome.completion if scored and outcome.completion is not None else 0.0
        extra = f", completion {outcome.completion:.2f}" if outcome.completion is not None \
            else ""
        crashed = f" ({outcome.eval_failures} of {outcome.eval_instances} crashed)" \
            if outcome.eval_failures else ""
        if scored:
            direct = f"{result.direct_mean:.3f}" if math.isfinite(result.direct_mean) else \
                "no program"
            summary = (f"training mean {outcome.train_mean:.3f} (direct generation "
                       f"{direct}); held-out mean {outcome.eval_mean:.3f}{extra}{crashed}")
        else:
            why = next((r.error for r in reversed(result.rounds) if r.error), None)
            summary = (f"no program to score after {len(result.rounds)} round(s)"
                       + (f": {why.splitlines()[0][:160]}" if why else ""))
        if outcome.eval_crashes:
            shown = outcome.eval_crashes[:3]
            summary += "; held-out failures: " + "; ".join(
                f"{name}: {account.splitlines()[0][:160] if account else 'no account'}"
                for name, account in shown)
            if len(outcome.eval_crashes) > len(shown):
                summary += f" (and {len(outcome.eval_crashes) - len(shown)} more)"
        if o.save_program:
            summary += f"; {outcome.save_error}" if outcome.save_error else \
                f"; saved the best program in {o.save_program}/program.py"
        if result.program is not None and outcome.train_mean <= 0:
            # a best program that earns nothing is still the best: say so, and why it stopped
            summary += ("; the best program earns nothing on the training instances"
                        + (" (saved all the same)" if o.save_program else ""))
            if len(result.rounds) - 1 < o.rounds and not o.patience:
                summary += ("; refinement stopped at the first round without improvement "
                            "(the paper's rule): --patience 2 lets it go on")
        if o.probe:
            fixes = sum(r.probe_fixes for r in result.rounds)
            redraws = sum(r.probe_redraws for r in result.rounds)
            functions = sum(r.probe_function_fixes for r in result.rounds)
            summary += (f"; probe: {sum(len(r.probe_failures) for r in result.rounds)} "
                        f"failures found on the first {o.probe} training instances, {fixes} "
                        f"fixes asked for ({functions} for the failing function only; "
                        f"{redraws} returned the program unchanged and were drawn again)")
        dropped = sum(len(r.dropped) for r in result.rounds)
        if dropped:   # always on (issue 76): said, so a row shows what code took out
            summary += f"; {dropped} top-level statements dropped before loading"
        if o.mend:
            summary += (f"; mend: {sum(len(r.mends) for r in result.rounds)} mends by code "
                        f"in {sum(bool(r.mends) for r in result.rounds)} round(s)")
        if o.solve_first:
            summary += "; solve-first: " + decoding_said(result.rounds)
        used = helps_on(IPP_HELPS, o)
        summary += helps_summary(used)
        yield episode.row(
            scored and rate == 1.0, rate, max(1, outcome.eval_instances), summary,
            helps=helps_column(used),
            usage=result.usage, score=outcome.eval_mean if scored else None,
            measure=measure(job.env), rounds=len(result.rounds),
            direct_mean=_finite(result.direct_mean), train_mean=_finite(outcome.train_mean),
            eval_mean=_finite(outcome.eval_mean), completion=outcome.completion,
            best_round=result.best,
            eval_failures=outcome.eval_failures, program=result.program is not None,
            injected=outcome.writer.injected if outcome.writer else None,
            repaired=outcome.writer.repaired if outcome.writer else None)


def describe(kind: str, data: dict) -> Optional[str]:
    if kind == "plan":  # said at once: each round prints when it is scored (seconds to minutes)
        sizes = ", ".join(f"{n} {what}" for n, what in ((data["train"], "training"),
                                                         (data["evaluate"], "held-out"))
                          if n) or "the task's training and held-out"
        return (f"IPP on {data['task']} with {data['llm']}: a program, then up to "
                f"{data['rounds']} refinement rounds ({data['mode']}), each scored in the "
                f"sandbox on {sizes} instances; each round prints when it is scored")
    if kind == "round":
        what = f"mean {data['mean']:.3f}, failures {data['failures']}" if data["program"] \
            else f"no program: {data['error']}"
        name = f"step {data['round']}" if data["mode"] == "curriculum" else \
            "direct generation" if data["round"] == 0 else "refinement"
        probed = "".join(f"\n  probe: {failure.splitlines()[0][:160]} (fix asked for)"
                         for failure in data.get("probe_failures") or []) + "".join(
            f"\n  mended by code: {mend}" for mend in data.get("mends") or []) + "".join(
            f"\n  code: {drop}" for drop in data.get("dropped") or [])
        return (f"round {data['round']} ({name}): {what}"
                f"{'  <- best so far' if data['best'] else ''}"
                + probed)
    if kind == "stand-in":
        return (f"stand-in: injected {', '.join(data['injected']) or 'nothing'}; repaired "
                f"{', '.join(data['repaired']) or 'nothing'}")
    return None


IPP_AGENT = AgentSpec(
    "ipp", "IPP: the LLM writes one program for every instance and refines it on its worst "
    "instances (run in the sandbox)", IPPOptions, play, stand_in=stand_in, envs=TASK_IDS,
    default_env="grasp", describe=describe, stand_ins=STAND_INS)
