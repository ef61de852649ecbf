"""Markdown tables in the papers' layouts, from the rows of a results file.

* Success by difficulty (PDDLego+ Figure 8): one table per environment, an agent per row, a
  difficulty level per column, and the overall rate.
* Scores: for agents whose outcome is a score, not a win (IPP's mean held-out reward), the
  mean, least and greatest score of each agent on each environment.
* Formalization accuracy: for rows that scored their files against the environment's truth
  (PDDLego+'s ``files_scored``, :mod:`pddlkit.formalizers.scoring`), the share of problem
  files equivalent to the reference, the mean fact precision and recall, and the domains'
  mean behavioural agreement, each a mean over the episodes that measured it.
* Errors (PDDLego+ Appendix A / Figure 9): solver and simulation errors, fixed and aborted.
* Steps: formalize-plan-execute steps, environment actions and planner calls per episode.
* LLM usage: calls, prompt and completion tokens per episode, and the total cost.

Rows are grouped by the agent's label (which includes the LLM spec when a config sweeps
several) and by environment; difficulty columns keep the config's order (``level_index``).

Stand-ins are said plainly: a row played by a front end's offline stand-in (its ``stand_in``
field, set by the agent, or judged from its LLM spec for rows written before the field existed)
has ``[stand-in]`` in its label in every table and plot, and the report ends with what each
stand-in knows, since stand-ins are written to pass and their figures are not a model's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from statistics import mean
from typing import Iterable, Optional

from pddlkit.agents.row import row_won, trials, won_trials


@dataclass
class Group:
    agent: str
    env: str
    rows: list

    def total(self, field: str) -> float:
        return sum(r.get(field) or 0 for r in self.rows)

    def mean(self, field: str) -> float:
        return mean(r.get(field) or 0 for r in self.rows) if self.rows else 0.0

    @property
    def success(self) -> float:
        """Won trials over trials, in percent (a row of a DEPS task list or CoPiC's held-out
        games is several trials at its success rate)."""
        return 100.0 * sum(won_trials(r) for r in self.rows) / max(1, sum(trials(r)
                                                                          for r in self.rows))


STAND_IN = " [stand-in]"


def stand_in(row: dict) -> Optional[str]:
    """What the stand-in behind ``row`` knows, or None when a model played it."""
    if "stand_in" in row:
        return row["stand_in"] or None
    from pddlkit.llm.spec import names_a_model

    return None if names_a_model(row.get("llm")) else "stand-in (an offline agent, no LLM)"


def labelled(rows: list[dict]) -> list[dict]:
    """The rows with ``[stand-in]`` added to the agent label of every stand-in's row."""
    return [{**r, "agent": r["agent"] + STAND_IN} if stand_in(r) and
            not str(r["agent"]).endswith(STAND_IN) else r for r in rows]


def agents_in_order(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["agent"] for r in rows))


def envs_in_order(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["env"] for r in rows))


def levels(rows: list[dict], env: str) -> list[str]:
    seen = {}
    for r in rows:
        if r["env"] == env:
            seen.setdefault(r["difficulty"], r.get("level_index", 0))
    return sorted(seen, key=lambda d: (seen[d], d))


def groups(rows: list[dict]) -> list[Group]:
    by = defaultdict(list)
    for r in rows:
        by[(r["agent"], r["env"])].append(r)
    return [Group(a, e, by[(a, e)]) for a in agents_in_order(rows) for e in envs_in_order(rows)
            if (a, e) in by]


def success_by_difficulty(rows: list[dict]) -> dict[str, dict[str, dict[str, tuple[float, int]]]]:
    """env -> agent -> difficulty -> (won trials, trials)."""
    out: dict = {}
    for r in rows:
        cell = out.setdefault(r["env"], {}).setdefault(r["agent"], {})
        won, n = cell.get(r["difficulty"], (0, 0))
        cell[r["difficulty"]] = (won + won_trials(r), n + trials(r))
    return out


def _table(header: list[str], body: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def _pct(won: int, n: int) -> str:
    return f"{100.0 * won / n:.0f}" if n else "-"


def markdown(rows: list[dict]) -> str:
    if not rows:
        return "no results yet"
    rows = labelled(rows)
    parts = [f"{len(rows)} episodes, {len(agents_in_order(rows))} agents, "
             f"{len(envs_in_order(rows))} environments\n"]
    table = success_by_difficulty(rows)
    for env in envs_in_order(rows):
        lv = levels(rows, env)
        body = []
        for agent in agents_in_order(rows):
            cells = table[env].get(agent)
            if not cells:
                continue
            won = sum(w for w, _ in cells.values())
            n = sum(k for _, k in cells.values())
            body.append([agent] + [_pct(*cells.get(d, (0, 0))) for d in lv] + [_pct(won, n)])
        parts.append(f"### Success rate (%) by difficulty: {env}\n\n"
                     + _table(["agent"] + lv + ["all"], body) + "\n")
    gs = groups(rows)
    parts += scores(gs)
    parts += accuracy(gs)
    parts.append("### Errors (Appendix A): totals over the episodes\n\n" + _table(
        ["agent", "env", "episodes", "success %", "solver errors", "fixed", "aborts",
         "simulation errors", "fixed", "aborts"],
        [[g.agent, g.env, str(len(g.rows)), f"{g.success:.0f}"]
         + [str(int(g.total(f))) for f in ("solver_errors", "solver_fixed", "solver_aborts",
                                            "simulation_errors", "simulation_fixed",
                                            "simulation_aborts")] for g in gs]) + "\n")
    parts.append("### Steps per episode (mean)\n\n" + _table(
        ["agent", "env", "steps", "actions", "planner calls", "won: steps"],
        [[g.agent, g.env, f"{g.mean('steps'):.1f}", f"{g.mean('actions'):.1f}",
          f"{g.mean('planner_calls'):.1f}",
          _mean_if([r.get("steps", 0) for r in g.rows if row_won(r)])] for g in gs]) + "\n")
    parts.append("### LLM usage\n\n" + _table(
        ["agent", "env", "calls / episode", "prompt tokens / episode",
         "completion tokens / episode", "cost $ (total)"],
        [[g.agent, g.env, f"{g.mean('llm_calls'):.1f}", f"{g.mean('prompt_tokens'):.0f}",
          f"{g.mean('completion_tokens'):.0f}", f"{g.total('cost_usd'):.4f}"] for g in gs])
        + "\n")
    known = {r["agent"]: stand_in(r) for r in rows if stand_in(r)}
    if known:
        parts.append("### Stand-in rows\n\nThese rows were played by programs we wrote, not by "
                     "a model; they know what a model would have to find out:\n\n"
                     + "\n".join(f"- {agent}: {what}" for agent, what in known.items()) + "\n")
    return "\n".join(parts)


def scores(gs: list[Group]) -> list[str]:
    """A table of the scored rows (:class:`pddlkit.agents.row.Row`'s ``score`` and
    ``measure``: IPP's mean held-out reward), one line per agent, environment and measure:
    such an agent's outcome is its score, which the success table alone would not show."""
    body = []
    for g in gs:
        for measure in dict.fromkeys(r["measure"] for r in g.rows if r.get("measure")):
            values = [float(r["score"]) for r in g.rows
                      if r.get("measure") == measure and r.get("score") is not None]
            n = sum(1 for r in g.rows if r.get("measure") == measure)
            body.append([g.agent, g.env, measure, f"{len(values)} of {n}",
                         *(f"{f(values):.3f}" if values else "-" for f in (mean, min, max))])
    if not body:
        return []
    return ["### Scores (agents whose outcome is a score, not a win)\n\n" + _table(
        ["agent", "env", "measure", "episodes scored", "mean", "min", "max"], body) + "\n"]


ACCURACY = (("files_equivalent", "problem files equivalent %", 100.0),
            ("fact_precision", "fact precision", 1.0), ("fact_recall", "fact recall", 1.0),
            ("domain_agreement", "domain agreement", 1.0))


def accuracy(gs: list[Group]) -> list[str]:
    """Formalization accuracy per agent and environment (rows with ``files_scored``)."""
    body = []
    for g in gs:
        scored = [r for r in g.rows if r.get("files_scored")]
        if not scored:
            continue
        cells = []
        for name, _, scale in ACCURACY:
            values = [float(r[name]) for r in scored if r.get(name) is not None]
            cells.append(f"{scale * mean(values):.{0 if scale > 1 else 3}f}" if values else "-")
        body.append([g.agent, g.env, f"{len(scored)} of {len(g.rows)}",
                     str(int(sum(r["files_scored"] for r in scored))), *cells])
    if not body:
        return []
    return ["### Formalization accuracy (each file against the environment's truth)\n\n"
            + _table(["agent", "env", "episodes scored", "files", *(t for _, t, _ in ACCURACY)],
                     body) + "\n"]


def _mean_if(values: list) -> str:
    return f"{mean(values):.1f}" if values else "-"
