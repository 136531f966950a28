"""The status file that says a session's daemon is alive, and where to reach it.

``sessions/NAME/status.json`` holds the daemon's pid and process start time, its
socket path, and every process the session started (with their start times).
A reader trusts it only if that pid is alive with that start time; otherwise
the daemon is dead (or the pid was reused), and :func:`clean_stale` ends the
processes it left behind and removes its runtime files.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import time
from pathlib import Path

from dbgcore.shared import homecheck, procutil
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import CHILD_SESSION_ROLE, session_dir, sessions_dir
from dbgcore.shared.sessionsocket import CHILD_SEP_IN_DIR, SOCKET_NAME, STATUS_NAME


def status_file(name: str) -> Path:
    return session_dir(name) / STATUS_NAME


def read_status(name: str) -> JsonObject | None:
    """The session's status; None when it has none (or one dbg did not
    write: a link, or a file of someone else's)."""
    try:
        data = json.loads(homecheck.read_file(str(status_file(name))))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_status(name: str, data: JsonObject) -> None:
    path = status_file(name)
    homecheck.write_file(str(path), json.dumps(data).encode("utf-8"),
                         str(path.with_suffix(".tmp")))


def remove_status(name: str, pid: int | None = None) -> None:
    """Remove the status file; with ``pid``, only if it is that daemon's (a
    daemon ending late must not remove the next one's)."""
    if pid is not None:
        status = read_status(name)
        if status is not None and status.get("pid") != pid:
            return
    with contextlib.suppress(FileNotFoundError):
        status_file(name).unlink()


def daemon_alive(status: JsonObject, name: str) -> bool:
    """Whether the status's daemon runs: its pid alive with its start time,
    the user's, and holding session ``name``'s files open (see
    :func:`procutil.is_daemon_of`). What a status file says is acted on
    only once this is known."""
    return procutil.is_daemon_of(int(status.get("pid", 0)), status.get("start_time"),
                                 str(session_dir(name)))


def clean_stale(name: str, status: JsonObject | None) -> list[int]:
    """Tidy up after a daemon that is gone: end the process groups it recorded
    (only those whose start time still matches), remove its socket and status
    file. Returns the pids that were still running."""
    leftovers: list[int] = []
    if status is not None:
        groups = set()
        for child in status.get("children", []):
            pid = int(child.get("pid", 0))
            # Only processes of the user's, as the file says they started:
            # the file is trusted no further than that.
            if procutil.ours(pid, child.get("start_time")):
                leftovers.append(pid)
                pgid = procutil.pgid_of(pid)
                if pgid is not None:
                    groups.add(pgid)
            elif child.get("pgid") == pid and procutil.start_time(pid) in (
                    None, child.get("start_time")) and procutil.group_is_ours(pid):
                # The leader is dead (or a zombie), but a member that ignores
                # SIGHUP (the debuggee's own child) outlives it. Linux hands
                # out no pid while a process group of that number exists, so
                # a group numbered like our dead leader is still the one it
                # led; and its members are all the user's, not a group
                # named by the file alone.
                groups.add(pid)
        procutil.terminate_groups(groups, grace=0.5)
        sock = status.get("socket")
        if sock:
            with contextlib.suppress(OSError):
                os.unlink(sock)
    folder = session_dir(name)
    for leftover in (SOCKET_NAME, STATUS_NAME):
        with contextlib.suppress(OSError):
            (folder / leftover).unlink()
    for path in leftover_files(name, status):
        with contextlib.suppress(OSError):
            path.unlink()
    return leftovers


def end_by_force(name: str, status: JsonObject, grace: float = 1.0) -> int:
    """End the daemon of ``status`` that did not answer `kill` (stopped,
    hung), with every process of its session: the daemon, what it recorded
    having started and everything below them, looked up before any of them
    ends (a process orphaned by its parent's end is no one's descendant).
    Each is signalled only while its start time matches (see
    :func:`dbgcore.shared.procutil.end_processes`); then the runtime files go as
    after a dead daemon (:func:`clean_stale`). Returns how many processes
    besides the daemon were still running."""
    pid = int(status.get("pid", 0))
    daemon = [(pid, status.get("start_time"))] if daemon_alive(status, name) else []
    recorded = [(int(c.get("pid", 0)), c.get("start_time")) for c in status.get("children", [])
                if not str(c.get("role", "")).startswith(CHILD_SESSION_ROLE)]
    # Only what is still the user's process of that start (procutil.ours):
    # a status file is not enough to signal anything by.
    recorded = [(p, started) for p, started in recorded if procutil.ours(p, started)]
    found = dict(procutil.tree_of([p for p, _ in daemon + recorded]))
    found.update(recorded)
    found.pop(pid, None)
    procutil.end_processes(daemon + list(found.items()), grace)
    clean_stale(name, status)
    return len(found)


#: The FIFOs a daemon makes for a program's stdio: ``PREFIX-PID-N-STREAM.fifo``,
#: PID the daemon's (see dbgcore.transport.streams).
_DAEMON_FIFO = re.compile(r".+-(\d+)-\d+-(?:stdout|stderr|stdin)\.fifo")
#: A file a daemon writes and renames at once: older than this, its writer died.
_HALF_WRITTEN_AGE = 60.0


def leftover_files(name: str, status: JsonObject | None) -> list[Path]:
    """Runtime files in the session folder that no live daemon holds: FIFOs
    of daemons that are gone (their pid not running, or the dead daemon of
    ``status``), sockets and a half-written status file when no daemon of
    this name is alive. Logs and what the user may want are not among them."""
    folder = session_dir(name)
    if status is None:
        status = read_status(name)
    live = status is not None and daemon_alive(status, name)
    dead_pid = None if live or status is None else status.get("pid")
    found = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISFIFO(info.st_mode):
            match = _DAEMON_FIFO.fullmatch(entry.name)
            if match is None:
                continue  # not one of ours
            pid = int(match.group(1))
            if pid == dead_pid or not procutil.alive(pid):
                found.append(Path(entry.path))
        elif live:
            continue
        elif stat.S_ISSOCK(info.st_mode) or (
                entry.name == "status.tmp" and time.time() - info.st_mtime > _HALF_WRITTEN_AGE):
            found.append(Path(entry.path))
    return sorted(found)


def list_session_names() -> list[str]:
    root = sessions_dir()
    # By lstat: a link among them is no session folder of dbg's.
    return sorted(p.name.replace(CHILD_SEP_IN_DIR, "/") for p in root.iterdir()
                  if stat.S_ISDIR(p.lstat().st_mode))
