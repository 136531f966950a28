"""`dbg dap`: serve DAP on stdio (an editor starts it as its debug adapter)
or, with ``--listen PORT``, on 127.0.0.1 only, for a client that connects
(VS Code's ``debugServer``), with a token the client must send.

The token is fresh for each server, written to a 0600 file in the session's
folder (``dap-token``) and its path printed with the port; a client that
sends a wrong one is refused and disconnected. Clients are served one at a
time; the server ends with its session (or on Ctrl-C).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbgcore.frontends.dap.adapter import Adapter
from dbgcore.frontends.dap.framing import Framing, FramingError
from dbgcore.shared.errors import DbgError, UsageError
from dbgcore.shared.paths import check_session_name, session_dir

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front

#: The only address `--listen` binds.
LOOPBACK = "127.0.0.1"
TOKEN_FILE = "dap-token"
#: How often a listening server looks whether its session is still there.
SESSION_CHECK = 1.0


def serve(values: dict[str, Any], session: str, timeout: float, front: Front) -> None:
    from dbgcore.start import forkserver

    drive = bool(values.get("drive"))
    port = values.get("listen")
    writer = None
    if port is None:
        # The protocol owns stdout: what else would write there (a daemon
        # forked from here, a stray print) goes to stderr instead.
        writer = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
    # This process has threads (the stop follower, ops that run the
    # program): a launch's daemon is forked off the helper, as `dbg mcp`'s are.
    forkserver.use()
    try:
        if writer is not None:
            # -s NAME: the session an attach without one joins (and a launch takes).
            named = session if session != "default" else None
            _serve_stream(sys.stdin.buffer, writer, front, drive, named, None)
        else:
            assert port is not None
            _listen(int(port), session, front, drive)
    finally:
        forkserver.stop()


def _serve_stream(reader: Any, writer: Any, front: Front, drive: bool,
                  session: str | None, token: str | None) -> None:
    out = Framing(reader, writer)
    adapter = Adapter(out, front, drive, session, token)
    try:
        while not adapter.done.is_set():
            try:
                message = out.read()
            except FramingError as exc:
                out.event("output", {"category": "stderr", "output": f"dbg dap: {exc}\n"})
                break
            except OSError:
                break
            if message is None:
                break
            adapter.handle(message)
    finally:
        if not adapter.done.is_set() and adapter.launched:
            # The client went away without a disconnect: its session goes too.
            with contextlib.suppress(Exception):
                adapter.req_disconnect({}, {})
        adapter.close()


def _write_token(session: str) -> tuple[str, Path]:
    token = secrets.token_urlsafe(24)
    folder = session_dir(session)
    path = folder / TOKEN_FILE
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token, path


def _listen(port: int, session: str, front: Front, drive: bool) -> None:
    from dbgcore.shared import client

    check_session_name(session)
    client.require_live(session)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((LOOPBACK, port))
    except OSError as exc:
        raise UsageError(f"cannot listen on {LOOPBACK}:{port}: {exc.strerror}",
                         "pick another port, or 0 for any free one") from exc
    listener.listen(1)
    listener.settimeout(SESSION_CHECK)
    token, path = _write_token(session)
    bound = listener.getsockname()[1]
    print(f"dbg dap: listening on {LOOPBACK}:{bound} for session {session} "
          f"({'driving' if drive else 'read-only'}); token in {path}", flush=True)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                try:
                    if client.live_status(session) is None:
                        return
                except DbgError:
                    return
                continue
            with conn:
                conn.settimeout(None)
                with contextlib.suppress(OSError), conn.makefile("rb") as reader, \
                        conn.makefile("wb") as writer:
                    _serve_stream(reader, writer, front, drive, session, token)
    except KeyboardInterrupt:
        return
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            path.unlink()
