"""PDDLego+ and PlanGen as agents of :mod:`pddlkit.agents` (entry points ``pddlego`` and
``plangen`` of ``pddlkit.agents``): ``pddlkit run pddlego``, ``pddlkit bench`` cells, and
``run_job`` from Python all go through :data:`PDDLEGO` and :data:`PLANGEN`.

    pddlkit run pddlego --env coin-collector --rooms 7 --llm openai:gpt-4o-mini
    pddlkit run pddlego --env coin-collector --llm standin:pddlego:noisy   # offline, slips
    pddlkit run plangen --env coin-collector --llm local:qwen2.5-coder-1.5b

``retries`` sets both retry limits (5 in the paper; 0 and 0 give the paper's PDDLego
baseline, no refine loops), ``solver_retries`` / ``simulation_retries`` each one. ``repair``,
``fact_memory``, the domain library options (``save_domain``, ``reuse_domain``), ``domain``
(a domain file frozen) and the helps for small models (``modular``: one part of the files per
call, :mod:`.modular`; ``small_model`` turns them on together) are the options beyond the
paper. A help a stand-in cannot use (``modular``, ``samples``) is refused when asked for by
name, and left out of the preset's ``helps`` column with a stand-in. The ``noisy`` stand-in draws its mistakes from the episode's
``rng_seed`` (a bench cell's own, else the seed).
"""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from pddlkit.agents import AgentError, AgentSpec, option
from pddlkit.agents.helps import (acted, acted_column, check_requirements, helps_column,
                                  helps_summary, options_with_helps, preset, preset_help,
                                  split_by_offers)
from pddlkit.agents.standins import knows
from pddlkit.flags import non_negative_float, positive_float
from pddlkit.llm.grammar import describe_modes

from .base import DecodesUnderGrammars, DrawsAtRandom, DrawsSamples, PlaysLearnedAspects
from .help_table import DOMAIN_WRITING, HELPS, MODULAR_HELPS
from .library import entry_of_file
from .loop import Limits


from .standins import STAND_INS


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What a stand-in formalizer knows, for row labels and summaries; None for a real LLM."""
    return knows(llm, STAND_INS, "pddlego")


def offline(llm: Optional[str]) -> bool:
    return stand_in(llm) is not None


@dataclass
class _LoopOptions:
    """The options of the paper's loop and of the domain library; the helps beyond it come
    from :data:`.help_table.HELPS` (see :data:`PDDLegoOptions`)."""

    budget: int = option(50, "environment actions per episode", aliases=("action_budget",),
                         minimum=1)
    retries: int = option(5, "solver and simulation retry limits (0: the paper's PDDLego)",
                          minimum=0)
    solver_retries: Optional[int] = option(None, "solver retry limit (default: --retries)",
                                           minimum=0)
    simulation_retries: Optional[int] = option(None, "simulation retry limit (default: "
                                                     "--retries)", minimum=0)
    goal_style: str = option("detailed", "the prompts' goal guidance",
                             choices=("detailed", "simple"))
    prompts: Optional[str] = option(None, "a folder of prompt templates overriding the "
                                          "bundled ones")
    temperature: float = option(0.0, "the LLM's sampling temperature",
                                parse=non_negative_float)
    planner: str = option("fast-downward", "a planner name (pddlkit planners)")
    planner_timeout: float = option(30.0, "seconds per planner call", parse=positive_float)
    constrained: bool = option(False, "decode the LLM's answer under the PDDL grammar (the "
                                      "environment's actions fixed, lists bounded), where the "
                                      "LLM's server takes grammars")
    samples: int = option(1, "answers drawn per request; the first that passes pddlkit check "
                             "is used (1: the paper's single answer)", minimum=1)
    library: Optional[str] = option(None, "domain library folder (default: the user's)")
    save_domain: bool = option(False, "save the domain of each won episode to the library")
    reuse_domain: bool = option(False, "freeze the library's best verified domain for this "
                                       "environment")
    domain: Optional[str] = option(None, "a domain file to freeze (only the problem file is "
                                         "learned), e.g. domains/coin-collector/domain.pddl")
    keep_domain: bool = option(False, "with --modular: keep the domain the model wrote from "
                                      "one episode to the next, with the transitions it was "
                                      "checked against (learning over --episodes; pddlkit "
                                      "learn-domain)")
    no_score: bool = option(False, "do not compare each file with the environment's truth "
                                   "(no score events; the rows' files-against-the-truth "
                                   "column is then empty): a replay or a long sweep that "
                                   "needs only the plans and outcomes goes faster")


#: ``pddlkit run pddlego``'s options: the loop's, then one switch per help of
#: :data:`.help_table.HELPS`, then ``small_model``, the preset that turns them on together
PDDLegoOptions = options_with_helps(
    "PDDLegoOptions", _LoopOptions, HELPS, __name__,
    extra=[("small_model", bool, option(False, preset_help(
        HELPS, "the helps for small models at once (--modular only with an LLM)")))])


@dataclass
class PlanGenOptions:
    budget: int = option(50, "environment actions per episode", aliases=("action_budget",),
                         minimum=1)
    retries: int = option(5, "consecutive failed commands allowed", minimum=0)
    prompts: Optional[str] = option(None, "a folder of prompt templates overriding the "
                                          "bundled ones")
    temperature: float = option(0.0, "the LLM's sampling temperature",
                                parse=non_negative_float)


def limits(o) -> Limits:
    solver = getattr(o, "solver_retries", None)
    simulation = getattr(o, "simulation_retries", None)
    return Limits(max_solver_retries=o.retries if solver is None else solver,
                  max_simulation_retries=o.retries if simulation is None else simulation,
                  action_budget=o.budget,
                  planner_timeout=getattr(o, "planner_timeout", 30.0))


#: what ``small_model`` turns on (each one is also an option of its own). The last six
#: joined on 2026-11-28, measured with Qwen2.5-Coder 1.5B as the ``preset-focus`` rows of
#: ``examples/real-llm/small-model.md``: 17 of 20 on CoinCollector 3 rooms (the set before
#: them: 17 of 20), 3 of 5 on 5 rooms (4 of 5), 5 of 5 on the household basic&use (0 of
#: 5) and 4 of 4 real ALFWorld pick games. Read those figures as what they are: dev seeds
#: (each help was built from a mistake Qwen made on those very seeds), the simulator's own
#: domain frozen, and, for the CoinCollector ones, from before daadc89, when
#: ``info["failed"]`` named the room behind a closed door before the agent saw it (a leak: 6
#: of the 17 three-room wins and all five-room wins received such a name). Random answers
#: through the same pipeline win some of these games too (``--llm random``;
#: ``benchmarks/small_model.py --split test --model random``). On CoinCollector
#: ``command_facts`` types "move east"'s ``east`` as a direction and the others have little
#: to do.
SMALL_MODEL = preset(HELPS)
#: helps that are options of their own, not (yet) in ``small_model``'s set (none now:
#: ``here_facts`` joined it on 2026-11-28, after CoinCollector 3 rooms 10/10 and 5 rooms 5/5
#: with it over the preset, ``small-model.md``); a help is named here while it is measured
OWN_HELPS: tuple[str, ...] = tuple(h.name for h in HELPS if not h.preset)


def helps(o, llm: Optional[str] = None) -> list[str]:
    """The helps beyond the paper a run uses, as their flag names (``small_model`` expanded;
    its ``modular`` only with an LLM: a stand-in writes whole files, and the row says which
    helps it had)."""
    on = [name for name in SMALL_MODEL if getattr(o, name, False)
          or (getattr(o, "small_model", False)
              and not (name in ("modular", *MODULAR_HELPS) and offline(llm)))]
    on += [name for name in OWN_HELPS if getattr(o, name, False)]
    if getattr(o, "constrained", False):
        on.append("constrained")
    if getattr(o, "samples", 1) > 1:
        on.append(f"samples-{o.samples}")
    return [name.replace("_", "-") for name in on]


def _metrics_summary(result) -> str:
    m = result.metrics
    return (f"in {m.actions} actions, {m.steps} steps; solver errors {m.solver_errors} "
            f"(fixed {m.solver_fixed}), simulation errors {m.simulation_errors} (fixed "
            f"{m.simulation_fixed})"
            + (f"; stopped: {m.abort_reason}" if m.abort_reason and not result.won else "")
            + _accuracy_summary(m))


def _accuracy_summary(m) -> str:
    """The files' scores against the environment's truth, when it has one (:mod:`.scoring`)."""
    if not m.files_scored:
        return ""
    parts = [f"{m.files_equivalent:.0%} of {m.files_scored} problem files equivalent to the "
             "truth"]
    if m.fact_precision is not None:
        parts.append(f"fact precision {m.fact_precision:.2f}, recall {m.fact_recall:.2f}")
    if m.domain_agreement is not None:
        parts.append(f"domain agreement {m.domain_agreement:.2f}")
    return "; " + ", ".join(parts)


def _columns(result) -> dict:
    metrics = asdict(result.metrics)
    metrics.pop("success")  # the row's won says it
    return metrics


def play_pddlego(job):
    from .api import make_formalizer
    from .loop import run_episode

    o = job.options
    given = _given_domain(o, job.llm)
    library = None
    if o.reuse_domain or o.save_domain:
        from .library import DomainLibrary

        library = DomainLibrary(o.library)
    used = helps(o, job.llm)
    used, inactive = active_helps(o, used, job.env)
    frozen_out = frozen_domain_helps(o, used)
    if o.keep_domain and ("modular" not in used or o.domain is not None or o.reuse_domain):
        raise AgentError("--keep-domain keeps the domain the model writes with --modular (or "
                         "--small-model and an LLM) from one episode to the next; --domain and "
                         "--reuse-domain freeze one instead")
    source = domain_source(o.domain, None)   # the library's entry, when reused, is per episode
    # a library entry given as its file (--domain): its learning columns too
    given_entry = entry_of_file(o.domain) if given is not None else None
    for seed in job.seeds:
        episode = job.episode(seed)
        env = job.make_env()
        if not (o.keep_domain and seed != job.seeds[0]):   # else: the one the model writes
            formalizer = make_formalizer(job.make_llm(), env.id,
                                         **_formalizer_options(o, job, used))
            if o.keep_domain:
                formalizer.keep_domain = True
        if isinstance(formalizer, DrawsAtRandom):
            formalizer.rng.seed(episode.rng_seed)
        frozen, reused = (given, None) if not o.reuse_domain else \
            _library_domain(library, env, o, episode)
        if isinstance(formalizer, PlaysLearnedAspects):
            formalizer.reused_aspects = reused.aspects() if reused is not None else {}
        result = run_episode(env, formalizer, seed=seed, planner=o.planner, limits=limits(o),
                             on_event=episode.on_event, domain=frozen,
                             problem_only="problem-only" in used, helps=used,
                             score=not o.no_score)
        summary = _metrics_summary(result) + _helps_summary(o, used, formalizer, result)
        summary += _domain_summary(o, result, reused, given, library, job.llm)
        if inactive:
            summary += (f"; inactive here: {', '.join(inactive)} ({job.env} gives no "
                        "machine-readable failures, info[\"failed\"])")
        if frozen_out:
            summary += f"; inactive with a frozen domain: {', '.join(frozen_out)}"
        if result.left_out:
            summary += (f"; left out of the domain: {', '.join(result.left_out)} "
                        "(no command here)")
        episode_source = source if reused is None else domain_source(None, reused)
        summary += f"; domain: {episode_source}"
        did = acted(HELPS, used, episode.counts)
        if did:   # issue 73: the helps that were on, each with how often it changed something
            summary += f"; helps acted: {acted_column(did)}"
        yield episode.row(result.won, summary=summary, helps=helps_column(used),
                          helps_acted=acted_column(did), domain_source=episode_source,
                          **_learning_columns(reused or given_entry, seed),
                          **_columns(result))


def _given_domain(o, llm: Optional[str]) -> Optional[str]:
    """The options checked against what each help needs (an option it helps, a real LLM,
    from the table); the ``--domain`` file's text, or None."""
    check_requirements(HELPS, o, preset_on=o.small_model,
                       stand_in=(llm or "standin:pddlego") if offline(llm) else None)
    if o.samples > 1 and offline(llm):
        raise AgentError(f"--samples {o.samples} draws several answers from an LLM; the "
                         f"stand-in {llm or 'standin:pddlego'} writes one (name an LLM, or "
                         "leave --samples at 1)")
    if o.domain is None:
        return None
    if o.reuse_domain:
        raise AgentError("--domain and --reuse-domain both freeze a domain; give one")
    from .api import frozen_domain

    try:
        return frozen_domain(o.domain)
    except (OSError, ValueError) as exc:
        raise AgentError(f"--domain {o.domain}: {exc}") from None


def _formalizer_options(o, job, used: list[str]) -> dict:
    """make_formalizer's options: an LLM's settings and the modular formalizer's helps."""
    extra = {} if offline(job.llm) else {
        "goal_style": o.goal_style, "prompts": o.prompts, "temperature": o.temperature,
        "max_tokens": job.max_tokens, "constrained": o.constrained, "samples": o.samples,
        "modular": "modular" in used}
    extra.update({name: True for name in MODULAR_HELPS if name.replace("_", "-") in used})
    return extra


def _library_domain(library, env, o, episode):
    """(the domain text, the library's entry) chosen for this task (``--reuse-domain``);
    entries passed over are said once each. An environment with another's commands
    (``learned_domains_of``: TextWorld's coin games, CoinCollector's) reuses what was learned
    there."""
    learned_in = getattr(env, "learned_domains_of", None) or env.id
    reused, failed = library.choose(learned_in, env.task, planner=o.planner)
    if reused is None:
        also = f" (its commands are {learned_in}'s)" if learned_in != env.id else ""
        raise AgentError(f"no verified domain for {env.id}{also} in {library.root}"
                         + "".join(f"\n{check.format()}" for check in failed))
    for check in failed:   # passed over: say why, once per run is enough
        episode.on_event("domain-skipped", {"entry": check.entry,
                                            "why": check.messages[:1]})
    return reused.domain_text, reused


def _helps_summary(o, used: list[str], formalizer, result) -> str:
    """The row's summary of the helps on and of how the calls were decoded and drawn."""
    summary = helps_summary(used)
    if o.constrained:
        modes = formalizer.modes if isinstance(formalizer, DecodesUnderGrammars) else []
        summary += f"; decoding {describe_modes(modes)}"
    if "modular" in used:
        summary += (f"; modular: {result.metrics.part_calls} part calls, "
                    f"{result.metrics.parts_redrawn} redrawn")
    if o.samples > 1 and isinstance(formalizer, DrawsSamples):
        used_at = formalizer.samples_used
        summary += (f"; samples: {formalizer.samples_drawn} drawn for "
                    f"{len(used_at)} requests, {sum(1 for k in used_at if k)} passed check")
    return summary


def _domain_summary(o, result, reused, given, library, model: Optional[str]) -> str:
    """Which domain the episode played on, and, with ``--save-domain``, whether the one
    learned was saved (a won episode on a learned domain only)."""
    summary = ""
    if reused is not None:
        summary += f"; on the library's domain {reused.id}"
    if given is not None:
        summary += f"; on the frozen domain {o.domain}"
    if o.save_domain and result.won and (reused is not None or given is not None):
        summary += " (not saved again: a frozen domain was not learned here)"
    elif o.save_domain and result.won:
        saved = library.save_episode(result, model=model)
        if saved is not None:
            summary += f"; saved the domain as {saved.id} in {library.root}"
        elif library.not_saved:
            summary += f"; the domain was not saved: {library.not_saved[0]}"
    return summary


def active_helps(o, used: list[str], env_id: str) -> tuple[list[str], list[str]]:
    """(the helps that can act in ``env_id``, those that cannot). A help that reads what the
    environment does not offer (:data:`.help_table.READS_FAILURES`: machine-readable
    failures) asked for by its own flag there is refused (it would do nothing); one the
    ``--small-model`` preset brought is left out of the run and of its helps column, and the
    row says so."""
    from pddlkit.agents.contract import env_spec

    try:
        offers = env_spec(env_id).offers
    except Exception:   # an id the registry does not know is refused elsewhere, by name
        return used, []
    return split_by_offers(HELPS, used, o, env_id, offers)


def _learning_columns(reused, seed: Optional[int] = None) -> dict:
    """Issue 75: a row on a domain ``pddlkit learn-domain`` saved says what learning it cost
    (its episodes, seconds and tokens), in columns of their own, and ``learnt_on_seed``
    True when the row's seed is one the domain was learnt on (not held out, unless the
    environment's options made it another game); {} for any other domain."""
    learned = reused.learning() if reused is not None else {}
    if not learned:
        return {}
    return {"learning_episodes": learned.get("episodes"),
            "learning_seconds": learned.get("seconds"), "learning_tokens": learned.get("tokens"),
            "learnt_on_seed": seed in (learned.get("seeds") or ())}


def frozen_domain_helps(o, used: list[str]) -> list[str]:
    """The helps that act on the domain the model writes (``DOMAIN_WRITING`` of the help
    table) do nothing when ``--domain`` or ``--reuse-domain`` freezes it: asked
    for by name, refused; brought by the preset, taken out of ``used`` (and so of the row's
    helps column) and returned, for the summary to say. Those whose ``conflicts`` leave out
    ``reuse_domain`` (``place_goals``, ``refused_steps``) stay on over a library entry: they
    play by the aspects its predicates were learnt under (``DomainEntry.aspects``), and act
    nowhere else (an entry saved without them: 0 in the row's helps column)."""
    if o.domain is None and not o.reuse_domain:
        return []
    freezing = "domain" if o.domain is not None else "reuse_domain"
    conflicts = {h.name: h.conflicts for h in HELPS}
    dropped = []
    for name, what in DOMAIN_WRITING.items():
        label = name.replace("_", "-")
        if label not in used or freezing not in conflicts[name]:
            continue   # a help that plays over a learned entry too (place_goals, ...)
        if getattr(o, name):
            raise AgentError(f"--{label} {what}; --{freezing.replace('_', '-')} freezes the "
                             "domain, so it would do nothing (leave one of them out)")
        used.remove(label)
        dropped.append(label)
    return dropped


def domain_source(given: Optional[str], reused) -> str:
    """Where the episode's domain came from, for every row and record (issue 73): a row whose
    model wrote only the problem side is never set beside a figure where the model wrote the
    whole file.

    - ``reference (<file>)``: ``--domain`` holds the text of one of pddlkit's own reference
      domains (``domains/<world>/domain.pddl``: a simulator's rules, written by hand), wherever
      the file lies;
    - ``given: <file>``: ``--domain`` named another file (a person's or a program's);
    - ``library:<hash> written by <models>``: ``--reuse-domain`` took a learned entry, or
      ``--domain`` named an entry's ``domain.pddl`` (its ``meta.json`` beside it, the text
      unchanged since it was saved; then `` (its file given)`` follows): how a domain learnt
      in one environment is played in another that has the same commands (CoinCollector's on
      TextWorld's coin games);
    - ``written this episode``: the LLM wrote the domain."""
    if reused is not None:
        return f"library:{reused.sha256[:12]} written by {', '.join(reused.models) or '?'}"
    if given is None:
        return "written this episode"

    from pddlkit.domains import ROOT

    try:
        text = Path(given).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return f"given: {given}"
    for reference in sorted(ROOT.glob("*/domain.pddl")):
        if reference.parent.name != "learned" and reference.read_text().strip() == text:
            return f"reference ({reference.relative_to(ROOT.parent)})"
    entry = entry_of_file(given)
    if entry is not None:   # the entry's own source, and that it came as a file, not chosen
        return domain_source(None, entry) + " (its file given)"
    return f"given: {given}"


def play_plangen(job):
    from .plangen import PlanGenAgent, run_plangen

    if offline(job.llm):
        raise AgentError("plangen needs an LLM (openai:..., local:..., hf:..., replay:..., "
                         "scripted:...); the offline formalizers write PDDL, not commands")
    o = job.options
    for seed in job.seeds:
        episode = job.episode(seed)
        env = job.make_env()
        agent = PlanGenAgent(job.make_llm(), env.id, prompts=o.prompts,
                             temperature=o.temperature, max_tokens=job.max_tokens)
        result = run_plangen(env, agent, seed=seed, limits=limits(o), on_event=episode.on_event)
        yield episode.row(result.won, summary=_metrics_summary(result), **_columns(result))


#: each loop event's line in the live transcript
LINES = {
    "start": lambda d: f"== {d['env']} seed {d['seed']}: {d['task']}\n{_indent(d['observation'])}",
    "files": lambda d: f"-- step {d['step']}: the formalizer wrote the files; goal: "
                       f"{_goal(d['problem'])}",
    "solver-error": lambda d: f"   solver error (fed back):\n{_indent(d['message'], 6)}",
    "plan": lambda d: f"   plan: {', '.join(d['commands'])}",
    "action": lambda d: f"   > {d['command']}\n{_indent(d['observation'], 6)}",
    "simulation-error": lambda d: f"   simulation error on '{d['command']}': {d['message']} "
                                  "(environment restored to the start of the step; fed back)",
    "repair": lambda d: "   repaired in code: " + "; ".join(d["fixes"]),
    "facts-merged": lambda d: f"   fact memory put back: {' '.join(d['facts'])}",
    "objects-declared": lambda d: "   declared in code: " + "; ".join(d["fixes"]),
    "parts": lambda d: "\n".join(
        f"   asked for the missing {p['part'].split(' ', 1)[1]} fact: "
        + (" ".join(p["answer"].split()) if p["outcome"] == "used" else
           f"not used ({p['outcome']}; {'; '.join(p['refused'][:1])})")
        for p in d["parts"] if p["part"].startswith("missing ")) or None,
    "facts-corrected": lambda d: "   corrected in code from the world's answer: "
                                 + " ".join(d["facts"]),
    "facts-from-commands": lambda d: "   from the valid commands, in code: "
                                     + " ".join(d["facts"])
                                     + (f"; dropped against the commands: "
                                        f"{' '.join(d['dropped'])}" if d["dropped"] else ""),
    "schema-refuted": lambda d: "   action schema refuted by what the world did (asked "
                                "again): " + "; ".join(d["findings"]),
    "facts-refuted": lambda d: f"   refuted by the world: {' '.join(d['facts'])}",
    "facts-kept-out": lambda d: "   kept out: " + "; ".join(d["fixes"]),
    "repeated-answer": lambda d: "   the same files as an answer already refused: not planned",
    "history-trimmed": lambda d: f"   {d['left_out']} earlier history entries left out to fit "
                                 "the context",
    "files-cut": lambda d: f"   the previous files or error cut {d['cuts']} time(s) to fit the "
                           "context",
    "abort": lambda d: f"   aborted: {d['reason']}",
    "domain-skipped": lambda d: f"   library entry {d['entry']} passed over: "
                                + "; ".join(d["why"]),
}


def describe(kind: str, data: dict) -> Optional[str]:
    """An episode event as the live transcript's lines (None: not shown)."""
    line = LINES.get(kind)
    return line(data) if line and (kind != "start" or "task" in data) else None


def _goal(problem: str) -> str:
    from .answer import closing_bracket

    start = problem.rfind("(:goal")
    end = closing_bracket(problem, start) if start >= 0 else None
    if end is None:
        return "(unreadable)"
    return " ".join(problem[start + len("(:goal"):end - 1].split())


def _indent(text: str, n: int = 3) -> str:
    lines = str(text).splitlines()[:12]
    return textwrap.indent("\n".join(lines), " " * n)


PDDLEGO = AgentSpec(
    "pddlego", "the PDDLego+ loop: the LLM writes PDDL, pddlkit checks and plans, errors are "
    "fed back", PDDLegoOptions, play_pddlego, stand_in=stand_in, default_llm="standin:pddlego",
    default_env="coin-collector", describe=describe, step_budget="budget",
    stand_ins=STAND_INS)
PLANGEN = AgentSpec(
    "plangen", "PlanGen, the LLM-as-planner baseline: the LLM picks each command",
    PlanGenOptions, play_plangen, default_llm="", default_env="coin-collector",
    describe=describe, step_budget="budget")
