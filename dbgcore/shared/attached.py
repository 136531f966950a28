"""Who is attached to a session besides its CLI and MCP callers: the DAP
clients of `dbg dap` (:mod:`dbgcore.frontends.dap`), one small JSON file
each in the session's folder (``dap-clients/PID.json``), written by the
server and removed at its end. A reader (`dbg sessions`) checks each file's
pid and its start time and removes the file of a server that has gone, so
nothing stale is shown after a crash.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from dbgcore.shared import procutil
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import session_dir

FOLDER = "dap-clients"


def _folder(name: str) -> Path:
    return session_dir(name) / FOLDER


def announce(name: str, client: str, driving: bool) -> Path | None:
    """Record this process as attached to session ``name``; the file's path
    (None: the session has no folder to write in)."""
    folder = _folder(name)
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        path = folder / f"{os.getpid()}.json"
        tmp = path.with_suffix(".tmp")
        data = {"pid": os.getpid(), "started": procutil.start_time(os.getpid()),
                "client": client, "driving": driving, "since": time.time()}
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(data, out)
        os.replace(tmp, path)
    except OSError:
        return None
    return path


def withdraw(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


def attached(name: str) -> list[JsonObject]:
    """The live clients attached to ``name``, oldest first; the files of
    those whose process is gone are removed."""
    try:
        files = sorted(_folder(name).glob("*.json"))
    except OSError:
        return []
    found = []
    for path in files:
        try:
            data = json.loads(path.read_text())
            pid = int(data.get("pid", 0))
            started = data.get("started")
            started = None if started is None else int(started)
        except (OSError, ValueError, AttributeError, TypeError):
            continue
        # The start time tells a server from a later process given its pid.
        if not procutil.alive(pid, started) or path.stem != str(pid):
            withdraw(path)
            continue
        found.append(data)
    return sorted(found, key=lambda d: float(d.get("since") or 0))


def describe(client: JsonObject) -> str:
    """``dap client vscode (pid 123, driving)``."""
    how = "driving" if client.get("driving") else "read-only"
    return f"dap client {client.get('client') or '?'} (pid {client.get('pid')}, {how})"
