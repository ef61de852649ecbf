"""``pddlkit mcp``: the core's tools over the Model Context Protocol (issue 50), with the
official SDK (PyPI ``mcp``, the ``pddlkit[mcp]`` extra): stdio by default, streamable HTTP on a
loopback port with ``--http``.

* **Tools**: :data:`pddlkit.service.tools.TOOLS` (check, plan, validate_plan, explain, compare)
  and the front ends' (``pddlkit.mcp_tools`` entry points: PDDLego+ adds domains_list,
  domains_show, domains_verify and formalize_step). Each has a JSON schema for its input (from
  its signature) and for its output (every tool answers an object: ``ok``, ``text`` and the
  answer's fields; an error is ``{"ok": false, "error": {...}}``, never a traceback).
* **Resources**: the bundled reference domains (``pddlkit://domains/<name>/domain.pddl``,
  and each bundled problem), read-only.
* **Limits**: each input at most ``PDDLKIT_MCP_MAX_BYTES`` (1 MiB), planner time at most
  120 s per call; a planner that runs out answers ``timeout`` as data, and the server keeps
  serving. Tools run in a worker thread, so a long plan does not stop the server reading.
* **HTTP**: bound to 127.0.0.1 unless ``--host`` says otherwise (a wider bind is the user's
  choice, said on stderr); the endpoint is ``/mcp``.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from typing import Any, Callable, Optional

ENTRY_POINT_GROUP = "pddlkit.mcp_tools"
#: the JSON schema every tool's answer follows (its fields beyond these are the answer's own)
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "text": {"type": "string"},
                   "error": {"type": "object",
                             "properties": {"code": {"type": "string"},
                                            "message": {"type": "string"},
                                            "hint": {"type": "string"},
                                            "argument": {"type": "string"}}}},
    "required": ["ok", "text"],
    "additionalProperties": True,
}
INSTRUCTIONS = ("pddlkit: a PDDL world model for agents. check finds what is wrong in a domain "
                "or problem and where; plan returns a validated plan (or why there is none); "
                "validate_plan says which step fails and on which atom; explain says why no "
                "plan exists; compare says whether two problems are the same up to renaming. "
                "PDDL goes in as text; every answer has ok and text.")


def all_tools() -> dict[str, Callable[..., dict]]:
    """The core's tools and every installed front end's (a broken plugin is said on stderr
    and left out, never fatal)."""
    from .tools import TOOLS

    found = dict(TOOLS)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            found.update(ep.load()())
        except Exception as exc:  # noqa: BLE001 - the core's tools still serve
            print(f"pddlkit mcp: tools of {ep.name!r} not loaded: {exc}", file=sys.stderr)
    return found


def reference_domains() -> dict[str, str]:
    """``uri -> PDDL text`` of the bundled reference domains and problems."""
    from importlib.resources import files

    root = files("pddlkit.domains")
    out = {}
    for folder in sorted(root.iterdir(), key=lambda p: p.name):
        if not folder.is_dir() or folder.name.startswith(("_", ".")) or folder.name == "learned":
            continue
        for item in sorted(folder.iterdir(), key=lambda p: p.name):
            if item.name.endswith(".pddl"):
                out[f"pddlkit://domains/{folder.name}/{item.name}"] = item.read_text()
    return out


def build_server(name: str = "pddlkit"):
    """The MCP server with every tool and resource (not started)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        raise RuntimeError("pddlkit mcp needs the MCP SDK: pip install 'pddlkit[mcp]' "
                           f"({exc})") from None
    import anyio

    from pddlkit import __version__

    server = MCPServer(name, version=__version__, instructions=INSTRUCTIONS)
    for tool_name, function in all_tools().items():
        _add_tool(server, tool_name, function, anyio)
    for uri, text in reference_domains().items():
        _add_resource(server, uri, text)
    return server


def _add_tool(server, name: str, function: Callable[..., dict], anyio) -> None:
    """Register ``function`` as an async tool that runs it in a worker thread (a plan of many
    seconds does not block the server), with the common output schema."""
    import functools
    import inspect
    import typing

    async def tool(**kwargs: Any) -> dict:
        return await anyio.to_thread.run_sync(functools.partial(function, **kwargs))

    # the SDK reads the input schema from the signature: the function's, with its (string)
    # annotations resolved, answering the JSON object every tool answers
    hints = typing.get_type_hints(function)
    signature = inspect.signature(function)
    tool.__name__, tool.__doc__ = function.__name__, function.__doc__
    tool.__signature__ = signature.replace(
        parameters=[p.replace(annotation=hints.get(p.name, Any))
                    for p in signature.parameters.values()],
        return_annotation=dict[str, Any])
    tool.__annotations__ = {**{k: v for k, v in hints.items() if k != "return"},
                            "return": dict[str, Any]}
    server.tool(name=name, description=(function.__doc__ or "").strip().split("\n\n")[0],
                structured_output=True)(tool)
    registered = server._tool_manager.get_tool(name)
    metadata = getattr(registered, "fn_metadata", None)
    if metadata is not None:   # every answer: ok and text, then the answer's own fields
        metadata.output_schema = {**OUTPUT_SCHEMA, "title": f"{name} answer"}


def _add_resource(server, uri: str, text: str) -> None:
    def read() -> str:
        return text

    server.resource(uri, name=uri.rsplit("/", 2)[-2] + "/" + uri.rsplit("/", 1)[-1],
                    mime_type="text/x-pddl")(read)


def serve(http: bool = False, host: str = "127.0.0.1", port: Optional[int] = None) -> int:
    """Run the server until the client goes (stdio) or Ctrl-C (HTTP)."""
    server = build_server()
    if not http:
        server.run("stdio")
        return 0
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"pddlkit mcp: listening on {host}, not only this machine", file=sys.stderr)
    port = port or 8765
    print(f"pddlkit mcp: streamable HTTP at http://{host}:{port}/mcp", file=sys.stderr)
    server.run("streamable-http", host=host, port=port)
    return 0
