"""``pddlkit mcp``: the core's tools over the Model Context Protocol (issue 50), with the
official SDK (PyPI ``mcp``, the ``pddlkit[mcp]`` extra): stdio by default, streamable HTTP on a
loopback port with ``--http``.

* **Tools**: :data:`pddlkit.service.tools.TOOLS` (check, plan, validate_plan, explain, compare)
  and the front ends' (``pddlkit.mcp_tools`` entry points: PDDLego+ adds domains_list,
  domains_show, domains_verify and formalize_step). Each has a JSON schema for its input (its
  ``arguments`` table: every argument described, with its type, allowed values and units;
  an argument the tool does not take is refused by name, ``unknown-argument``, never dropped)
  and for its output (every tool answers an object: ``ok``, ``text`` and the answer's fields;
  an error is ``{"ok": false, "error": {...}}``, never a traceback).
* **Resources**: the bundled reference domains (``pddlkit://domains/<name>/domain.pddl``,
  and each bundled problem), read-only.
* **A trust boundary** (issue 70): the client is not trusted. PDDL comes in as text, never as
  a path (:func:`.tools._text`); LLM specs only from the operator's ``--llm`` list
  (:mod:`.access`); every call in a worker process killed at its time or memory limit or when
  the client cancels, with a bounded queue (:mod:`.calls`); over HTTP a bearer token
  (:class:`BearerToken`). Each input is at most ``PDDLKIT_MCP_MAX_BYTES`` (1 MiB).
* **HTTP**: bound to 127.0.0.1 unless ``--host`` says otherwise (a wider bind is the user's
  choice, said on stderr); the endpoint is ``/mcp``.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Sequence

from ..plugins import entry_points_of
from .calls import CallLimits
from .tools import MAX_INPUT_BYTES, Refused

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
    for ep in entry_points_of(ENTRY_POINT_GROUP):
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


def build_server(name: str = "pddlkit", limits: Optional[CallLimits] = None,
                 llms: Sequence[str] = ()):
    """The MCP server with every tool and resource (not started): each tool call runs in a
    killable worker under ``limits`` (:mod:`.calls`); ``llms``: the LLM specs a client may name
    besides the offline stand-ins (:mod:`.access`)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        raise RuntimeError("pddlkit mcp needs the MCP SDK: pip install 'pddlkit[mcp]' "
                           f"({exc})") from None
    from pddlkit import __version__

    from . import access
    from .calls import CallPool

    import dataclasses

    access.allow(llms)
    tools = all_tools()
    limits = limits or CallLimits()
    limits = dataclasses.replace(limits, preload=tuple(dict.fromkeys(
        [*limits.preload, *(f.__module__ for f in tools.values())])))
    pool = CallPool(limits)
    server = MCPServer(name, version=__version__, instructions=INSTRUCTIONS,
                       lifespan=_warming(pool))
    for tool_name, function in tools.items():
        _add_tool(server, tool_name, function, pool)
    for uri, text in reference_domains().items():
        _add_resource(server, uri, text)
    server.call_pool = pool
    return server


def _warming(pool):
    """The server's lifespan: start the pool's first workers in the background while the
    client connects. Nothing is closed at its end: a lifespan runs per HTTP session, and the
    workers serve every session; they end with the server (their stdin closes, and the
    kernel's parent-death signal)."""
    import contextlib

    @contextlib.asynccontextmanager
    async def lifespan(server):
        import anyio

        async with anyio.create_task_group() as group:
            group.start_soon(pool.warm)
            yield {}
            group.cancel_scope.cancel()
    return lifespan


#: the most text one call's arguments may hold together (each PDDL input is capped at
#: MAX_INPUT_BYTES on its own; compare's problems and formalize_step's pairs add up)
MAX_CALL_BYTES = 8 * MAX_INPUT_BYTES
#: the argument every tool takes beside its own: this call's wall-clock limit
CALL_TIMEOUT = "call_timeout"
#: what the SDK's argument check hands a tool when a client sent arguments it does not take
_UNKNOWN = "unknown_arguments__"


def input_schema(function: Callable[..., dict], limits: CallLimits) -> dict:
    """The JSON schema of a tool's arguments, from its signature and its ``arguments`` table
    (:data:`.tools.ARGUMENTS` and the front ends' own): each described, unknown ones refused."""
    import inspect

    described = getattr(function, "arguments", {})
    properties, required = {}, []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.name not in described:
            raise ValueError(f"tool {function.__name__}: argument {parameter.name!r} has no "
                             "description in its arguments table")
        properties[parameter.name] = dict(described[parameter.name])
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
    properties[CALL_TIMEOUT] = {
        "type": "number", "exclusiveMinimum": 0, "maximum": limits.seconds,
        "description": f"seconds this call may run before the server stops it (default and "
                       f"most: {limits.seconds:g}); memory is capped at {limits.memory_mb} MiB"}
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False, "title": f"{function.__name__} arguments"}


def _add_tool(server, name: str, function: Callable[..., dict], pool) -> None:
    """Register ``function`` as an async tool whose every call runs in a worker of ``pool``
    (a call past its limits is stopped there and answered as data), with its own described
    input schema (:func:`input_schema`) and the common output schema."""
    import inspect

    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    limits = pool.limits
    schema = input_schema(function, limits)
    known = set(schema["properties"])

    required = [r for r in schema["required"]]

    async def tool(**kwargs: Any) -> dict:
        unknown = kwargs.pop(_UNKNOWN, None)
        if unknown:
            return _unknown_arguments(unknown, sorted(known))
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        missing = [r for r in required if r not in kwargs]
        if missing:
            return Refused("missing-input", f"this tool needs {', '.join(missing)}",
                           f"its arguments: {', '.join(sorted(known))}", missing[0]).answer()
        size = _size(kwargs)
        if size > MAX_CALL_BYTES:   # refused here, before it is copied to a worker
            return Refused("input-too-large", f"the arguments are {size:,} bytes or more, "
                           f"over the limit of {MAX_CALL_BYTES:,} for one call", "send "
                           "smaller files, or fewer of them").answer()
        seconds = kwargs.pop(CALL_TIMEOUT, None)
        try:
            seconds = _call_seconds(seconds, limits)
        except Refused as exc:
            return exc.answer()
        planner_time = getattr(function, "planner_time", None)
        if planner_time:   # the planner must stop before the call's limit does
            asked = kwargs.get(planner_time)
            if asked is None:
                kwargs[planner_time] = min(getattr(function, "planner_default", 30.0),
                                           0.8 * seconds)
            elif isinstance(asked, (int, float)) and asked >= seconds:
                return Refused("timeout-out-of-range", f"{planner_time} {asked:g} s is not "
                               f"below this call's limit of {seconds:g} s", "ask for less "
                               f"planner time, or a longer {CALL_TIMEOUT}", planner_time).answer()
        return await pool.call(function, kwargs, seconds)

    signature = inspect.signature(function)
    tool.__name__, tool.__doc__ = function.__name__, function.__doc__
    # to the SDK every argument is optional: a missing one is answered by the tool, as data
    # naming it, not by the SDK's validation text
    tool.__signature__ = signature.replace(
        parameters=[*[p.replace(annotation=Any, default=None)
                      for p in signature.parameters.values()],
                    inspect.Parameter(CALL_TIMEOUT, inspect.Parameter.KEYWORD_ONLY,
                                      default=None, annotation=Any)],
        return_annotation=dict[str, Any])
    tool.__annotations__ = {**{p: Any for p in signature.parameters}, CALL_TIMEOUT: Any,
                            "return": dict[str, Any]}
    server.tool(name=name, description=_description(function), structured_output=True)(tool)
    registered = server._tool_manager.get_tool(name)
    registered.parameters = schema

    class StrictArguments(type(registered.fn_metadata)):
        """The SDK's argument check, refusing names the tool does not take (the SDK drops
        them, so a misspelt ``probelm`` went unread and ``check`` said "no problems")."""

        def validate_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
            unknown = sorted(set(arguments) - known)
            if unknown:
                return {_UNKNOWN: unknown}
            return super().validate_arguments(arguments)

    metadata = registered.fn_metadata
    registered.fn_metadata = StrictArguments(
        arg_model=metadata.arg_model, output_model=metadata.output_model,
        wrap_output=metadata.wrap_output,
        output_schema={**OUTPUT_SCHEMA, "title": f"{name} answer"})
    assert isinstance(registered.fn_metadata, FuncMetadata)


def _size(value: Any, limit: Optional[int] = None) -> int:
    """Bytes of text in ``value`` (strings, nested lists and dicts), counted up to just past
    ``limit`` (:data:`MAX_CALL_BYTES`): a huge argument is measured without being walked."""
    limit = MAX_CALL_BYTES if limit is None else limit
    total, todo = 0, [value]
    while todo and total <= limit:
        item = todo.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += len(item)
            todo.extend(item)
        else:
            total += 8
    return total


def _description(function: Callable) -> str:
    """The tool's description for a model: its docstring's first paragraph, one line, with
    reStructuredText's double backticks made plain quotes."""
    first = (function.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(first.replace("``", "'").split())


def _unknown_arguments(unknown: list, known: list) -> dict:
    import difflib

    hints = []
    for name in unknown:
        close = difflib.get_close_matches(str(name), known, n=1)
        hints.append(f"{name!r}: did you mean {close[0]!r}?" if close else f"{name!r}")
    return Refused("unknown-argument", f"this tool takes no argument {', '.join(hints)}",
                   f"its arguments: {', '.join(known)}", str(unknown[0])).answer()


def _call_seconds(value: Any, limits: CallLimits) -> float:
    if value is None:
        return limits.seconds
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise Refused("bad-input", f"{CALL_TIMEOUT} must be a number of seconds, got "
                      f"{value!r}", "e.g. 30", CALL_TIMEOUT) from None
    if not 0 < seconds <= limits.seconds:
        raise Refused("timeout-out-of-range", f"{CALL_TIMEOUT} {seconds:g} s is outside (0, "
                      f"{limits.seconds:g}]", f"ask for {limits.seconds:g} s at most (the "
                      "server's --call-timeout)", CALL_TIMEOUT)
    return seconds


def _add_resource(server, uri: str, text: str) -> None:
    def read() -> str:
        return text

    server.resource(uri, name=uri.rsplit("/", 2)[-2] + "/" + uri.rsplit("/", 1)[-1],
                    mime_type="text/x-pddl")(read)


def serve(http: bool = False, host: str = "127.0.0.1", port: Optional[int] = None,
          limits: Optional[CallLimits] = None, llms: Sequence[str] = (),
          token: Optional[str] = None) -> int:
    """Run the server until the client goes (stdio) or Ctrl-C (HTTP). Over HTTP every request
    must carry ``Authorization: Bearer TOKEN``: ``token`` (or ``PDDLKIT_MCP_TOKEN``), else one
    made now and printed on stderr, the only place it appears."""
    import os
    import secrets

    server = build_server(limits=limits, llms=llms)
    if not http:
        server.run("stdio")
        return 0
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"pddlkit mcp: listening on {host}, not only this machine", file=sys.stderr)
    port = port or 8765
    token = token or os.environ.get(TOKEN_VARIABLE) or secrets.token_urlsafe(32)
    print(f"pddlkit mcp: streamable HTTP at http://{host}:{port}/mcp\n"
          f"pddlkit mcp: every request needs the header: Authorization: Bearer {token}",
          file=sys.stderr, flush=True)
    import uvicorn

    app = BearerToken(server.streamable_http_app(host=host), token)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
    return 0


#: the environment variable that gives ``pddlkit mcp --http`` its token
TOKEN_VARIABLE = "PDDLKIT_MCP_TOKEN"


class BearerToken:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401
    before it reaches the MCP app (compared in constant time, so its timing tells nothing of
    the token). Why: any local user, or a web page through DNS rebinding, can reach a loopback
    port; only the one who started the server has the token."""

    def __init__(self, app, token: str) -> None:
        if len(token) < 16:
            raise ValueError("the MCP token must be at least 16 characters")
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        import hmac

        if scope.get("type") == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = (b'{"error": "missing or wrong token", "hint": "send the header '
                        b'Authorization: Bearer TOKEN, with the token pddlkit mcp printed at '
                        b'start (or PDDLKIT_MCP_TOKEN)"}')
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode()),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
