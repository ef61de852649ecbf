"""The PDDLego+ loop scores each file against the environment's truth (issue 45).

The stand-ins' figures are known in advance: ``observation`` writes the reference itself, so
every file is equivalent; ``noisy`` differs from it exactly where its record says it injected
a mistake into the problem file, and a domain mistake shows in the domain's behavioural
agreement instead. A formalizer with other predicate names is scored through the renaming the
domain comparison finds; an own ``PDDLWorldEnv`` scores through its ``reference_problem()``.
"""

from __future__ import annotations

import json
import re

import pytest

from pddlkit.bench.report import markdown
from pddlkit.envs import make
from pddlkit.envs.coin_collector import CoinCollector
from pddlkit.formalizers.answer import Files
from pddlkit.formalizers.loop import run_episode
from pddlkit.formalizers.noisy import NoisyFormalizer
from pddlkit.formalizers.observation import ObservationFormalizer
from pddlkit.pddl.writer import write_domain, write_problem

#: the noisy stand-in's mistakes that change the problem file, and those that change the domain
FACT_KINDS = {"syntax", "undeclared", "hallucinated-fact", "impossible-goal", "forgotten-facts"}
DOMAIN_KINDS = {"missing-precondition", "missing-effect"}


@pytest.mark.slow
@pytest.mark.parametrize("env_id, seeds", [("coin-collector", range(4)), ("household", range(2))])
def test_the_observation_stand_in_is_equivalent_to_the_truth_at_every_step(env_id, seeds):
    for seed in seeds:
        result = run_episode(make(env_id), ObservationFormalizer(env_id), seed=seed)
        m = result.metrics
        assert result.won and len(result.scores) == len(result.files) == m.files_scored > 0
        assert all(s.equivalent and s.readable and s.alignment == "same names"
                   for s in result.scores), [s for s in result.scores if not s.equivalent][:1]
        assert (m.files_equivalent, m.fact_precision, m.fact_recall) == (1.0, 1.0, 1.0)
        assert m.domain_agreement == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["coin-collector", "household"])
def test_the_noisy_stand_in_scores_below_the_truth_exactly_where_it_injected_a_mistake(
        env_id, tmp_path):
    kinds_seen: set = set()
    for seed in range(6):
        record = tmp_path / f"{env_id}-{seed}.jsonl"
        result = run_episode(make(env_id), NoisyFormalizer(env_id, rate=0.5, seed=seed),
                             seed=seed, record=record)
        events = [json.loads(line) for line in record.read_text().splitlines()]
        injected = [e["mistake"] for e in events if e["type"] == "files"]
        scored = [e for e in events if e["type"] == "score"]
        assert len(injected) == len(scored) == len(result.scores) == len(result.files)
        for mistake, score in zip(injected, scored):
            kinds_seen.add(mistake)
            if mistake in FACT_KINDS:       # the problem file differs from the truth
                assert not score["equivalent"], (mistake, score)
                if mistake == "syntax":
                    assert not score["readable"] and score["fact_recall"] == 0.0
                else:
                    assert score["fact_precision"] < 1.0 or score["fact_recall"] < 1.0 \
                        or score["missing_goals"] or score["extra_goals"], (mistake, score)
            else:                           # no mistake, or one in the domain only
                assert score["equivalent"] and score["fact_precision"] == 1.0, (mistake, score)
            if mistake is None:
                assert score["domain_agreement"] == 1.0, score
        assert result.metrics.files_equivalent == pytest.approx(
            sum(s["equivalent"] for s in scored) / len(scored), abs=1e-4)
    assert kinds_seen & FACT_KINDS and kinds_seen & DOMAIN_KINDS, kinds_seen


def test_a_domain_mistake_lowers_the_domains_behavioural_agreement():
    """missing-effect: move forgets (at ?to); the sampled transitions find it."""
    result = run_episode(make("coin-collector"),
                         NoisyFormalizer("coin-collector", rate=1.0, seed=0,
                                         kinds=("missing-effect",)), seed=0)
    first = result.scores[0]
    assert first.equivalent and first.domain_equivalent is False
    assert first.domain_agreement < 1.0 and "(at " in first.first_disagreement


RENAMED = {"at": "agent-in", "connected": "path", "visited": "been-to"}


class RenamingFormalizer(ObservationFormalizer):
    """The observation files with other predicate names: right, in another vocabulary."""

    name = "renaming"

    def propose(self, context):
        files = super().propose(context)
        rename = lambda text: re.sub(  # noqa: E731
            r"\((" + "|".join(map(re.escape, RENAMED)) + r")(?=[\s)])",
            lambda m: "(" + RENAMED[m.group(1)], text)
        return Files(rename(files.domain), rename(files.problem))


def test_a_formalizer_with_other_names_is_scored_through_the_renaming_it_is_found_to_use():
    result = run_episode(make("coin-collector"), RenamingFormalizer(), seed=1)
    assert result.won and result.scores
    for score in result.scores:
        assert score.aligned and score.alignment.startswith("renamed (confidence 1.00)")
        assert "(agent-in ?x0) = (at ?x0)" in score.alignment
        assert score.equivalent and score.fact_precision == score.fact_recall == 1.0


class MyCoins(CoinCollector):
    """An own environment built on PDDL: no observation reader knows its id. Nothing is
    hidden in it (CoinCollector hides the rooms not seen yet), so its reference problem is
    the whole house, and a writer of it plans straight to the coin."""

    id = "my-coins"

    def visible(self):
        return None


class TruthFormalizer:
    """Writes the environment's reference problem, dropping one fact at step ``drop_at``."""

    name = "truth"

    def __init__(self, env, drop_at: int = -1) -> None:
        self.env, self.drop_at, self.calls = env, drop_at, 0
        self.dropped = None

    def propose(self, context):
        problem = self.env.reference_problem()
        if self.calls == self.drop_at:
            from dataclasses import replace

            connected = [a for a in problem.init if a.predicate == "connected"]
            self.dropped = connected[0]
            problem = replace(problem, init=tuple(a for a in problem.init
                                                  if a is not self.dropped))
        self.calls += 1
        return Files(write_domain(self.env.domain), write_problem(problem))


def test_an_own_pddl_world_scores_through_its_reference_problem(tmp_path):
    env = MyCoins(rooms=3)
    result = run_episode(env, TruthFormalizer(env), seed=2)
    assert result.won and result.scores and all(s.equivalent for s in result.scores)
    env = MyCoins(rooms=3)
    writer = TruthFormalizer(env, drop_at=0)
    result = run_episode(env, writer, seed=2)
    first = result.scores[0]
    dropped = f"({writer.dropped.predicate} {' '.join(writer.dropped.args)})"
    assert not first.equivalent and first.missing_facts == [dropped]
    assert first.fact_precision == 1.0 and first.fact_recall < 1.0


def test_an_environment_without_a_truth_is_not_scored_and_the_record_says_why(tmp_path):
    from pddlkit.envs.api import ActionTemplate, Step, info_dict

    class Bare:
        """A text environment with no PDDL behind it."""

        id, task = "bare", "say hello"
        action_schema = (ActionTemplate("say-hello", (), "hello"),)

        def reset(self, seed=None):
            return "Nobody is here.", info_dict(False, 0, None, lambda: ["hello"])

        def step(self, command):
            return Step("Hello!", 1.0, True, False, info_dict(True, 1, None, lambda: []))

        def snapshot(self):
            return None

        def restore(self, snapshot):
            pass

        def admissible_commands(self):
            return ["hello"]

    record = tmp_path / "bare.jsonl"
    result = run_episode(Bare(), ObservationFormalizer(), seed=0, record=record, score=True)
    events = [json.loads(line) for line in record.read_text().splitlines()]
    why = [e["reason"] for e in events if e["type"] == "score-unavailable"]
    assert len(why) == 1 and "bare gives no reference" in why[0]
    assert result.scores == [] and result.metrics.files_scored == 0


def test_rows_carry_the_figures_and_the_report_shows_them():
    from pddlkit.agents import get_agent, run_job

    spec = get_agent("pddlego")
    rows = run_job(spec, env="coin-collector", llm="standin:pddlego:noisy:0.5", seeds=[0, 1, 2],
                   env_options={"rooms": 5})
    data = [{**r.as_dict(), "difficulty": "5"} for r in rows]   # as a bench cell writes it
    assert all(d["files_scored"] > 0 and 0.0 <= d["files_equivalent"] <= 1.0 for d in data)
    assert any(d["files_equivalent"] < 1.0 for d in data)
    text = markdown(data)
    assert "### Formalization accuracy" in text
    line = next(x for x in text.splitlines() if x.startswith("| pddlego"))
    assert "3 of 3" in text and line
    share = 100 * sum(d["files_equivalent"] for d in data) / 3
    assert f"| {share:.0f} |" in text


def test_no_score_skips_the_scoring_and_changes_no_plan(tmp_path):
    """``--no-score``: no score event and no scored figure, the same plans and outcome (the
    scores decide nothing, so the records' replay skips them)."""
    from cli_runner import run_cli

    plans = {}
    for flag in ((), ("--no-score",)):
        record = tmp_path / f"record{len(flag)}.jsonl"
        done = run_cli("run", "pddlego", "--env", "coin-collector", "--rooms", "3", "--seed", "1",
                       "--llm", "standin:pddlego:noisy", "--budget", "20", "--quiet", "--record", record, *flag)
        assert done.returncode in (0, 1), done.stderr
        events = [json.loads(line) for line in record.read_text().splitlines()]
        scored = [e for e in events if e["type"] == "score"]
        assert bool(scored) == (not flag), len(scored)
        plans[flag] = ([e["commands"] for e in events if e["type"] == "plan"],
                       [e["won"] for e in events if e["type"] == "outcome"])
    assert plans[()] == plans[("--no-score",)] and plans[()][0], plans
