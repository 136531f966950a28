"""`dbg mcp`: dbg's ops as Model Context Protocol tools, over stdio.

Built on the official ``mcp`` SDK's low-level server, because the tools are
made at run time from the op table (:mod:`dbgcore.ops`): each op is a tool
``dbg_<op>`` whose input schema comes from the op's typed arguments, and whose
call goes through :func:`dbgcore.frontend.call_op` like a CLI command. A
result carries the JSON object ``--json`` prints (as structured content) and
the text the CLI prints; an error is a tool error with the same kind, message
and hint. Sessions are the same daemons the CLI uses, so an agent and a person
can share one. The server starts no debugger itself: a session's crash is an
answer, never the server's end.

Resources: ``dbg://session/NAME/hits`` (the recorded stops) and
``dbg://session/NAME/output`` (the program's output) for each live session.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from dbgcore import __version__
from dbgcore.errors import DbgError, UsageError
from dbgcore.frontend import Answer, call_op
from dbgcore.timeouts import DEFAULT_TIMEOUT, MAX_TIMEOUT, timeout_problem

if TYPE_CHECKING:
    from dbgcore.opspec import Arg, Op, OpTable
    from dbgcore.registry import BackendRegistry, Front

INSTRUCTIONS = (
    "dbg drives real debuggers (pdb, debugpy, gdb, lldb, delve, jdb) through one vocabulary. "
    "Start with dbg_start (program, breaks, run=true), read the stop snapshot, then "
    "dbg_print / dbg_next / dbg_step / dbg_finish / dbg_continue. A failing test: dbg_test "
    "stops on its failing line. A program reading stdin: dbg_input. A call that waits for "
    "the program can be interrupted by dbg_pause meanwhile. Every call takes `session` "
    "(default \"default\"); the same sessions are reachable with the `dbg` CLI. "
    "Locations are FILE:LINE (a file name is enough), LINE, or FUNCTION."
)


def tool_name(op: Op) -> str:
    return "dbg_" + op.name.replace("-", "_")


def _schema_of(arg: Arg) -> dict[str, Any]:
    kinds = {"int": "integer", "float": "number", "bool": "boolean"}
    one: dict[str, Any] = {"type": kinds.get(arg.kind, "string")}
    if arg.minimum is not None:
        one["minimum"] = arg.minimum
    if arg.maximum is not None:
        one["maximum"] = arg.maximum
    if arg.multiple:
        one = {"type": "array", "items": one}
    one["description"] = arg.help
    if arg.kind == "location":
        one["description"] += " (FILE:LINE, where a file name or path suffix is enough; LINE; " \
            "FUNCTION; MODULE!FUNCTION)"
    if arg.default not in (None, False) and not arg.multiple:
        one["default"] = arg.default
    return one


def input_schema(op: Op) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    if op.needs != "none" or op.send != "local":
        properties["session"] = {"type": "string", "default": "default",
                                 "description": "The session's name (the CLI's -s)."}
    if op.send != "local":
        properties["timeout"] = {"type": "number", "exclusiveMinimum": 0,
                                 "maximum": MAX_TIMEOUT,
                                 "default": DEFAULT_TIMEOUT,
                                 "description": "Seconds to wait for the target to stop or "
                                                "the debugger to answer."}
    for arg in op.args:
        properties[arg.name] = _schema_of(arg)
    required = [a.name for a in op.args if a.required]
    schema: dict[str, Any] = {"type": "object", "properties": properties,
                              "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def description(op: Op, support: dict[str, dict[str, str]]) -> str:
    """The op's summary, and where a backend lacks it (as `dbg caps` says)."""
    text = op.summary
    if op.stops:
        text += " Blocks until the target stops; answers with a stop snapshot."
    if op.needs == "stopped":
        text += " Needs a stopped target."
    missing = sorted(b for b, ops in support.items() if ops.get(op.name) == "none")
    fallback = sorted(b for b, ops in support.items() if ops.get(op.name) == "fallback")
    if missing:
        text += f" Not on: {', '.join(missing)} (use dbg_raw there)."
    if fallback:
        text += f" Done by dbg on top of the debugger on: {', '.join(fallback)}."
    return text


def backend_support(registry: BackendRegistry) -> dict[str, dict[str, str]]:
    """Each configured backend's op support as its code declares it (no
    debugger is started for this)."""
    out: dict[str, dict[str, str]] = {}
    try:
        config = registry.config()
    except DbgError:
        return out
    for spec in config.backends.values():
        cls = registry.class_of(spec)
        if cls is not None:
            out[spec.name] = dict(cls.declared_support())
    return out


def agent_ops(table: OpTable) -> list[Op]:
    return [op for op in table if op.agent]


def call_tool(front: Front, name: str, arguments: dict[str, Any] | None,
              cwd: str | None = None) -> Answer:
    """A tool call, answered like the CLI would (never raises a DbgError)."""
    ops = {tool_name(op): op for op in agent_ops(front.table)}
    op = ops.get(name)
    values = dict(arguments or {})
    session = values.pop("session", None) or "default"
    timeout = values.pop("timeout", None)
    if op is None:
        return Answer(name, str(session), None,
                      error=UsageError(f"no tool {name!r}", "list the tools again"))
    try:
        from dbgcore.paths import check_session_name

        if not isinstance(session, str):
            raise UsageError("session must be a name")
        check_session_name(session)
        if timeout is None:
            timeout = DEFAULT_TIMEOUT
        problem = timeout_problem(timeout, "timeout")
        if problem is not None:
            raise UsageError(problem)
    except DbgError as exc:
        return Answer(op.name, str(session), None, error=exc)
    return call_op(op, values, session, float(timeout), front, cwd, start=front.start)


def read_resource(uri: str) -> str:
    """The text of ``dbg://session/NAME/hits`` or ``dbg://session/NAME/output``."""
    prefix = "dbg://session/"
    name, _, what = uri[len(prefix):].partition("/") if uri.startswith(prefix) else ("", "", "")
    if not name or what not in ("hits", "output"):
        raise UsageError(f"no resource {uri!r}",
                         "dbg://session/NAME/hits or dbg://session/NAME/output")
    from dbgcore.paths import check_session_name

    check_session_name(name)
    if what == "hits":
        from dbgcore.cli.prepare import hits

        payload, _ = hits({"location": None, "all": False, "limit": 1000}, name, 5.0, None)
        return json.dumps(payload, ensure_ascii=False, default=str)
    from dbgcore import client

    response = client.call(name, "output", {}, 5.0)
    if not response.get("ok"):
        raise DbgError.from_wire(response.get("error") or {})
    return json.dumps(response.get("result") or {}, ensure_ascii=False, default=str)


def live_sessions() -> list[str]:
    from dbgcore import client
    from dbgcore.status import list_session_names

    names = []
    for name in list_session_names():
        try:
            if client.live_status(name) is not None:
                names.append(name)
        except DbgError:
            continue
    return names


def serve(values: dict[str, Any], session: str, timeout: float, front: Front) -> None:
    """Serve MCP on stdin/stdout until the client closes it."""
    import anyio

    anyio.run(_serve, front)


async def _serve(front: Front) -> None:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from dbgcore.mcp_stdio import checked_stdio

    support = backend_support(front.backends)
    tools = [types.Tool(name=tool_name(op), description=description(op, support),
                        input_schema=input_schema(op)) for op in agent_ops(front.table)]
    cwd = os.getcwd()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = await anyio.to_thread.run_sync(call_tool, front, params.name,
                                                params.arguments, cwd)
        return types.CallToolResult(content=[types.TextContent(text=answer.text())],
                                    structured_content=answer.to_json(),
                                    is_error=not answer.ok)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        names = await anyio.to_thread.run_sync(live_sessions)
        found = []
        for name in names:
            found += [
                types.Resource(uri=f"dbg://session/{name}/hits", name=f"{name} hits",
                               description=f"Stops recorded in session {name}",
                               mime_type="application/json"),
                types.Resource(uri=f"dbg://session/{name}/output", name=f"{name} output",
                               description=f"What the program of session {name} printed",
                               mime_type="application/json"),
            ]
        return types.ListResourcesResult(resources=found)

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template="dbg://session/{name}/hits", name="hits",
                                   description="A session's recorded stops",
                                   mime_type="application/json"),
            types.ResourceTemplate(uri_template="dbg://session/{name}/output", name="output",
                                   description="A session's program output",
                                   mime_type="application/json"),
        ])

    async def read(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = await anyio.to_thread.run_sync(read_resource, uri)
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, text=text, mime_type="application/json")])

    server: Any = Server("dbg", version=__version__, instructions=INSTRUCTIONS,
                         on_list_tools=list_tools, on_call_tool=on_call,
                         on_list_resources=list_resources,
                         on_list_resource_templates=list_templates,
                         on_read_resource=read)
    async with checked_stdio() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
