"""``pddlkit mcp`` (issue 50), started as a subprocess and spoken to with the MCP SDK's own
client, over stdio and over streamable HTTP: every tool listed with its schemas, each called
with good and bad input (a broken domain, an unsolvable problem, a plan with a wrong step,
input over the size limit, a planner that runs out of time), the answers checked as data, and
the server still serving after each bad call."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="pip install 'pddlkit[mcp]' (make test installs it)")

import anyio  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DOMAIN = (REPO / "domains" / "coin-collector" / "domain.pddl").read_text()
PROBLEM = (REPO / "domains" / "coin-collector" / "p3.pddl").read_text()
PLAN = (REPO / "domains" / "coin-collector" / "p3.plan").read_text()
#: the coin's room has no way in: no plan exists
UNSOLVABLE = PROBLEM.replace("(connected patio backyard west) (connected backyard patio east)",
                             "")
#: the same problem with every object renamed: equivalent up to renaming
RENAMED = (PROBLEM.replace("kitchen", "k1").replace("patio", "p1").replace("backyard", "b1")
           .replace("coin - item", "c1 - item").replace("(in coin b1)", "(in c1 b1)")
           .replace("(holding coin)", "(holding c1)"))
TOOLS = {"check", "plan", "validate_plan", "explain", "compare", "domains_list", "domains_show",
         "domains_verify", "formalize_step"}


def _server_env(tmp_path: Path) -> dict:
    from pddlkit.formalizers.library import DomainLibrary

    DomainLibrary(tmp_path / "data" / "domains").save("coin-collector", DOMAIN, [PROBLEM],
                                                      task="find the coin and take it.")
    return {**os.environ, "PDDLKIT_MCP_MAX_BYTES": "20000",
            "PDDLKIT_DATA_DIR": str(tmp_path / "data"),
            "PDDLKIT_CACHE_DIR": str(tmp_path / "cache")}


def _answer(result) -> dict:
    assert not result.is_error, result
    data = result.structured_content
    assert isinstance(data, dict) and "ok" in data and isinstance(data["text"], str)
    return data


async def _exercise(client) -> None:
    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.description
        assert set(tool.output_schema["required"]) == {"ok", "text"}

    async def call(name: str, **arguments) -> dict:
        answer = _answer(await client.call_tool(name, arguments))
        still = _answer(await client.call_tool("check", {"domain": DOMAIN}))
        assert still["ok"], "the server stopped serving after a call"
        return answer

    good = await call("check", domain=DOMAIN, problem=PROBLEM)
    assert good["ok"] and good["errors"] == 0
    # issue 71: a misspelt argument is refused by name (the SDK dropped it: "no problems")
    misspelt = await call("check", domain=DOMAIN, probelm=UNSOLVABLE.replace("(in coin",
                                                                             "(in nowhere"))
    assert not misspelt["ok"] and misspelt["error"]["code"] == "unknown-argument"
    assert "did you mean 'problem'" in misspelt["error"]["message"]
    assert (await call("check", domain=DOMAIN, target="auto"))["ok"]
    for tool in tools.values():
        assert "``" not in tool.description
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description") and (schema.get("type") or schema.get("enum")), \
                (tool.name, name)
    assert tools["check"].input_schema["properties"]["target"]["enum"] == [
        "fast-downward", "auto", "any"]
    broken = await call("check", domain=DOMAIN.replace("(at ?r - room)", "(at ?r - rom)"))
    assert not broken["ok"] and broken["diagnostics"][0]["line"] > 0
    assert "rom" in broken["text"]

    solved = await call("plan", domain=DOMAIN, problem=PROBLEM)
    assert solved["ok"] and solved["status"] == "solved" and len(solved["plan"]) == 4
    assert solved["planner"] == "fast-downward"     # the CLI's and Python's default too
    none = await call("plan", domain=DOMAIN, problem=UNSOLVABLE)
    assert not none["ok"] and none["status"] == "unsolvable"
    slow = await call("plan", domain=DOMAIN, problem=RENAMED, timeout=1e-6, cache=False)
    assert not slow["ok"] and slow["status"] == "timeout", slow["text"]
    too_long = await call("plan", domain=DOMAIN, problem=PROBLEM, timeout=3600)
    assert too_long["error"]["code"] == "timeout-out-of-range"

    valid = await call("validate_plan", domain=DOMAIN, problem=PROBLEM, plan=PLAN)
    assert valid["valid"]
    wrong = await call("validate_plan", domain=DOMAIN, problem=PROBLEM,
                       plan=PLAN.replace("(open-door kitchen patio south)\n", ""))
    assert not wrong["ok"] and not wrong["valid"] and wrong["failure"]["step"] == 1
    assert any("door-open" in atom for atom in wrong["failure"]["unsatisfied"])

    why = await call("explain", domain=DOMAIN, problem=UNSOLVABLE)
    assert why["ok"] and why["sentences"]
    solvable = await call("explain", domain=DOMAIN, problem=PROBLEM)
    assert not solvable["ok"] and solvable["solvable"] and "has a plan" in solvable["text"]
    broken_explain = await call("explain", domain="(define (domain x)", problem=PROBLEM)
    assert broken_explain["error"]["code"] == "pddl-errors" and broken_explain["diagnostics"]

    same = await call("compare", reference=PROBLEM, candidate=RENAMED, domain=DOMAIN)
    assert same["ok"] and same["equivalent"]
    garbage = await call("compare", reference=PROBLEM, candidate="(define (problem", domain=DOMAIN)
    assert not garbage["ok"] and garbage["error"]["argument"] == "candidate"
    kinds = await call("compare", reference=PROBLEM, candidate=DOMAIN, domain=DOMAIN)
    assert kinds["error"]["code"] == "compare-kind-mismatch"

    huge = await call("check", domain=DOMAIN + ";" * 30000)
    assert huge["error"]["code"] == "input-too-large" and huge["error"]["argument"] == "domain"
    path = await call("check", domain="/etc/passwd")
    assert path["error"]["code"] == "not-pddl-text"
    listed = await call("domains_list")
    assert listed["ok"] and len(listed["entries"]) == 1
    entry = listed["entries"][0]["id"]
    shown = await call("domains_show", entry=entry)
    assert "(define (domain coin-collector)" in shown["domain"]
    verified = await call("domains_verify", entry=entry)
    assert verified["ok"] and verified["solved"] == 1
    unknown = await call("domains_show", entry="coin-collector/abc")
    assert unknown["error"]["code"] == "unknown-entry"
    unverified = await call("domains_verify", entry="nowhere/abc")
    assert unverified["error"]["code"] == "unknown-entry"

    first = await call("formalize_step", observation="You are in the kitchen. To the South "
                       "you see a closed patio door.", llm="standin:pddlego",
                       env="coin-collector")
    assert first["memory"] and "(define" in first["problem"]
    lost = await call("formalize_step", memory="nope", pairs=[["look", "x"]])
    assert lost["error"]["code"] == "unknown-memory"
    nowhere = await call("formalize_step", observation="x", llm="standin:pddlego",
                         env="coin-colector")
    assert nowhere["error"]["code"] == "unknown-env" and "coin-collector" in \
        nowhere["error"]["hint"]

    resources = await client.list_resources()
    uris = {str(r.uri) for r in resources.resources}
    assert "pddlkit://domains/coin-collector/domain.pddl" in uris
    read = await client.read_resource("pddlkit://domains/coin-collector/domain.pddl")
    assert "(define (domain coin-collector)" in read.contents[0].text


@pytest.mark.slow
def test_the_stdio_server_answers_every_tool_as_data_and_keeps_serving(tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "pddlkit.cli", "mcp"],
                                   env=_server_env(tmp_path), cwd=str(REPO))

    async def main():
        async with Client(params, read_timeout_seconds=120) as client:
            await _exercise(client)
    anyio.run(main)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(*options: str, env: dict):
    """``pddlkit mcp --http`` on a free loopback port, started and stopped: yields the port
    once the server accepts connections (its stderr is in the failure if it ended first)."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "pddlkit.cli", "mcp", "--http", "--port",
                               str(port), *options], env=env, cwd=str(REPO),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, server.stderr.read()
            time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_the_http_server_on_a_loopback_port_answers_the_same(tmp_path):
    token = "a-token-for-this-test-only-42"
    with http_server(env={**_server_env(tmp_path), "PDDLKIT_MCP_TOKEN": token}) as port:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        async def main():
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with http, Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                                           http_client=http),
                                    read_timeout_seconds=120) as c:
                await _exercise(c)
        anyio.run(main)


def test_the_tools_are_plain_functions_a_program_can_call_too():
    from pddlkit.service.tools import plan

    answer = plan(DOMAIN, PROBLEM)
    assert answer["ok"] and json.dumps(answer)
