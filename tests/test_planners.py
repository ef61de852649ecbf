"""pddlkit.plan with the real Fast Downward, other planners, the cache and the registry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import pddlkit
from pddlkit.planners import (CommandPlanner, FastDownward, PlanStatus, SQLitePlanCache,
                              UnknownPlannerError, register_planner, unregister_planner)
from pddlkit.planners.fast_downward import driver_script

REPO = Path(__file__).resolve().parent.parent
COIN = REPO / "domains" / "coin-collector"
DOMAIN = COIN / "domain.pddl"
PROBLEM = COIN / "p3.pddl"


def _leftovers(base) -> list[str]:
    return [n for n in os.listdir(base) if n.startswith(f"pddlkit-{os.getpid()}-")]


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Point pddlkit's working directories at an empty folder, to check none is left."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_plan_bundled_problem_is_solved_and_valid():
    result = pddlkit.plan(DOMAIN, PROBLEM, cache=False)
    assert result.status is PlanStatus.SOLVED
    assert result.actions[-1] == "(take coin backyard)"
    assert result.cost == 4
    check = pddlkit.validate_plan(pddlkit.parse_domain(DOMAIN), pddlkit.parse_problem(PROBLEM),
                                  result.plan)
    assert check.valid
    assert result.timings.total >= result.timings.search > 0


def test_plan_accepts_text_and_models():
    d, p = DOMAIN.read_text(), PROBLEM.read_text()
    from_text = pddlkit.plan(d, p, cache=False)
    from_models = pddlkit.plan(pddlkit.parse_domain(d), pddlkit.parse_problem(p), cache=False)
    assert from_text.solved and from_models.solved
    assert from_text.actions == from_models.actions


@pytest.mark.parametrize("alias", ["lama-first", "optimal"])
def test_aliases(alias):
    result = pddlkit.plan(DOMAIN, PROBLEM, alias=alias, cache=False)
    assert result.solved and result.config["alias"] == alias
    assert result.cost == 4


def test_lama_is_anytime_and_stops_at_the_timeout():
    # lama keeps improving its plan until stopped: the timeout ends it with its best plan
    result = pddlkit.plan(DOMAIN, PROBLEM, planner="fast-downward:lama", timeout=3, cache=False)
    assert result.solved and result.cost == 4
    assert result.timings.total < 8


def test_unknown_alias_and_planner_say_did_you_mean():
    with pytest.raises(ValueError, match="did you mean 'lama'"):
        FastDownward(alias="lamma")
    with pytest.raises(UnknownPlannerError) as info:
        pddlkit.plan(DOMAIN, PROBLEM, planner="fast-downwrd")
    assert info.value.suggestion == "fast-downward"


def test_bad_pddl_returns_diagnostics_without_running_the_planner():
    broken = DOMAIN.read_text().replace("(:action take", "(:action take :parameters (?i item)", 1)
    result = pddlkit.plan(broken, PROBLEM, cache=False)
    assert result.status is PlanStatus.ERROR
    assert result.diagnostics and all(d.line > 0 for d in result.diagnostics if d.is_error)
    assert "not run" in result.note
    missing = pddlkit.plan(COIN / "nope.pddl", PROBLEM, cache=False)
    assert missing.status is PlanStatus.ERROR
    assert missing.diagnostics[0].code == "file-not-found"


def test_translator_rejection_becomes_a_located_diagnostic():
    # pddlkit's own check would stop this first; with check=False Fast Downward sees it
    bad = DOMAIN.read_text().replace("(and (holding ?i) (not (in ?i ?r)))",
                                     "(and (holding ?i ?r) (not (in ?i ?r)))")
    result = pddlkit.plan(bad, PROBLEM, check=False, cache=False)
    assert result.status is PlanStatus.ERROR
    diag = result.diagnostics[0]
    assert diag.code == "fast-downward-exit-31"
    assert "holding" in diag.message and "Traceback" not in diag.message
    assert diag.line > 0 and "(holding ?i ?r)" in diag.source_line


UNSOLVABLE = [
    # the LLM forgot a connection: the coin's room cannot be entered
    (PROBLEM.read_text().replace("(connected patio backyard west)", ""), "(holding coin)"),
    # a goal on a predicate no action adds
    (PROBLEM.read_text().replace("(:goal (holding coin))", "(:goal (and (holding coin) "
                                 "(has-door patio backyard west)))"),
     "(has-door patio backyard west)"),
    # a negative goal on a fact nothing deletes
    (PROBLEM.read_text().replace("(:goal (holding coin))",
                                 "(:goal (and (holding coin) (not (visited kitchen))))"),
     "(not (visited kitchen))"),
]


@pytest.mark.parametrize("problem,atom", UNSOLVABLE)
def test_unsolvable_names_the_unreachable_goal_atom(problem, atom):
    result = pddlkit.plan(DOMAIN, problem, cache=False)
    assert result.status is PlanStatus.UNSOLVABLE
    explanation = result.explanation
    assert explanation is not None and explanation.proven
    assert atom in explanation.unreachable_goals
    assert atom in explanation.text()


def test_explanation_follows_the_chain_of_missing_preconditions():
    result = pddlkit.plan(DOMAIN, UNSOLVABLE[0][0], cache=False)
    text = result.explanation.text()
    assert "(take coin backyard), which needs (at backyard)" in text
    assert "(connected ?from backyard ?dir)" in text
    assert "never fire" in text  # take is reported as an action that can never fire


BLOCKS = """(define (domain blocks) (:requirements :strips)
  (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x))
  (:action pick-up :parameters (?x) :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action stack :parameters (?x ?y) :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))))"""
BLOCKS_PROBLEM = """(define (problem p) (:domain blocks) (:objects a b)
  (:init (ontable a) (ontable b) (clear a) (clear b) (handempty))
  (:goal (and (on a b))))"""


def test_goals_reachable_alone_but_not_together():
    # (on a b) and (on b a) are each reachable; the exact search shows they are not together
    blocks = BLOCKS
    problem = BLOCKS_PROBLEM.replace("(on a b)", "(on a b) (on b a)")
    result = pddlkit.plan(blocks, problem, cache=False)
    assert result.status is PlanStatus.UNSOLVABLE
    e = result.explanation
    assert e.method == "exact" and e.not_together
    assert "not all together" in e.text()


def test_result_round_trips_through_json():
    result = pddlkit.plan(DOMAIN, UNSOLVABLE[0][0], cache=False)
    again = pddlkit.PlanResult.from_dict(json.loads(result.to_json()))
    assert again.status == result.status
    assert again.explanation == result.explanation


# --------------------------------------------------------------------------- cache


def test_memory_cache_hits_on_same_and_on_reformatted_text():
    # a problem name no other test plans (comments are not part of the cache key, and the CLI
    # tests plan p3.pddl in this process)
    text = PROBLEM.read_text().replace("(problem coin-3)", f"(problem coin-{time.time_ns()})")
    first = pddlkit.plan(DOMAIN, text)
    assert not first.cached
    second = pddlkit.plan(DOMAIN, text)
    assert second.cached and second.actions == first.actions
    reformatted = "\n".join(line.upper() for line in text.splitlines()) + "\n; other"
    third = pddlkit.plan(DOMAIN, reformatted)
    assert third.cached  # same canonical PDDL
    other_config = pddlkit.plan(DOMAIN, text, alias="optimal")
    assert not other_config.cached


def test_a_hit_on_reformatted_text_tells_that_texts_own_warnings():
    """A canonical hit (the same task, written otherwise) answers with the planner's result
    and the warnings of the text asked, not of the text that filled the cache: before, a
    problem was told another file's line numbers (found replaying the paper mode's records,
    where one solver error named line 26 for an atom on line 18)."""
    text = PROBLEM.read_text().replace("(problem coin-3)", f"(problem coin-{time.time_ns()})")
    text = text.replace("(:init (at kitchen)", "(:init (at kitchen) (not (visited patio))")
    first = pddlkit.plan(DOMAIN, text)
    moved = text.replace("(:init", "\n\n\n  (:init")
    second = pddlkit.plan(DOMAIN, moved)
    assert second.cached and second.status is first.status
    before = [d for d in first.diagnostics if d.code == "negated-init-atom"]
    after = [d for d in second.diagnostics if d.code == "negated-init-atom"]
    assert len(before) == len(after) == 1, (first.diagnostics, second.diagnostics)
    assert after[0].line == before[0].line + 3


def test_sqlite_cache_is_shared_between_processes(tmp_path):
    db = tmp_path / "plans.sqlite"
    text = PROBLEM.read_text() + "\n; sqlite " + str(time.time())
    first = pddlkit.plan(DOMAIN, text, cache=db)
    assert first.solved and not first.cached
    code = (f"import pddlkit,sys; r=pddlkit.plan({str(DOMAIN)!r}, {text!r}, cache={str(db)!r}); "
            f"print(r.cached, r.status.value)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["True", "solved"], out.stderr
    assert len(SQLitePlanCache(db)) == 2  # raw-text key and canonical (text-free) key


def test_an_older_caches_entries_are_not_read(tmp_path):
    """Entries written before the keys were versioned held another text's warnings (see
    test_a_hit_on_reformatted_text_tells_that_texts_own_warnings): a cache file from then is
    not read, and the task is planned again."""
    from pddlkit.planners.cache import config_key, entry_key
    from pddlkit.planners.task import raw_key

    db = tmp_path / "old.sqlite"
    text = PROBLEM.read_text() + "\n; old cache " + str(time.time())
    fresh = pddlkit.plan(DOMAIN, text, cache=False)
    planner = FastDownward()
    stale = fresh.__class__(PlanStatus.UNSOLVABLE, planner.name, config=planner.config())
    old_key = entry_key(raw_key(DOMAIN.read_text(), text),
                        config_key(planner.name, planner.config()))
    SQLitePlanCache(db).put([old_key], stale)
    again = pddlkit.plan(DOMAIN, text, cache=db)
    assert again.solved and not again.cached


# --------------------------------------------------------------------------- limits and kills


def test_timeout_is_structured_and_leaves_no_files(private_tmp, ipc_dir):
    hard = ipc_dir / "floortile-sat11-strips"
    result = pddlkit.plan(hard / "domain.pddl", hard / "p20.pddl", timeout=2, cache=False)
    assert result.status is PlanStatus.TIMEOUT
    assert result.diagnostics[0].code == "planner-timeout"
    assert result.timings.total < 10
    assert _leftovers(private_tmp) == []


def _descendants(root: int) -> set[int]:
    """Every living process under ``root``, from /proc (children of any of its threads)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), [root]
    while frontier:
        here = frontier.pop()
        kids = [pid for pid, parent in parents.items() if parent == here and pid not in found]
        found.update(kids)
        frontier += kids
    return found


def _search_processes() -> list[int]:
    """This test process's own Fast Downward searches: the suite may run in parallel workers
    (and a developer may be planning beside it), so another process's search is not ours to
    kill."""
    pids = []
    for pid in _descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"/bin/downward"):
            pids.append(pid)
    return pids


def test_killed_search_is_structured_and_leaves_no_files(private_tmp, ipc_dir):
    hard = ipc_dir / "floortile-sat11-strips"
    before = set(_search_processes())
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", pddlkit.plan(
        hard / "domain.pddl", hard / "p20.pddl", timeout=60, cache=False)))
    thread.start()
    deadline = time.time() + 30
    victims = []
    while time.time() < deadline and not victims:
        victims = [p for p in _search_processes() if p not in before]
        time.sleep(0.05)
    assert victims, "the search process never started"
    os.kill(victims[0], 9)
    thread.join(60)
    result = box["r"]
    assert result.status is PlanStatus.ERROR
    assert result.diagnostics[0].code == "planner-killed"
    assert "SIGKILL" in result.diagnostics[0].message
    assert _leftovers(private_tmp) == []
    assert pddlkit.plan(DOMAIN, PROBLEM, cache=False).solved  # the pool recovers


def test_started_search_is_cancelled_quickly_and_the_worker_is_kept(private_tmp, ipc_dir):
    from pddlkit.planners.task import TaskSource
    from pddlkit.planners.workers import POOL

    hard = ipc_dir / "floortile-sat11-strips"
    source = TaskSource((hard / "domain.pddl").read_text(), (hard / "p20.pddl").read_text())
    running = FastDownward().start(source, timeout=60)
    worker = running.worker
    deadline = time.time() + 30
    while time.time() < deadline and not any(
            p in _search_processes() for p in _children(worker.proc.pid)):
        time.sleep(0.05)
    t0 = time.monotonic()
    running.cancel()
    assert time.monotonic() - t0 < 2
    assert worker.alive and worker in POOL._idle  # warm worker kept, not killed
    assert not any(p in _search_processes() for p in _children(worker.proc.pid))
    assert _leftovers(private_tmp) == []
    assert pddlkit.plan(DOMAIN, PROBLEM, cache=False).solved


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def test_static_errors_cancel_the_early_start(private_tmp):
    from pddlkit.planners.workers import POOL

    pddlkit.plan(DOMAIN, PROBLEM, cache=False)  # a warm worker in the pool
    pids = {w.proc.pid for w in POOL._idle}
    broken = PROBLEM.read_text().replace("(:goal (holding coin))", "(:goal (at nowhere))")
    result = pddlkit.plan(DOMAIN, broken, cache=False)
    assert result.status is PlanStatus.ERROR and "errors; the planner was not run" in result.note
    assert "nowhere" in result.diagnostics[0].message
    assert {w.proc.pid for w in POOL._idle} & pids  # the same warm worker, free again
    assert _leftovers(private_tmp) == []


def test_threads_and_processes_can_plan_at_once():
    results = []

    def work():
        for _ in range(3):
            results.append(pddlkit.plan(DOMAIN, PROBLEM, cache=False))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == 12 and all(r.solved for r in results)
    code = ("import multiprocessing as mp, pddlkit\n"
            f"def f(_): return pddlkit.plan({str(DOMAIN)!r}, {str(PROBLEM)!r}, cache=False).status.value\n"
            "pddlkit.plan(" + repr(str(DOMAIN)) + ", " + repr(str(PROBLEM)) + ")\n"
            "with mp.get_context('fork').Pool(2) as pool: print(pool.map(f, range(4)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.stdout.strip() == str(["solved"] * 4), out.stderr


# --------------------------------------------------------------------------- other planners


def test_command_planner_runs_fast_downwards_driver():
    cmd = (f"{sys.executable} {driver_script()} --alias lama-first --plan-file {{plan}} "
           f"{{domain}} {{problem}}")
    result = pddlkit.plan(DOMAIN, PROBLEM, planner=CommandPlanner(cmd, name="fd-driver"),
                          cache=False)
    assert result.solved and result.planner == "fd-driver" and result.cost == 4


def test_command_planner_wrong_plan_is_an_error_never_passed_on():
    liar = CommandPlanner("sh -c 'echo \"(take coin kitchen)\" > \"$0\"' {plan} {domain} {problem}",
                          name="liar")
    result = pddlkit.plan(DOMAIN, PROBLEM, planner=liar, cache=False)
    assert result.status is PlanStatus.ERROR and result.plan is None
    assert result.diagnostics[0].code == "invalid-plan"
    assert "(in coin kitchen)" in result.diagnostics[0].message


def test_command_planner_killed_and_timeout(private_tmp):
    killed = pddlkit.plan(DOMAIN, PROBLEM, cache=False, planner=CommandPlanner(
        "sh -c 'kill -9 $$' {domain} {problem} {plan}", name="suicide"))
    assert killed.status is PlanStatus.ERROR and "SIGKILL" in killed.diagnostics[0].message
    slow = pddlkit.plan(DOMAIN, PROBLEM, cache=False, timeout=1, planner=CommandPlanner(
        "sh -c 'sleep 30' {domain} {problem} {plan}", name="sleeper"))
    assert slow.status is PlanStatus.TIMEOUT and slow.timings.total < 10
    assert _leftovers(private_tmp) == []


def test_unified_planning_engine_by_name():
    result = pddlkit.plan(BLOCKS, BLOCKS_PROBLEM, planner="up:pyperplan", cache=False)
    assert result.solved and result.planner == "up:pyperplan"
    assert result.actions == ["(pick-up a)", "(stack a b)"]
    missing = pddlkit.plan(BLOCKS, BLOCKS_PROBLEM, planner="up:no-such-engine", cache=False)
    assert missing.status is PlanStatus.ERROR
    assert "no engine 'no-such-engine'" in missing.diagnostics[0].message


class _Plugin:
    """The least a planner plug-in has: a name and its configuration."""

    name = "plugin"

    def config(self):
        return {}


def test_register_planner_at_run_time():
    class Echo(_Plugin):
        name = "echo"

        def solve(self, task, timeout=None, memory_limit=None):
            return FastDownward().solve(task, timeout, memory_limit)

    register_planner("echo", lambda **_: Echo())
    try:
        assert pddlkit.plan(DOMAIN, PROBLEM, planner="echo", cache=False).solved
        with pytest.raises(ValueError):
            register_planner("echo", lambda **_: Echo())
    finally:
        unregister_planner("echo")


PLUGIN = '''
"""A breadth-first planner on pddlkit's semantics, shipped as a plugin."""
from collections import deque
from pddlkit.planners import PlanResult, PlanStatus
from pddlkit.pddl.plan import Plan, PlanStep
from pddlkit.semantics.grounding import ground_actions
from pddlkit.semantics.formulas import holds
from pddlkit.semantics.world import World


class BFSPlanner:
    name = "toy-bfs"

    def __init__(self, max_states=10000):
        self.max_states = max_states

    def config(self):
        return {"max_states": self.max_states}

    def solve(self, task, timeout=None, memory_limit=None):
        world = World(task.domain, task.problem)
        actions = list(ground_actions(world))
        start = world.initial_state
        parent = {start: None}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            if holds(task.problem.goal, state, {}, world):
                steps = []
                while parent[state] is not None:
                    state, ga = parent[state]
                    steps.append(PlanStep(ga.name, ga.args))
                return PlanResult(PlanStatus.SOLVED, self.name, Plan(tuple(reversed(steps))))
            for ga in actions:
                if ga.applicable(state, world):
                    nxt = ga.apply(state, world)
                    if nxt not in parent:
                        parent[nxt] = (state, ga)
                        queue.append(nxt)
        return PlanResult(PlanStatus.UNSOLVABLE, self.name)
'''


def test_entry_point_plugin_is_found_and_used(tmp_path, monkeypatch):
    pkg = tmp_path / "src"
    (pkg / "toyplanner").mkdir(parents=True)
    (pkg / "toyplanner" / "__init__.py").write_text(PLUGIN)
    (pkg / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "toyplanner"\nversion = "0.1"\n'
        '[project.entry-points."pddlkit.planners"]\ntoy-bfs = "toyplanner:BFSPlanner"\n')
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--no-build-isolation", "--target", str(target), str(pkg)],
                   check=True, capture_output=True, timeout=300)
    monkeypatch.syspath_prepend(str(target))
    infos = {i.name: i for i in pddlkit.available_planners(include_up=False)}
    assert infos["toy-bfs"].available and infos["toy-bfs"].source.startswith("plugin")
    result = pddlkit.plan(DOMAIN, PROBLEM, planner="toy-bfs", cache=False)
    assert result.solved and result.planner == "toy-bfs" and len(result.plan) == 4
    assert result.config == {"max_states": 10000}


# --------------------------------------------------------------------------- CLI


def _cli(*args):
    """``pddlkit *args`` in this process (tests/cli_runner.py: what it prints and exits with)."""
    from cli_runner import run_cli

    return run_cli(*args)


def test_cli_plan_json_and_exit_codes(tmp_path):
    out = _cli("plan", str(DOMAIN), str(PROBLEM), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "solved" and data["plan"][-1] == "(take coin backyard)"
    unsolvable = tmp_path / "p.pddl"
    unsolvable.write_text(UNSOLVABLE[0][0])
    out = _cli("plan", str(DOMAIN), str(unsolvable))
    assert out.returncode == 1 and "can never be reached" in out.stdout
    out = _cli("plan", str(DOMAIN), str(PROBLEM), "--planner", "fast-downwad")
    assert out.returncode == 2 and "did you mean 'fast-downward'" in out.stderr


def test_cli_planners_lists_fast_downward():
    out = _cli("planners", "--no-up")
    assert out.returncode == 0
    assert any(line.startswith("fast-downward") and " ok " in line and
               line.endswith("plans: all but numeric") for line in out.stdout.splitlines()), out.stdout


# --------------------------------------------------------------------------- bad limits, pool health


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), 1e12, "10", True])
def test_limits_that_are_not_limits_are_usage_errors(timeout):
    from pddlkit.planners.protocol import LimitError

    with pytest.raises(LimitError, match="timeout"):
        pddlkit.plan(DOMAIN, PROBLEM, timeout=timeout, cache=False)
    assert pddlkit.plan(DOMAIN, PROBLEM, cache=False).solved  # nothing was broken


@pytest.mark.parametrize("memory", [0, -5, float("inf"), "lots", "-1G"])
def test_memory_limits_that_are_not_sizes_are_usage_errors(memory):
    with pytest.raises(ValueError, match="memory limit"):
        pddlkit.plan(DOMAIN, PROBLEM, memory_limit=memory, cache=False)


def test_a_huge_timeout_given_to_the_planner_directly_does_not_break_the_pool():
    """select() overflows past ~1e10 s: the waits are sliced, on both sides of the pipe."""
    from pddlkit.planners.task import load_task

    task = load_task(DOMAIN, PROBLEM)
    for _ in range(2):
        assert FastDownward().solve(task, 1e12).status is PlanStatus.SOLVED
    assert pddlkit.plan(DOMAIN, PROBLEM, cache=False).solved


def test_a_worker_that_failed_is_replaced(monkeypatch):
    """A failure inside the worker itself (here: the search binary is missing) must not
    leave that worker in the pool; the next call gets a fresh one and plans."""
    import pddlkit.planners.fast_downward as fd
    from pddlkit.planners.workers import POOL

    pddlkit.plan(DOMAIN, PROBLEM, cache=False)
    served = POOL._idle[-1]  # acquire() takes the last idle worker
    monkeypatch.setattr(fd, "search_binary", lambda: Path("/nonexistent/downward"))
    failed = pddlkit.plan(DOMAIN, PROBLEM, cache=False)
    assert failed.status is PlanStatus.ERROR
    monkeypatch.undo()
    assert served not in POOL._idle and not served.alive
    for _ in range(3):
        assert pddlkit.plan(DOMAIN, PROBLEM, cache=False).solved


def test_cli_rejects_bad_timeouts_as_usage_errors():
    for value in ("0", "-3", "nan", "inf", "1e12", "soon"):
        out = _cli("plan", str(DOMAIN), str(PROBLEM), "--timeout", value)
        assert out.returncode == 2 and "--timeout" in out.stderr, (value, out.stderr)
        assert "Traceback" not in out.stderr


def test_cli_cache_paths_that_cannot_hold_a_cache(tmp_path):
    garbage = tmp_path / "garbage.pddl"
    garbage.write_text("(define (domain x))\n" * 50)
    cases = {str(tmp_path): "is a directory",
             str(tmp_path / "missing" / "dir" / "x.sqlite"): "does not exist",
             str(garbage): "is not an SQLite database"}
    for path, words in cases.items():
        out = _cli("plan", str(DOMAIN), str(PROBLEM), "--cache", path)
        assert out.returncode == 2 and words in out.stderr, (path, out.stderr)
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "missing").exists()
    good = tmp_path / "plans.sqlite"
    assert _cli("plan", str(DOMAIN), str(PROBLEM), "--cache", str(good)).returncode == 0
    assert good.is_file()


def test_a_crashed_command_planner_is_an_error_never_unsolvable_and_never_cached(tmp_path):
    crash = CommandPlanner("sh -c 'echo \"RuntimeError: search failed to allocate\"; exit 1' "
                           "{domain} {problem} {plan}", name="crasher")
    cache = str(tmp_path / "plans.sqlite")
    first = pddlkit.plan(DOMAIN, PROBLEM, planner=crash, cache=cache)
    assert first.status is PlanStatus.ERROR and first.diagnostics[0].code == "planner-failed"
    assert "search failed to allocate" in first.diagnostics[0].message
    again = pddlkit.plan(DOMAIN, PROBLEM, planner=crash, cache=cache)
    assert again.status is PlanStatus.ERROR and not again.cached
    # declared proofs: an exit code, or a message the planner prints only then
    said = CommandPlanner("sh -c 'echo \"no plan exists\"; exit 3' {domain} {problem} {plan}",
                          name="honest", unsolvable_output=r"no plan exists")
    assert pddlkit.plan(DOMAIN, PROBLEM, planner=said, cache=False).status \
        is PlanStatus.UNSOLVABLE


def test_command_placeholders_are_exact_and_printed_plans_are_read():
    braces = pddlkit.plan(DOMAIN, PROBLEM, cache=False, planner=CommandPlanner(
        "awk '{print}' {domain} {problem}", name="awk"))
    assert braces.status is PlanStatus.ERROR
    assert braces.diagnostics[0].code == "planner-failed"   # ran, and wrote no plan
    ff = CommandPlanner("sh -c 'printf \"ff: found legal plan as follows\\n\\nstep    0: PICK-UP A"
                        "\\n        1: STACK A B\\n\\ntime spent: 0.00 seconds\\n\"' {domain} "
                        "{problem}", name="ff-like")
    result = pddlkit.plan(BLOCKS, BLOCKS_PROBLEM, planner=ff, cache=False)
    assert result.solved and result.actions == ["(pick-up a)", "(stack a b)"]


def test_a_child_that_leaves_the_process_group_cannot_hold_the_call(private_tmp):
    import time

    escaper = CommandPlanner("sh -c 'setsid sleep 40 & sleep 30' {domain} {problem} {plan}",
                             name="escaper")
    start = time.monotonic()
    result = pddlkit.plan(DOMAIN, PROBLEM, planner=escaper, cache=False, timeout=2)
    assert result.status is PlanStatus.TIMEOUT and time.monotonic() - start < 10


@pytest.mark.slow
def test_in_process_plugins_are_held_to_the_limit_and_to_the_return_type():
    import time

    from pddlkit.planners import register_planner, unregister_planner

    class Sleeper(_Plugin):
        name = "sleeper"

        def solve(self, task, timeout=None, memory_limit=None):
            time.sleep(20)
            return pddlkit.plan(DOMAIN, PROBLEM, cache=False)

    class Lister(Sleeper):
        name = "lister"

        def solve(self, task, timeout=None, memory_limit=None):
            return ["(take coin kitchen)"]

    register_planner("sleeper", Sleeper, replace=True)
    register_planner("lister", Lister, replace=True)
    try:
        start = time.monotonic()
        slow = pddlkit.plan(DOMAIN, PROBLEM, planner="sleeper", cache=False, timeout=2)
        assert slow.status is PlanStatus.TIMEOUT and time.monotonic() - start < 8
        assert "cannot be stopped" in slow.diagnostics[0].message
        wrong = pddlkit.plan(DOMAIN, PROBLEM, planner="lister", cache=False)
        assert wrong.status is PlanStatus.ERROR
        assert wrong.diagnostics[0].code == "planner-bad-result"
        assert "returned a list, not a PlanResult" in wrong.diagnostics[0].message
    finally:
        unregister_planner("sleeper")
        unregister_planner("lister")


def test_a_planner_that_cannot_read_a_feature_is_refused_before_it_runs_and_auto_picks_one():
    refused = pddlkit.plan(DOMAIN, PROBLEM, planner="up:pyperplan", cache=False)
    assert refused.status is PlanStatus.ERROR and refused.note == "the planner was not run"
    d = refused.diagnostics[0]
    assert d.code == "planner-unsupported" and "negative" in d.message
    assert "fast-downward" in d.hint and "planner='auto'" in d.hint
    auto = pddlkit.plan(DOMAIN, PROBLEM, planner="auto", cache=False)
    assert auto.solved and auto.planner == "fast-downward" and "auto chose" in auto.note
    plain = pddlkit.plan(BLOCKS, BLOCKS_PROBLEM, planner="up:pyperplan", cache=False)
    assert plain.solved   # what it supports, it still plans
    from pddlkit.planners import available_planners

    listed = {i.name: i for i in available_planners()}
    assert "negative" not in listed["up:pyperplan"].supports
    assert listed["fast-downward"].supports >= {"negative", "conditional", "derived"}


DOOR_DOMAIN = """(define (domain doors) (:requirements :strips :negative-preconditions)
  (:predicates (at ?r) (connected ?a ?b) (closed ?a ?b))
  (:action move :parameters (?a ?b)
    :precondition (and (at ?a) (connected ?a ?b) (not (closed ?a ?b)))
    :effect (and (not (at ?a)) (at ?b)))
  (:action open :parameters (?a ?b) :precondition (and (at ?a) (connected ?a ?b))
    :effect (and (closed ?a ?a))))"""
DOOR_PROBLEM = """(define (problem p) (:domain doors) (:objects pantry corridor)
  (:init (at pantry) (connected pantry corridor) (closed pantry corridor))
  (:goal (at corridor)))"""


def test_why_no_plan_blames_the_negated_fact_nothing_deletes_not_a_true_one():
    """Qwen's CoinCollector domain at 1e00f75 (dev seed 1): move needed ``(not (closed-door
    ?from ?to ?dir))``, the door was closed in ``:init``, and open-door deleted nothing. The
    why-no-plan said move's closest instance "also needs (player pantry), which is never
    reachable", a fact of ``:init``, and the model was asked to fix move for it. It names
    the negated fact, that it holds initially and that no action deletes it, in the goal's
    chain and in the action's line."""
    result = pddlkit.plan(DOOR_DOMAIN, DOOR_PROBLEM, cache=False)
    assert result.status is PlanStatus.UNSOLVABLE
    text = result.explanation.text()
    needs = ("(not (closed pantry corridor)), but (closed pantry corridor) holds initially "
             "and no action deletes closed")
    assert f"(move pantry corridor), which needs {needs}" in text
    assert f"the closest, (move pantry corridor), also needs {needs}" in text
    assert "(at pantry)" not in text
    blocked = {b.action: b.blocker for b in result.explanation.blocked_actions}
    assert blocked["(move ?a ?b)"] == "(not (closed ?a ?b))"
    # once open deletes it, the plan is found: the line named what was wrong
    fixed = DOOR_DOMAIN.replace("(closed ?a ?a)", "(not (closed ?a ?b))")
    assert pddlkit.plan(fixed, DOOR_PROBLEM, cache=False).status is PlanStatus.SOLVED
