"""The stdio transport of `dbg mcp`: one JSON-RPC message a line, each line
checked before the MCP SDK sees it.

The SDK's own stdio transport hands the server only what its models accept
and drops the rest without a word: a line that is not JSON, a ``jsonrpc``
other than "2.0", an id that is an object, ``params`` that are not an object.
JSON-RPC 2.0 wants every request answered, so this reader answers those
itself, with JSON-RPC's own codes: -32700 (parse error, id null), -32600
(invalid request; the id when it is a valid one, else null) and -32602
(invalid params). Unknown methods (-32601) and params a method does not take
(-32602) are the SDK's to answer. Notifications and responses are never
answered, as the spec says.

The SDK also ends its serving loop as soon as stdin closes, dropping a tool
call still in flight (a `dbg_continue` that waits for a stop). This reader
holds the server's input open after EOF until every request it forwarded has
its response on stdout, then closes it, so a client that writes its last
request and closes its end still gets the answer.
"""

from __future__ import annotations

import json
import os
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, BinaryIO

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from dbgcore.jsontypes import Json

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

#: The longest line read as a message (a tool call's arguments are small; a
#: line past this is answered as an invalid request and skipped).
MAX_LINE = 16 * 1024 * 1024

Answer = types.JSONRPCError


def _error(ident: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=ident,
                              error=types.ErrorData(code=code, message=message))


def _valid_id(value: object) -> bool:
    # MCP: a string or an integer, never null; JSON-RPC advises against fractions.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def triage(line: bytes) -> tuple[types.JSONRPCMessage | None, types.JSONRPCError | None]:
    """One line of input: (the message to hand the SDK, None), (None, the
    error to answer it with), or (None, None) for a line that gets neither
    (a blank line, a malformed notification or response)."""
    if not line.strip():
        return None, None
    try:
        data: Json = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None, _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
    if isinstance(data, list):
        # MCP (2025-06-18 on) sends one message a line; no batches.
        return None, _error(None, types.INVALID_REQUEST,
                            "Invalid Request: batches are not supported, send one message a line")
    if not isinstance(data, dict):
        return None, _error(None, types.INVALID_REQUEST, "Invalid Request: not a JSON object")
    has_id = "id" in data
    ident = data["id"] if has_id and _valid_id(data["id"]) else None
    is_reply = "method" not in data and ("result" in data or "error" in data)
    if is_reply:
        # A response to a request of ours: never answered, even when malformed.
        try:
            return types.jsonrpc_message_adapter.validate_python(data, by_name=False), None
        except ValidationError:
            return None, None
    if has_id and ident is None:
        return None, _error(None, types.INVALID_REQUEST,
                            "Invalid Request: the id must be a string or an integer")
    if data.get("jsonrpc") != "2.0":
        return None, _error(ident, types.INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
    method = data.get("method")
    if not isinstance(method, str):
        return None, _error(ident, types.INVALID_REQUEST,
                            "Invalid Request: the method must be a string")
    params = data.get("params")
    if params is not None and not isinstance(params, dict):
        if not has_id:
            return None, None  # a notification is never answered
        return None, _error(ident, types.INVALID_PARAMS,
                            "Invalid params: MCP's params are an object")
    try:
        message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError as exc:
        if not has_id:
            return None, None
        return None, _error(ident, types.INVALID_REQUEST,
                            f"Invalid Request: {exc.error_count()} fields do not fit")
    return message, None


def _claim(fd: int, stand_in: int) -> int:
    """A private copy of ``fd`` for the wire, with ``stand_in`` put in its
    place: the sessions' daemons and anything a handler prints must never
    read the client's requests or write into its answers."""
    wire = os.dup(fd)
    os.set_inheritable(wire, False)
    os.dup2(stand_in, fd)
    os.close(stand_in)
    return wire


class _Pending:
    """Ids of the requests handed to the server and not answered yet."""

    def __init__(self) -> None:
        self.ids: set[str | int] = set()
        self.changed = anyio.Event()

    def add(self, ident: str | int) -> None:
        self.ids.add(ident)

    def done(self, ident: object) -> None:
        if isinstance(ident, (str, int)) and ident in self.ids:
            self.ids.discard(ident)
            self.changed.set()
            self.changed = anyio.Event()

    async def drained(self) -> None:
        while self.ids:
            await self.changed.wait()


@asynccontextmanager
async def checked_stdio() -> AsyncIterator[tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage]]]:
    """The (read, write) streams for ``Server.run`` over this process's
    stdin and stdout, every line checked first (see the module's doc)."""
    wire_in: BinaryIO = os.fdopen(_claim(0, os.open(os.devnull, os.O_RDONLY)), "rb")
    wire_out: BinaryIO = os.fdopen(_claim(1, os.dup(2)), "wb")
    to_server, server_in = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_out, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    own_out = server_out.clone()
    pending = _Pending()

    async def read() -> None:
        async with to_server, own_out:
            while True:
                line = await anyio.to_thread.run_sync(wire_in.readline, MAX_LINE + 1,
                                                      abandon_on_cancel=True)
                if not line:
                    break
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    while line and not line.endswith(b"\n"):  # skip the rest of it
                        line = await anyio.to_thread.run_sync(wire_in.readline, MAX_LINE,
                                                              abandon_on_cancel=True)
                    await own_out.send(SessionMessage(_error(
                        None, types.INVALID_REQUEST,
                        f"Invalid Request: a line longer than {MAX_LINE} bytes")))
                    continue
                message, answer = triage(line)
                if answer is not None:
                    await own_out.send(SessionMessage(answer))
                    continue
                if message is None:
                    continue
                if isinstance(message, types.JSONRPCRequest):
                    pending.add(message.id)
                elif isinstance(message, types.JSONRPCNotification) \
                        and message.method == "notifications/cancelled":
                    # A cancelled request may go unanswered (MCP says so).
                    pending.done((message.params or {}).get("requestId"))
                await to_server.send(SessionMessage(message))
            # EOF: the server's input stays open until what it took is answered.
            await pending.drained()

    async def write() -> None:
        broken = False
        async with from_server:
            async for item in from_server:
                message = item.message
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                    pending.done(message.id)
                if broken:
                    continue  # the client is gone: keep draining so no one blocks
                data = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                try:
                    await anyio.to_thread.run_sync(_write_line, wire_out, data.encode("utf-8"))
                except (BrokenPipeError, ValueError, OSError):
                    broken = True

    reading = anyio.CancelScope()

    async def read_until_told() -> None:
        with reading:
            await read()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_until_told)
            group.start_soon(write)
            try:
                yield server_in, server_out
            finally:
                # The server is done (stdin's EOF, or its own end): stop reading,
                # and let the writer send what is still queued before leaving.
                reading.cancel()
                await server_out.aclose()
    finally:
        for stream in (wire_in, wire_out):
            try:
                stream.close()
            except OSError:
                pass


def _write_line(out: BinaryIO, data: bytes) -> None:
    out.write(data)
    out.flush()
