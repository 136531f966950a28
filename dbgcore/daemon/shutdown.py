"""How a session's daemon ends: debuggee, debugger, child sessions, spare, daemon.

Apart from the daemon's serving because the end has its own order, each step
there for a race or a leftover once seen: the status file goes first (no
client is sent to a daemon on its way out), then the socket (a client that
connects meanwhile is refused rather than left in the backlog), then the
child sessions while the parent's debugger still holds their processes, the
debugger, what the daemon's maker left it (an early debugger, the spare),
and last every process group the program made. It runs once, whichever
thread asks first (`dbg kill`, a signal, idleness, a failed start); a second
caller waits for the first.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

from dbgcore.daemon.children import ChildSessions
from dbgcore.daemon.listener import Door
from dbgcore.daemon.session import Session
from dbgcore.daemon.startup import StartUp
from dbgcore.shared import procutil
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import CHILD_SESSION_ROLE
from dbgcore.shared.status import remove_status

log = logging.getLogger("dbg.daemon")

#: How long a second caller of shutdown() waits for the first to finish.
SHUTDOWN_WAIT = 30.0
#: How long a daemon's end waits for its spare (dbgcore.start.successor) to end
#: its early debugger and exit.
SPARE_END_WAIT = 3.0


class Shutdown:
    """The end of one daemon, given what it ends: ``processes`` is the
    daemon's list of tracked processes, ``status_lock`` the lock its status
    is written under (none is written once it is removed), ``stop_worker``
    lets the op worker's thread return."""

    def __init__(self, name: str, session: Session, startup: StartUp, door: Door,
                 processes: list[JsonObject], child_sessions: ChildSessions,
                 status_lock: threading.Lock, stopping: threading.Event,
                 stop_worker: Callable[[], None]) -> None:
        self._name = name
        self._session = session
        self._startup = startup
        self._door = door
        self._processes = processes
        self._child_sessions = child_sessions
        self._status_lock = status_lock
        self._stopping = stopping
        self._stop_worker = stop_worker
        self._lock = threading.Lock()
        self._begun = False
        self._done = threading.Event()

    def run(self) -> None:
        """End debuggee, debugger and daemon. The status file goes first, so no
        client is sent to a daemon that is on its way out."""
        with self._lock:
            already, self._begun = self._begun, True
        if already:
            # Another thread is ending it (`dbg kill`): wait for it to finish,
            # or the process would exit with the debugger half ended and the
            # kill unanswered.
            self._done.wait(SHUTDOWN_WAIT)
            return
        try:
            self._end()
        finally:
            self._done.set()

    def _end(self) -> None:
        with self._status_lock:  # no status written after it is removed
            self._stopping.set()
            remove_status(self._name, os.getpid())
        # Closed before the debugger is ended (which takes a while): a client
        # that connects meanwhile is refused (no session) instead of waiting
        # in the backlog for an accept that never comes and then reading EOF.
        self._door.close()
        # Looked up before anything ends: once their parents are gone they
        # are no one's (a process of the program that left its group).
        strays = procutil.tree_of(c["pid"] for c in self._processes
                                  if not str(c.get("role", "")).startswith(CHILD_SESSION_ROLE)
                                  and procutil.alive(c["pid"], c.get("start_time")))
        # Child sessions first, each ending its own process (through the
        # adapter), while the parent's debugger still holds them.
        self._child_sessions.end_all()
        try:
            self._session.shutdown()
        except Exception:
            log.exception("error while ending the debugger")
        # And any whose start was under way meanwhile.
        self._child_sessions.end_all()
        # A debugger spawned for a start that never got to adopt it, or
        # ahead of a restart that never came.
        self._startup.early.discard()
        self._startup.early.end_ahead()
        # The spare for the next start ends with the session.
        self._startup.end_spare(SPARE_END_WAIT)
        groups = {g for c in self._processes
                  if procutil.alive(c["pid"], c.get("start_time"))
                  and (g := procutil.pgid_of(c["pid"])) is not None}
        procutil.terminate_groups(groups, grace=0.5)
        if procutil.end_strays(strays):
            log.info("ended processes of the program outside its process group")
        self._stop_worker()
        log.info("daemon %s ended", self._name)


def program_after_kill(session: Session) -> str:
    """What `kill` does to the program: a process dbg attached to (not a
    child process of a program dbg started) is detached from and left
    running with its children; anything dbg started ends, children too."""
    attached = session.attach_request
    if attached is None or session.backend is None or (
            attached.options.get("child") and not attached.options.get("attached")):
        return "ended"
    try:
        gone = session.backend.state() == "exited"
    except Exception:  # a debugger in trouble: what it attached to is not ours
        gone = False
    return "ended" if gone else "detached, still running"
