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

A pipe (or a socket) is read in the event loop when it has bytes, and an
answer the pipe has room for is written from it too: a request sent after
the answer to the one before costs no worker thread's round trip. A file or
a terminal, which the loop cannot wait on, and an answer that might not fit
(a client that reads late) go through a worker thread.

A plain ``tools/call`` (a name, arguments or none, at most a progress token
in ``_meta``) on an initialized connection is answered here, not by the SDK:
its request handling (the dispatcher, the runner, the middleware, the
context, the models) cost ~0.5 ms of every call, more than the daemon's op
it carries takes for a `print`. The answer is what the SDK would write, byte
for byte (the server's ``call`` makes it), calls run side by side as the
SDK's do, and a call its client cancels is not answered, as the SDK does.
Anything else about a tool call (a task, other ``_meta``, params the SDK
would refuse) goes to the SDK.
"""

from __future__ import annotations

import json
import os
import select
import stat
from collections.abc import Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, BinaryIO

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError

from dbgcore.shared.jsontypes import Json

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


class HugeNumber(str):
    """A JSON integer too long for Python's int() (past 4300 digits), kept
    as its digits: the line is JSON all the same, and the argument's check
    answers that the number is too large (dbgcore.shared.bounds); as an id it is
    no valid one."""


def _json_int(digits: str) -> int | str:
    return HugeNumber(digits) if len(digits) > 4000 else int(digits)


def _valid_id(value: object) -> bool:
    # MCP: a string or an integer, never null; JSON-RPC advises against fractions.
    return (isinstance(value, str) and not isinstance(value, HugeNumber)) or (
        isinstance(value, int) and not isinstance(value, bool))


def triage(line: bytes) -> tuple[types.JSONRPCMessage | None, types.JSONRPCError | None]:
    """One line of input: (the message to hand the SDK, None), (None, the
    error to answer it with), or (None, None) for a line that gets neither
    (a blank line, a malformed notification or response)."""
    if not line.strip():
        return None, None
    try:
        data: Json = json.loads(line, parse_int=_json_int)
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


#: Answers a plain tool call: (name, arguments, the protocol version the
#: handshake agreed) -> the result as the SDK would write it.
ToolCall = Callable[[str, dict[str, Any] | None, str], dict[str, Any]]


def plain_call(message: types.JSONRPCRequest) -> tuple[str, dict[str, Any] | None] | None:
    """A ``tools/call`` this transport answers itself: (its tool name, its
    arguments); None for any other request, or one with more to it than a
    name, arguments and a progress token (the SDK's to answer)."""
    if message.method != "tools/call" or not isinstance(message.params, dict):
        return None
    params = message.params
    name, arguments, meta = params.get("name"), params.get("arguments"), params.get("_meta")
    if not isinstance(name, str) or not set(params) <= {"name", "arguments", "_meta"}:
        return None
    if arguments is not None and not isinstance(arguments, dict):
        return None
    if meta is not None and not (isinstance(meta, dict) and set(meta) <= {"progressToken"}):
        return None
    return name, arguments


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


class _Lines:
    """The wire's input, a line at a time."""

    def __init__(self, wire: BinaryIO) -> None:
        self.wire = wire
        self.fd = wire.fileno()
        mode = os.fstat(self.fd).st_mode
        #: The loop can wait on it (epoll takes no regular file).
        self.pollable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        self._buffer = bytearray()
        self._eof = False
        self._poll = select.poll()
        if self.pollable:
            self._poll.register(self.fd, select.POLLIN)

    async def readline(self, limit: int) -> bytes:
        """At most ``limit`` bytes: a line with its newline, or the head of a
        longer one, or what is left at the end; b"" once it is all read."""
        if not self.pollable:
            return await anyio.to_thread.run_sync(self.wire.readline, limit,
                                                  abandon_on_cancel=True)
        waited = False
        while (line := self._take(limit)) is None:
            if not self._poll.poll(0):
                waited = True
                await anyio.wait_readable(self.fd)
            # This process alone reads it, and it is readable: no wait.
            chunk = os.read(self.fd, 65536)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True
        if not waited:
            # Sent before the answer to the line above it: looked at after a
            # round trip through a worker thread, as every line was, which
            # lets the server answer the line above first (a bad line's
            # answer comes after the answers above it).
            await anyio.to_thread.run_sync(_nothing)
        return line

    def _take(self, limit: int) -> bytes | None:
        end = self._buffer.find(b"\n", 0, limit)
        if end < 0 and len(self._buffer) < limit and not self._eof:
            return None
        size = end + 1 if end >= 0 else min(limit, len(self._buffer))
        line = bytes(self._buffer[:size])
        del self._buffer[:size]
        return line


def _nothing() -> None:
    pass


class _Out:
    """The wire's output."""

    def __init__(self, wire: BinaryIO) -> None:
        self.wire = wire
        self.fd = wire.fileno()
        self.capacity = 0
        if stat.S_ISFIFO(os.fstat(self.fd).st_mode):
            try:
                import fcntl

                self.capacity = fcntl.fcntl(self.fd, fcntl.F_GETPIPE_SZ)
            except (ImportError, AttributeError, OSError):
                pass  # not Linux: every answer through a thread

    def fits(self, size: int) -> bool:
        """Whether the pipe has room for ``size`` bytes now, so that writing
        them does not wait for the client to read. Linux keeps a pipe's
        bytes in pages, the first and the last partly used: four spare pages
        cover that."""
        if not self.capacity:
            return False
        try:
            import fcntl
            import struct
            import termios

            unread: int = struct.unpack("i", fcntl.ioctl(self.fd, termios.FIONREAD, b"\0" * 4))[0]
        except (ImportError, OSError):
            return False
        return size + unread + 4 * os.sysconf("SC_PAGESIZE") <= self.capacity

    async def write(self, data: bytes) -> None:
        if self.fits(len(data)):
            _write_line(self.wire, data)
        else:
            await anyio.to_thread.run_sync(_write_line, self.wire, data)


@asynccontextmanager
async def checked_stdio(call: ToolCall | None = None) -> AsyncIterator[tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage]]]:
    """The (read, write) streams for ``Server.run`` over this process's
    stdin and stdout, every line checked first (see the module's doc);
    with ``call``, plain tool calls are answered by it, on a worker thread."""
    wire_in: BinaryIO = os.fdopen(_claim(0, os.open(os.devnull, os.O_RDONLY)), "rb")
    wire_out: BinaryIO = os.fdopen(_claim(1, os.dup(2)), "wb")
    to_server, server_in = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_out, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    own_out = server_out.clone()
    pending = _Pending()
    lines, out = _Lines(wire_in), _Out(wire_out)
    # The handshake as the SDK saw it: tool calls are answered here only
    # once it answered `initialize` and the client said it is initialized.
    handshake: dict[str, Any] = {"id": None, "version": None, "initialized": False}
    calls: set[str | int] = set()  # tool calls answered here, in flight
    cancelled: set[str | int] = set()

    async def answer_plain(ident: str | int, name: str, arguments: dict[str, Any] | None,
                           sender: MemoryObjectSendStream[SessionMessage]) -> None:
        assert call is not None
        async with sender:
            reply: types.JSONRPCMessage
            try:
                result = await anyio.to_thread.run_sync(call, name, arguments,
                                                        handshake["version"])
                reply = types.JSONRPCResponse(jsonrpc="2.0", id=ident, result=result)
            except Exception as exc:  # a bug of dbg's: an error, as the SDK answers one
                reply = _error(ident, types.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
            calls.discard(ident)
            if ident in cancelled:
                cancelled.discard(ident)
                return
            await sender.send(SessionMessage(reply))

    async def read() -> None:
        async with to_server, own_out:
            while True:
                line = await lines.readline(MAX_LINE + 1)
                if not line:
                    break
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    while line and not line.endswith(b"\n"):  # skip the rest of it
                        line = await lines.readline(MAX_LINE)
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
                    # Only on a handshake-era connection: a 2026 one's results
                    # carry more (the server's stamp), the SDK's to add.
                    plain = plain_call(message) if call is not None and \
                        handshake["version"] in HANDSHAKE_PROTOCOL_VERSIONS and \
                        handshake["initialized"] else None
                    if plain is not None and message.id not in calls:
                        pending.add(message.id)
                        calls.add(message.id)
                        group.start_soon(answer_plain, message.id, *plain, own_out.clone())
                        continue
                    if message.method == "initialize":
                        handshake["id"] = message.id
                    pending.add(message.id)
                elif isinstance(message, types.JSONRPCNotification) \
                        and message.method == "notifications/cancelled":
                    # A cancelled request may go unanswered (MCP says so).
                    ident = (message.params or {}).get("requestId")
                    if isinstance(ident, (str, int)) and ident in calls:
                        cancelled.add(ident)
                    pending.done(ident)
                elif isinstance(message, types.JSONRPCNotification) \
                        and message.method == "notifications/initialized":
                    handshake["initialized"] = True
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
                    if isinstance(message, types.JSONRPCResponse) \
                            and message.id == handshake["id"]:
                        handshake["version"] = message.result.get("protocolVersion")
                if broken:
                    continue  # the client is gone: keep draining so no one blocks
                data = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                try:
                    await out.write(data.encode("utf-8"))
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
