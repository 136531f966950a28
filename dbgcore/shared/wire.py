"""The daemon's wire protocol: one JSON object per line over a Unix socket.

A client connects, sends one request ``{"op": str, "args": {...}, "timeout": float}``
(and ``"by": str`` when it comes from a front end other than the CLI or
MCP: a DAP client of `dbg dap`, recorded with the command) and reads one
response: ``{"ok": true, "result": {...}, "via": {...}}`` or
``{"ok": false, "error": {"kind", "message", "hint"[, "traceback"]}}``. Errors
travel as values, never as pickled exceptions.

One request is answered differently: ``{"op": "argv", "args": {"words",
"json", "cwd", "encoding"}}`` comes from the fast-path client
(:mod:`dbgcore.entry`), which imports no JSON reader. The daemon reads the
words with the op table and answers with a line ``CODE STREAM`` (the exit
code; 1 for stdout, 2 for stderr) followed by the bytes to print, or with the
line ``fallback`` when the click CLI must read the command line.
"""

from __future__ import annotations

import json
import socket

from dbgcore.shared.errors import BackendError
from dbgcore.shared.jsontypes import JsonObject

MAX_MESSAGE = 64 << 20


def encode_message(message: JsonObject) -> bytes:
    return json.dumps(message, default=str, ensure_ascii=False).encode("utf-8") + b"\n"


def send_message(sock: socket.socket, message: JsonObject) -> None:
    sock.sendall(encode_message(message))


def recv_message(sock: socket.socket) -> JsonObject | None:
    """Read one line-delimited JSON object; None if the peer closed first."""
    buf = bytearray()
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            if buf:
                raise BackendError("the dbg daemon closed the connection mid-message")
            return None
        buf += chunk
        end = buf.find(b"\n")
        if end >= 0:
            line = bytes(buf[:end])
            break
        if len(buf) > MAX_MESSAGE:
            raise BackendError("message from the dbg daemon is too large")
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BackendError(f"garbled message on the dbg socket: {exc}") from exc
    if not isinstance(message, dict):
        raise BackendError("garbled message on the dbg socket: not an object")
    return message
