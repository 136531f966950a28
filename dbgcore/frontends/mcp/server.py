"""`dbg mcp`: dbg's ops as Model Context Protocol tools, over stdio (or, with
``--http PORT``, the SDK's streamable HTTP on loopback: :mod:`.http`).

Built on the official ``mcp`` SDK's low-level server, because the tools are
made at run time from the op table (:mod:`dbgcore.ops.table`): each op is a tool
``dbg_<op>`` whose input schema comes from the op's typed arguments, and whose
call goes through :func:`dbgcore.ops.call.call_op` like a CLI command. A
result carries the JSON object ``--json`` prints (as structured content) and
the text the CLI prints; an error is a tool error with the same kind, message
and hint. Sessions are the same daemons the CLI uses, so an agent and a person
can share one. The server starts no debugger itself: a session's crash is an
answer, never the server's end.

The listing is kept small (under 10 KB: an agent pays for it in context on
every turn): the ops an agent uses in most sessions are tools of their own
(declared ``own_tool`` in the op table), with schemas whose descriptions are one clause each; every
other op an agent may call is reached through one tool, ``dbg_more``, which
takes the op's name (an enum of them) and its arguments, and with
``describe`` answers with that op's full schema instead of running it.

Resources: ``dbg://session/NAME/hits`` (the recorded stops) and
``dbg://session/NAME/output`` (the program's output) for each live session.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from typing import TYPE_CHECKING, Any

from dbgcore import __version__
from dbgcore.frontends.mcp.hints import described_in_mcp_words, in_mcp_words, told_in_mcp_words
from dbgcore.frontends.mcp.tools import MORE, agent_ops, split_ops, tool_name
from dbgcore.ops.call import Answer, call_op
from dbgcore.shared.errors import DbgError, UsageError
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT, MAX_TIMEOUT, check_timeout

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Arg, Op, OpTable

INSTRUCTIONS = (
    "dbg drives real debuggers (pdb, debugpy, gdb, lldb, delve, jdb, rdbg, phpdbg, ghci, "
    "ocamldebug...) through one vocabulary. "
    "Start with dbg_start (program, breaks, run=true), read the stop snapshot, then "
    "dbg_print / dbg_next / dbg_step / dbg_finish / dbg_continue. A failing test: dbg_test "
    "stops on its failing line; after a fix, dbg_more with op restart runs it again in the "
    "same session. A program reading stdin: dbg_input. A call that waits for "
    "the program can be interrupted by dbg_pause meanwhile. An op that runs the program "
    "blocks until it stops and answers with the stop snapshot. Every call takes `session` "
    "(default \"default\"; the CLI's -s) and most take `timeout` (seconds to wait for the "
    "target or the debugger, default 30); the same sessions are reachable with the `dbg` CLI. "
    "An op that stops takes `show` (expressions also evaluated at the stop), and continue, "
    "step, next and finish take `back` (run backwards, where the backend records the run: "
    "ocamldebug). "
    "Locations are FILE:LINE (a file name or path suffix is enough), FILE:\"TEXT\" (the "
    "line of code holding TEXT, which a restart after an edit follows; `near` LINE picks "
    "among several), LINE, FUNCTION or MODULE!FUNCTION. An op a backend lacks answers "
    "with a hint: dbg_raw sends the debugger's own command. Rarer ops (frame moves, DAP "
    "scopes/vars, memory, disassembly, modules, doctor, report...) are behind dbg_more: "
    "pass op and args; describe=true shows "
    "an op's arguments."
)

#: Arguments that many tools take, described once in INSTRUCTIONS and in
#: full by dbg_more's ``describe``, not in each tool's listed schema.
SAID_ONCE = frozenset({"show", "back", "near"})

#: What the listing may weigh, in bytes of JSON (tests/test_mcp_budget.py).
LISTING_BUDGET = 10_000


def brief(text: str, clause: bool = False) -> str:
    """``text`` without its parenthesized asides (and with ``clause``, only
    its first clause, up to a `;` and a blank): a schema's descriptions are read on every
    turn, the rest is in `dbg OP --help` and dbg_more's ``describe``."""
    out = re.sub(r"\s*\([^()]*\)", "", text)
    out = re.sub(r"\s+([.,;:])", r"\1", out).strip()
    # A clause ends at a `;` and a blank, not at one quoted in backticks
    # (print's "separated by `;`", which was cut to "by `.").
    if clause and re.search(r";\s", out):
        out = re.split(r";\s", out)[0].rstrip(".,:") + "."
    return out


def _schema_of(arg: Arg, full: bool = True) -> dict[str, Any]:
    kinds = {"int": "integer", "float": "number", "bool": "boolean"}
    one: dict[str, Any] = {"type": kinds.get(arg.kind, "string")}
    if arg.minimum is not None:
        one["minimum"] = arg.minimum
    if arg.maximum is not None:
        one["maximum"] = arg.maximum
    if arg.multiple:
        one = {"type": "array", "items": one}
    if full or arg.name not in SAID_ONCE:
        one["description"] = arg.help if full else brief(arg.help, clause=True)
    if full and arg.kind == "location":
        one["description"] += " (FILE:LINE, where a file name or path suffix is enough; " \
            'FILE:"TEXT", the line holding TEXT; LINE; FUNCTION; MODULE!FUNCTION)'
    if arg.default not in (None, False) and not arg.multiple:
        one["default"] = arg.default
    return one


def _common(op: Op, full: bool) -> dict[str, Any]:
    """``session`` and ``timeout``: described once in the server's
    instructions, and in full only where an op is described on request."""
    properties: dict[str, Any] = {}
    if op.needs != "none" or op.send != "local":
        properties["session"] = {"type": "string"}
        if full:
            properties["session"].update(default="default",
                                         description="The session's name (the CLI's -s).")
    if op.send != "local":
        properties["timeout"] = _timeout(full)
    return properties


def _timeout(full: bool) -> dict[str, Any]:
    # The listing leaves the upper bound to the server's own check (a usage
    # error naming it): a few bytes on every tool.
    one: dict[str, Any] = {"type": "number", "exclusiveMinimum": 0}
    if full:
        one.update(maximum=MAX_TIMEOUT, default=DEFAULT_TIMEOUT,
                   description="Seconds to wait for the target to stop or the debugger to "
                   "answer.")
    return one


def input_schema(op: Op, full: bool = False) -> dict[str, Any]:
    """The op's arguments as a strict JSON schema; ``full``: with every
    description whole (dbg_more's ``describe``), else briefly (the listing)."""
    properties = _common(op, full)
    for arg in op.args:
        properties[arg.name] = _schema_of(arg, full)
    required = [a.name for a in op.args if a.required]
    schema: dict[str, Any] = {"type": "object", "properties": properties,
                              "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def description(op: Op, support: dict[str, dict[str, str]], full: bool = False) -> str:
    """The op's summary, and where a backend lacks it (as `dbg caps` says)."""
    text = op.summary if full else brief(op.summary)
    if full and op.stops:
        text += " Blocks until the target stops; answers with a stop snapshot."
    if full and op.needs == "stopped":
        text += " Needs a stopped target."
    missing = sorted(b for b, ops in support.items() if ops.get(op.name) == "none")
    fallback = sorted(b for b, ops in support.items() if ops.get(op.name) == "fallback")
    if missing:
        text += f" Not on: {', '.join(missing)}" + (" (use dbg_raw there)." if full else ".")
    if full and fallback:
        text += f" Done by dbg on top of the debugger on: {', '.join(fallback)}."
    return text


def more_schema(ops: list[Op]) -> dict[str, Any]:
    names = sorted(op.name for op in ops)
    return {"type": "object", "properties": {
        "op": {"type": "string", "enum": names, "description": "The op (the CLI's `dbg OP`)."},
        "args": {"type": "object", "description": "Its arguments, by name."},
        "describe": {"type": "boolean",
                     "description": "Answer with the op's arguments instead of running it."},
        "session": {"type": "string"},
        "timeout": _timeout(False),
    }, "required": ["op"], "additionalProperties": False}


MORE_DESCRIPTION = ("Run a rarer op: op, and args as its CLI command takes them; "
                    "describe=true shows an op's arguments.")


def known_support(front: Front) -> dict[str, dict[str, str]]:
    """:meth:`Front.backend_support`, from the fork server's helper when there
    is one: it has every backend's class loaded, which this process need not."""
    from dbgcore.start import forkserver

    helper = forkserver.current()
    support = helper.support() if helper is not None else None
    return support if support is not None else front.backend_support()


def _load_backend_classes(front: Front) -> None:
    """Every backend's class, loaded (a plugin that fails to load is
    refused by the start that needs it, as it would be without this)."""
    with contextlib.suppress(Exception):
        front.backends.classes()


def listing(table: OpTable, support: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """The tools, as tools/list gives them: name, description, input schema."""
    own, more = split_ops(table)
    tools = [{"name": tool_name(op), "description": in_mcp_words(description(op, support), table),
              "inputSchema": described_in_mcp_words(input_schema(op), table)} for op in own]
    if more:
        tools.append({"name": MORE, "description": MORE_DESCRIPTION,
                      "inputSchema": more_schema(more)})
    return tools


def _describe(op: Op, table: OpTable, support: dict[str, dict[str, str]],
              session: str) -> Answer:
    payload = {"describes": op.name,
               "description": in_mcp_words(description(op, support, full=True), table),
               "input_schema": described_in_mcp_words(input_schema(op, full=True), table)}
    return Answer(MORE, session, None, payload, render=_describe_text)


def _describe_text(payload: dict[str, Any]) -> str:
    schema = payload["input_schema"]
    required = set(schema.get("required", ()))
    lines = [f"{payload['describes']}: {payload['description']}"]
    for name, one in schema["properties"].items():
        kind = one["type"] if one["type"] != "array" else f"list of {one['items']['type']}"
        mark = ", required" if name in required else ""
        lines.append(f"  {name} ({kind}{mark}): {one.get('description', '')}".rstrip())
    return "\n".join(lines)


def _unwrap_more(table: OpTable, values: dict[str, Any]) -> tuple[Op | None, dict[str, Any],
                                                                  bool, DbgError | None]:
    """dbg_more's op, the op's own values (session and timeout kept at the
    top), and whether only its description is asked for."""
    _, more = split_ops(table)
    by_name = {op.name: op for op in more}
    wanted = values.pop("op", None)
    inner = values.pop("args", None)
    describe = values.pop("describe", False)
    if values:
        extra = ", ".join(sorted(values))
        return None, {}, False, UsageError(f"dbg_more takes op, args, describe, session and "
                                           f"timeout, not {extra}")
    op = by_name.get(wanted) if isinstance(wanted, str) else None
    if op is None:
        return None, {}, False, UsageError(f"dbg_more has no op {wanted!r}",
                                           "one of: " + ", ".join(sorted(by_name)))
    if inner is None:
        inner = {}
    if not isinstance(inner, dict):
        return None, {}, False, UsageError("dbg_more's args must be an object of the op's "
                                           "arguments", f"dbg_more op={op.name} describe=true")
    if not isinstance(describe, bool):
        return None, {}, False, UsageError("dbg_more's describe must be true or false")
    if "session" in inner or "timeout" in inner:
        return None, {}, False, UsageError("session and timeout go beside op, not in args")
    return op, dict(inner), describe, None


def call_tool(front: Front, name: str, arguments: dict[str, Any] | None,
              cwd: str | None = None) -> Answer:
    """A tool call, answered like the CLI would (never raises a DbgError)."""
    # An op behind dbg_more still answers to its own tool name: a client
    # that was told dbg_up once keeps working.
    ops = {tool_name(op): op for op in agent_ops(front.table)}
    op = ops.get(name)
    values = dict(arguments or {})
    session = values.pop("session", None) or "default"
    timeout = values.pop("timeout", None)
    describe = False
    if name == MORE:
        op, values, describe, refused = _unwrap_more(front.table, values)
        if refused is not None:
            return Answer(MORE, str(session), None, error=refused)
    if op is None:
        return Answer(name, str(session), None,
                      error=UsageError(f"no tool {name!r}", "list the tools again"))
    try:
        from dbgcore.shared.paths import check_session_name

        if not isinstance(session, str):
            raise UsageError("session must be a name")
        check_session_name(session)
        timeout = check_timeout(DEFAULT_TIMEOUT if timeout is None else timeout, "timeout")
    except DbgError as exc:
        return Answer(op.name, str(session), None, error=exc)
    if describe:
        return _describe(op, front.table, known_support(front), session)
    return call_op(op, values, session, timeout, front, cwd, start=front.start)


def read_resource(uri: str) -> str:
    """The text of ``dbg://session/NAME/hits`` or ``dbg://session/NAME/output``."""
    prefix = "dbg://session/"
    name, _, what = uri[len(prefix):].partition("/") if uri.startswith(prefix) else ("", "", "")
    if not name or what not in ("hits", "output"):
        raise UsageError(f"no resource {uri!r}",
                         "dbg://session/NAME/hits or dbg://session/NAME/output")
    from dbgcore.shared.paths import check_session_name

    check_session_name(name)
    if what == "hits":
        from dbgcore.ops.history import run_hits as hits

        payload, _ = hits({"location": None, "all": False, "limit": 1000}, name, 5.0, None)
        return json.dumps(payload, ensure_ascii=False, default=str)
    from dbgcore.shared import client

    response = client.call(name, "output", {}, 5.0)
    if not response.get("ok"):
        raise DbgError.from_wire(response.get("error") or {})
    return json.dumps(response.get("result") or {}, ensure_ascii=False, default=str)


def live_sessions() -> list[str]:
    from dbgcore.shared import client
    from dbgcore.shared.status import list_session_names

    names = []
    for name in list_session_names():
        try:
            if client.live_status(name) is not None:
                names.append(name)
        except DbgError:
            continue
    return names


def serve(values: dict[str, Any], session: str, timeout: float, front: Front) -> None:
    """Serve MCP on stdin/stdout until the client closes it (with ``http``
    in ``values``, on 127.0.0.1:PORT until interrupted)."""
    import anyio

    from dbgcore.start import forkserver

    # Started before the server's threads, and while the client still
    # initializes: each session's daemon is then forked off it, not a new
    # interpreter that imports dbg again.
    forkserver.use()
    # A start checks its program with its backend's class (a C source is
    # refused with how to build it), which this process has not loaded:
    # loaded beside the SDK's import and the helper's, not on the first
    # start (50-60 ms of imports there). A call waits for it to end, so no
    # two threads load plugins at once. (The modules both threads import, a
    # score of the standard library's, import no cycle among themselves:
    # Python's per-module import locks then only make one wait.) Started
    # after the SDK's import instead, it was still loading when a first
    # start came right after `initialize`: pdb's 38 -> 80 ms.
    warm = threading.Thread(target=_load_backend_classes, args=(front,), daemon=True,
                            name="dbg-load-backends")
    warm.start()
    try:
        anyio.run(_serve, front, warm, values.get("http"))
    finally:
        forkserver.stop()


async def _serve(front: Front, warm: threading.Thread, http: int | None) -> None:
    import anyio
    import mcp_types as types
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp_types.methods import serialize_server_result

    #: The SDK's request context; its lifespan state (unused) is its default's dict.
    Context = ServerRequestContext[dict[str, Any]]
    Page = types.PaginatedRequestParams | None

    from dbgcore.frontends.mcp.stdio import checked_stdio

    cwd = os.getcwd()
    # The listing names the backends that lack an op, which loads every
    # backend's class (0.1-0.2 s): the fork server's helper has them loaded,
    # and found the support while this process imported the SDK.
    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
             for t in listing(front.table, known_support(front))]

    async def list_tools(ctx: Context, params: Page) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    def result(answer: Answer) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text=answer.text())],
                                    structured_content=answer.to_json(),
                                    is_error=not answer.ok)

    def call(name: str, arguments: dict[str, Any] | None) -> Answer:
        warm.join()
        return told_in_mcp_words(call_tool(front, name, arguments, cwd), front.table)

    async def on_call(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = await anyio.to_thread.run_sync(call, params.name, params.arguments)
        return result(answer)

    def plain_call(name: str, arguments: dict[str, Any] | None, version: str) -> dict[str, Any]:
        """A plain tool call the transport answers without the SDK: the
        result as the SDK writes it (dumped, then shaped for the protocol
        version the handshake agreed)."""
        dumped = result(call(name, arguments)).model_dump(
            by_alias=True, mode="json", exclude_none=True)
        return serialize_server_result("tools/call", version, dumped)

    async def list_resources(ctx: Context, params: Page) -> types.ListResourcesResult:
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

    async def list_templates(ctx: Context, params: Page) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template="dbg://session/{name}/hits", name="hits",
                                   description="A session's recorded stops",
                                   mime_type="application/json"),
            types.ResourceTemplate(uri_template="dbg://session/{name}/output", name="output",
                                   description="A session's program output",
                                   mime_type="application/json"),
        ])

    async def read(ctx: Context,
                   params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = await anyio.to_thread.run_sync(read_resource, uri)
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, text=text, mime_type="application/json")])

    server: Server[dict[str, Any]] = Server("dbg", version=__version__, instructions=INSTRUCTIONS,
                         on_list_tools=list_tools, on_call_tool=on_call,
                         on_list_resources=list_resources,
                         on_list_resource_templates=list_templates,
                         on_read_resource=read)
    if http is not None:
        from dbgcore.frontends.mcp.http import serve_http

        await serve_http(server, http)
        return
    async with checked_stdio(plain_call) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
