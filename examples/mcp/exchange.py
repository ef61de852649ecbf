"""A short exchange with ``pddlkit mcp`` through the MCP SDK's own client, as an MCP client
(a desktop assistant, a coding agent) has it: start the server over stdio, list its tools,
check a domain with a typo, plan the fixed one, and ask why a problem has no plan.

    .venv/bin/python examples/mcp/exchange.py > examples/mcp/exchange.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
DOMAIN = (REPO / "domains" / "coin-collector" / "domain.pddl").read_text()
PROBLEM = (REPO / "domains" / "coin-collector" / "p3.pddl").read_text()


def show(title: str, arguments: dict, answer: dict) -> None:
    shown = {k: (v if len(str(v)) < 70 else str(v)[:60] + " ...") for k, v in arguments.items()}
    print(f"### {title}\n\n```\ncall {json.dumps(shown)}\n```\n\n```\n{answer['text']}\n```\n")


async def main() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "pddlkit.cli", "mcp"])
    async with Client(params, read_timeout_seconds=120) as client:
        tools = (await client.list_tools()).tools
        print("# pddlkit mcp: an exchange with the MCP SDK's client\n")
        print("### tools/list\n\n" + "\n".join(f"- `{t.name}`: {' '.join(t.description.split())}"
                                                for t in tools) + "\n")
        typo = DOMAIN.replace("(at ?r - room)", "(at ?r - rom)")
        for title, name, arguments in (
                ("check: a domain with a typo", "check", {"domain": typo}),
                ("plan: the bundled CoinCollector problem", "plan",
                 {"domain": DOMAIN, "problem": PROBLEM}),
                ("validate_plan: the first step left out", "validate_plan",
                 {"domain": DOMAIN, "problem": PROBLEM,
                  "plan": "(move kitchen patio south)\n(move patio backyard west)\n"
                          "(take coin backyard)"}),
                ("explain: the coin's room walled off", "explain",
                 {"domain": DOMAIN, "problem": PROBLEM.replace(
                     "(connected patio backyard west) (connected backyard patio east)", "")})):
            result = await client.call_tool(name, arguments)
            show(title, arguments, result.structured_content)


if __name__ == "__main__":
    anyio.run(main)
