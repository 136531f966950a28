"""`dbg mcp --http PORT`: the same MCP server over the SDK's streamable HTTP
transport, for clients that connect to a server rather than start one.

It listens on loopback only (127.0.0.1), and every request must carry
``Authorization: Bearer TOKEN``: anything else on the machine could reach a
loopback port, and these tools run programs. The token is made here
(or taken from ``DBG_MCP_TOKEN``, so a client's settings can hold a fixed
one) and written to a file only the user can read, which is removed when the
server ends. The SDK's own auth layer is OAuth (an issuer, a token
verifier, metadata routes): a single shared secret is a gate in front of
its app, not a use of that layer. The SDK's DNS-rebinding check (the
``Host`` and ``Origin`` of a loopback server) stays on behind the gate.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbgcore.shared.errors import UsageError
from dbgcore.shared.paths import dbg_home, private_dir

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, MutableMapping

    from mcp.server.lowlevel import Server

    Scope = MutableMapping[str, Any]
    Message = MutableMapping[str, Any]
    Receive = Callable[[], Awaitable[Message]]
    Send = Callable[[Message], Awaitable[None]]
    ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Where a client finds the token when it did not choose one.
TOKEN_ENV = "DBG_MCP_TOKEN"

#: The path the SDK serves MCP at.
MCP_PATH = "/mcp"


class BearerGate:
    """An ASGI app that lets through only requests that carry the token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = b"Bearer " + token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers") or []:
                if name.lower() == b"authorization":
                    given = value
            # compare_digest: a wrong token costs the same time whatever its prefix.
            if not hmac.compare_digest(given, self.expected):
                await _refuse(send, "missing token" if not given else "wrong token")
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send, why: str) -> None:
    body = json.dumps({"error": f"unauthorized: {why}",
                       "hint": "send Authorization: Bearer TOKEN (dbg mcp --http printed "
                               "where the token is)"}).encode()
    await send({"type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="dbg"'),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def listen(port: int) -> socket.socket:
    """A loopback socket listening on ``port`` (0: one the kernel picks)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}",
                         "pick another port, or --http 0 for a free one") from None
    sock.listen(64)
    return sock


def token_file(port: int) -> Path:
    return private_dir(dbg_home() / "mcp") / f"http-{port}.token"


def write_token(path: Path, token: str) -> None:
    # Made 0600 before the secret is in it, not chmod-ed afterwards.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")


async def serve_http(server: Server[Any], port: int) -> None:
    """Serve ``server`` on 127.0.0.1:PORT until interrupted."""
    import uvicorn

    token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(32)
    sock = listen(port)
    port = int(sock.getsockname()[1])
    path = token_file(port)
    write_token(path, token)
    app = BearerGate(server.streamable_http_app(host="127.0.0.1"), token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    # One line a script can read: the address, then where the token is.
    print(f"dbg mcp: serving http://127.0.0.1:{port}{MCP_PATH} "
          f"(Authorization: Bearer, token in {path})", flush=True)
    sys.stdout.flush()
    # uvicorn ends its serve on SIGTERM and then raises the signal again
    # under the handler it found: as an exit, so that the token file is
    # removed (the default handler would end the process first).
    signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        sock.close()
        path.unlink(missing_ok=True)
