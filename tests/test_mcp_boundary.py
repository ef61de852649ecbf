"""The MCP server as a trust boundary (issue 70): a client's arguments are text, never a path;
a client names no URL, key or file through an LLM spec; every call runs in a worker the server
kills at its time or memory limit, or when the client cancels it; the queue is bounded; and
``--http`` wants the token. The pool is driven directly with tools that misbehave on purpose
(``tests/call_pool_tools.py``); the server through the SDK's own client."""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
import time
from pathlib import Path

import anyio
import pytest

from pddlkit.service import tools
from pddlkit.service.calls import CallLimits, CallPool

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DOMAIN = (REPO / "domains" / "coin-collector" / "domain.pddl").read_text()
PROBLEM = (REPO / "domains" / "coin-collector" / "p3.pddl").read_text()
SECRET = "root-only-secret-line-7f3a"


@pytest.fixture
def hostile(monkeypatch):
    """The misbehaving tools, importable in the pool's workers."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(HERE), os.environ.get("PYTHONPATH", "")]))
    import call_pool_tools

    return call_pool_tools


@pytest.fixture
def secret_file(tmp_path):
    path = tmp_path / "shadow"
    path.write_text(f"{SECRET}:x:0:0\n")
    path.chmod(0o600)
    return path


def _path_forms(secret: Path, tmp_path: Path) -> list[str]:
    link = tmp_path / "link.pddl"
    link.symlink_to(secret)
    relative = os.path.relpath(secret, Path.cwd())
    return [str(secret), "/" * 4100 + str(secret).lstrip("/"), relative,
            "../" * 12 + str(secret).lstrip("/"), f"file://{secret}", str(link),
            f"  {secret}\n", f"; a comment\n{secret}", str(secret) + " " * 5000]


def test_no_tool_reads_a_host_file_whatever_form_the_path_takes(secret_file, tmp_path):
    from pddlkit.formalizers import mcp_tools

    forms = _path_forms(secret_file, tmp_path)
    answers = []
    for form in forms:
        answers += [tools.check(form), tools.check(DOMAIN, form), tools.plan(form, PROBLEM),
                    tools.explain(DOMAIN, form), tools.validate_plan(form, PROBLEM, "(look)"),
                    tools.compare(form, PROBLEM, DOMAIN),
                    mcp_tools.formalize_step("You are in the kitchen.", "standin:pddlego",
                                             "coin-collector", domain=form)]
    for answer in answers:
        assert answer["ok"] is False and answer["error"]["code"] == "not-pddl-text", answer
        assert SECRET not in str(answer)
    for name in ("../../etc", "/etc", "a/../../b", "coin-collector/../../x"):
        assert mcp_tools.domains_list(env=name)["error"]["code"] == "bad-name"
        assert mcp_tools.domains_show(entry=name)["error"]["code"] == "bad-name"


def test_a_client_names_no_url_key_or_file_through_an_llm_spec(tmp_path, monkeypatch):
    from pddlkit.formalizers import mcp_tools

    monkeypatch.delenv("PDDLKIT_MCP_LLMS", raising=False)
    with socket.socket() as listener:        # the client's own listener: nothing may arrive
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        specs = [f"openai:gpt-4o-mini@http://127.0.0.1:{port}/v1", f"gpt-4o@http://127.0.0.1:"
                 f"{port}/v1", f"hf:/nonexistent?transcript={tmp_path}/a/b/t.jsonl",
                 f"hf:/nonexistent?cache={tmp_path}/c.sqlite", f"scripted:{tmp_path}/x.json",
                 f"replay:{tmp_path}/run.jsonl", "local:/tmp/model.gguf", "openai:gpt-4o-mini"]
        for spec in specs:
            answer = mcp_tools.formalize_step("You are in the kitchen.", spec, "coin-collector")
            assert answer["error"]["code"] == "llm-not-allowed", (spec, answer)
            assert "standin:pddlego" in answer["error"]["message"]
        with pytest.raises(socket.timeout):
            listener.accept()
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    from pddlkit.service import access

    access.allow(["openai:gpt-4o-mini@http://127.0.0.1:9/v1"])
    assert access.checked_llm("openai:gpt-4o-mini@http://127.0.0.1:9/v1")
    assert mcp_tools.formalize_step("x", "openai:gpt-4o-mini@http://127.0.0.1:9/v1 ",
                                    "nowhere")["error"]["code"] == "unknown-env"


def _with_pool(body, **limits) -> None:
    """Run ``await body(pool)`` on a pool of 2 workers and 4 waiting (or ``limits``), closed
    after, whatever happened."""
    async def main():
        pool = CallPool(CallLimits(**{"seconds": 30.0, "workers": 2, "queue": 4, **limits}))
        try:
            await body(pool)
        finally:
            await pool.aclose()
    anyio.run(main)


@pytest.mark.slow
def test_a_slow_call_is_stopped_at_its_limit_and_a_cancelled_one_is_killed(hostile, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("CHILD_PID_FILE", str(tmp_path / "child.pid"))

    async def main(pool):
        started = time.monotonic()
        answer = await pool.call(hostile.spins, {}, seconds=1.0)
        assert answer["error"]["code"] == "call-time-limit", answer
        assert time.monotonic() - started < 3
        # a call the client gives up on is killed, with what it started
        with anyio.move_on_after(1.5):
            await pool.call(hostile.starts_a_child_that_sleeps, {})
        child = int((tmp_path / "child.pid").read_text())
        await anyio.sleep(0.3)
        assert not Path(f"/proc/{child}").exists() or \
            Path(f"/proc/{child}/stat").read_text().split()[2] == "Z"
        fine = await pool.call(hostile.prints_then_answers, {})
        assert fine == {"ok": True, "text": "answered"}
    _with_pool(main)


def test_a_memory_hungry_call_is_killed_and_a_crash_is_data(hostile):
    async def main(pool):
        answer = await pool.call(hostile.hogs_memory, {}, seconds=20.0)
        assert answer["error"]["code"] == "call-memory-limit", answer
        crashed = await pool.call(hostile.exits, {})
        assert crashed["error"]["code"] == "call-crashed" and "3" in crashed["text"]
        again = await pool.call(hostile.prints_then_answers, {})
        assert again["ok"]
    _with_pool(main, memory_mb=300)


@pytest.mark.slow
def test_slow_calls_cannot_exhaust_the_pool(hostile):
    """41 slow calls (the old thread pool held 40): the first run, a bounded number wait, the
    rest are refused at once; a fast call then gets an answer within a second, and once the
    slow ones are stopped at their limit the server answers normally again."""
    answers: list = []

    async def main(pool):
        async with anyio.create_task_group() as group:
            async def slow() -> None:
                answers.append(await pool.call(hostile.sleeps, {}, seconds=2.0))
            for _ in range(41):
                group.start_soon(slow)
            await anyio.sleep(0.5)
            started = time.monotonic()
            fast = await pool.call(tools.check, {"domain": DOMAIN})
            assert time.monotonic() - started < 1.0
            assert fast["error"]["code"] == "server-busy", fast
        codes = [a["error"]["code"] for a in answers]
        assert codes.count("server-busy") == 41 - 2 - 4
        assert codes.count("call-time-limit") == 6
        started = time.monotonic()
        assert (await pool.call(tools.check, {"domain": DOMAIN}))["ok"]
        assert time.monotonic() - started < 5.0
    _with_pool(main, workers=2, queue=4)


def test_a_tool_with_state_keeps_its_worker_and_loses_it_when_stopped(hostile):
    async def main(pool):
        first = await pool.call(hostile.counts, {})
        second = await pool.call(hostile.counts, {"memory": first["memory"]})
        assert (first["count"], second["count"]) == (1, 2)
        fresh = await pool.call(hostile.counts, {})      # another worker, its own state
        assert fresh["count"] == 1
        unknown = await pool.call(hostile.counts, {"memory": "nope"})
        assert unknown["error"]["code"] == "unknown-memory"
    _with_pool(main, sessions=1)


needs_mcp = pytest.mark.skipif(importlib.util.find_spec("mcp") is None,
                               reason="pip install 'pddlkit[mcp]' (make test installs it)")


@pytest.mark.slow
@needs_mcp
def test_an_explain_past_its_limit_is_stopped_while_the_server_keeps_answering(tmp_path):
    """Through the SDK's stdio client: a call stopped at its limit, a check answered within a
    second meanwhile, and a misspelt argument refused by name."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pddlkit.cli", "mcp", "--call-timeout", "20"],
        env={**os.environ, "PDDLKIT_CACHE_DIR": str(tmp_path / "cache"),
             "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])},
        cwd=str(REPO))

    async def main():
        async with Client(params, read_timeout_seconds=60) as client:
            async with anyio.create_task_group() as group:
                stopped: dict = {}

                async def slow() -> None:
                    result = await client.call_tool("explain", {
                        "domain": BLOWUP_DOMAIN, "problem": BLOWUP_PROBLEM, "call_timeout": 3})
                    stopped.update(result.structured_content)
                group.start_soon(slow)
                await anyio.sleep(1.0)
                times = []   # the best of three, so one hiccup of a loaded machine is not it
                for _ in range(3):
                    started = time.monotonic()
                    quick = await client.call_tool("check", {"domain": DOMAIN,
                                                             "problem": PROBLEM})
                    assert quick.structured_content["ok"]
                    times.append(time.monotonic() - started)
                assert min(times) < 1.0, times
            assert stopped["error"]["code"] == "call-time-limit", stopped
            misspelt = await client.call_tool("check", {"domain": DOMAIN, "probelm": PROBLEM})
            error = misspelt.structured_content["error"]
            assert error["code"] == "unknown-argument" and "'problem'" in error["message"]
            listed = await client.list_tools()
            for tool in listed.tools:
                schema = tool.input_schema
                assert schema["additionalProperties"] is False and "call_timeout" in \
                    schema["properties"]
                assert all(p.get("description") for p in schema["properties"].values()), \
                    tool.name
                assert "``" not in tool.description
    anyio.run(main)


#: an action of 7 parameters over 12 objects: 12^7 groundings, far past any call's limit
BLOWUP_DOMAIN = """(define (domain blowup) (:requirements :strips)
 (:predicates (p ?a) (q ?a ?b ?c ?d ?e ?f ?g) (goal))
 (:action go :parameters (?a ?b ?c ?d ?e ?f ?g)
  :precondition (and (p ?a) (p ?b) (p ?c) (p ?d) (p ?e) (p ?f) (p ?g))
  :effect (q ?a ?b ?c ?d ?e ?f ?g)))"""
BLOWUP_PROBLEM = ("(define (problem b) (:domain blowup) (:objects o1 o2 o3 o4 o5 o6 o7 o8 o9 "
                  "o10 o11 o12) (:init " + " ".join(f"(p o{i})" for i in range(1, 13))
                  + ") (:goal (goal)))")


@needs_mcp
def test_http_wants_the_token(tmp_path):
    from test_mcp import http_server

    token = "t0ken-for-the-test-0123456789"
    with http_server("--token", token, env={**os.environ, "PDDLKIT_CACHE_DIR":
                                            str(tmp_path / "c")}) as port:
        import httpx

        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}
        headers = {"Accept": "application/json, text/event-stream"}
        url = f"http://127.0.0.1:{port}/mcp"
        for wrong in ({}, {"Authorization": "Bearer nope"},
                      {"Authorization": f"Bearer {token[:-1]}"}, {"Authorization": token}):
            refused = httpx.post(url, json=body, headers={**headers, **wrong}, timeout=10)
            assert refused.status_code == 401 and "token" in refused.json()["error"]
        allowed = httpx.post(url, json=body, timeout=10,
                             headers={**headers, "Authorization": f"Bearer {token}"})
        assert allowed.status_code == 200, allowed.text


def test_a_client_names_no_command_planner(tmp_path):
    """The audit's critical finding: ``plan(planner="cmd:...")`` ran a shell command as the
    server's user. A client names only the server's planners; a command planner is the
    operator's (Python, the CLI), never a client's."""
    marker = tmp_path / "pwned"
    for planner in (f"cmd:touch {marker}; true {{domain}} {{problem}} {{plan}}",
                    f" cmd:touch {marker} {{domain}} {{problem}} {{plan}}", "up:no-such-engine",
                    "fast-downward:no-such-alias", "nope", "", 123, ["auto"], {"x": 1}):
        answer = tools.plan(DOMAIN, PROBLEM, planner=planner, cache=False)
        assert not answer["ok"] and answer["error"]["code"] in ("unknown-planner",
                                                                "bad-input"), answer
        offered = answer["error"]["message"].split("offers")[-1] + answer["error"]["hint"]
        assert "{domain}" not in offered and "cmd:<" not in offered
    assert not marker.exists()
    for planner in ("fast-downward", "fast-downward:lama-first", "auto"):
        assert tools.plan(DOMAIN, PROBLEM, planner=planner, cache=False)["ok"], planner
    assert tools.plan(DOMAIN, PROBLEM, timeout="50")["error"]["code"] == "bad-input"


def test_a_clients_own_mistakes_are_its_errors_not_pddlkits():
    from pddlkit.formalizers import mcp_tools

    answers = [mcp_tools.formalize_step("x", llm, "coin-collector")
               for llm in ("standin:deps", "standin:pddlego:noisy:abc", f"standin:{HERE}")]
    answers += [mcp_tools.formalize_step("x", "standin:pddlego", env)
                for env in ("craft", "grasp", "minigrid-doorkey")]
    answers += [mcp_tools.formalize_step("x", "standin:pddlego", "coin-collector", modular=m)
                for m in ("yes", True)]
    answers += [mcp_tools.formalize_step("x", "standin:pddlego", "coin-collector",
                                         domain="(define (domain x))\n/tmp/x")]
    first = mcp_tools.formalize_step("You are in the kitchen.", "standin:pddlego",
                                     "coin-collector")
    answers += [mcp_tools.formalize_step(memory=first["memory"], pairs=pairs)
                for pairs in ("ab", [["a"]], [["a", "b", "c"]], 123, {"a": "b"}, [[["x"], "y"]],
                              [["look", "y"]] * 101)]
    answers += [tools.compare(DOMAIN, DOMAIN, problems=5), tools.compare(DOMAIN, DOMAIN,
                                                                          problems="(abc")]
    answers += [mcp_tools.formalize_step("You are in the kitchen.", "standin:pddlego",
                                         "coin-collector", helps=helps, small_model=preset)
                for helps, preset in ((["nope"], False), ("repair", False), ([1], False),
                                      (["novel_goals"], False), (None, "yes"))]
    for answer in answers:
        assert not answer["ok"] and answer["error"]["code"] != "internal-error", answer
    assert "novel_goals=True asks an LLM for one part of the files" in \
        answers[-2]["error"]["message"]
    helped = mcp_tools.formalize_step("You are in the kitchen. To the South you see the "
                                      "pantry.", "standin:pddlego", "coin-collector",
                                      helps=["repair", "fact-memory"])
    assert helped["ok"], helped
    assert mcp_tools.domains_list()["text"] and "root" not in mcp_tools.domains_list()
