"""A parent session's daemon and the sessions of its program's child processes.

A Python program that starts Python children gets one session per child
(``PARENT/NAME-PID``, started by :mod:`dbgcore.start.children` and tracked by
the parent's daemon under the role ``CHILD_SESSION_ROLE + name``). Apart from
the daemon's own ops because each of these is a call over the wire to
another daemon: a breakpoint set in the parent goes to each child, a parent
waiting for its program hears of a child that stopped, the parent's end ends
the children, and a child's own daemon ends a while after its process did.
"""

from __future__ import annotations

import contextlib
import threading
import time

from dbgcore.daemon.session import Session
from dbgcore.shared import client
from dbgcore.shared.errors import DbgError, NotStopped
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import CHILD_SESSION_ROLE
from dbgcore.vocab.location import BreakLoc

#: How long a child session has to end its process at the parent's kill.
CHILD_END_WAIT = 10.0
#: How long a daemon waits for a child session's daemon to answer.
CHILD_PING_TIMEOUT = 2.0
#: How long it waits for a stopped child's stop (its snapshot may still be
#: being taken: locals read under load).
CHILD_STOP_TIMEOUT = 10.0
# How often a child session still attaching is asked again.
CHILD_ATTACH_POLL = 0.05
#: How long a child process's session stays after the child ended (a program
#: that runs a Python child in a loop would otherwise gather daemons); its
#: stops stay in the store (`dbg hits`).
CHILD_LINGER = 60.0


class ChildSessions:
    """The child sessions among the processes a daemon tracks.

    ``processes``: the daemon's list of tracked processes (its status file's
    ``children``), read as it grows. ``lock``: the one the daemon writes its
    status under; the record of which children were told to end is kept
    under it too, since a child can be tracked from another thread than the
    one ending the session."""

    def __init__(self, processes: list[JsonObject], lock: threading.Lock) -> None:
        self._processes = processes
        self._lock = lock
        self._ended: set[str] = set()

    def names(self) -> list[str]:
        return [str(c["role"])[len(CHILD_SESSION_ROLE):] for c in self._processes
                if str(c.get("role", "")).startswith(CHILD_SESSION_ROLE)]

    def end_all(self) -> None:
        """`dbg kill` of each child session not told yet (one that ended
        already is no error)."""
        for name in self.names():
            with self._lock:
                if name in self._ended:
                    continue
                self._ended.add(name)
            with contextlib.suppress(DbgError):
                client.call(name, "kill", {}, CHILD_END_WAIT)

    def stopped(self) -> list[str]:
        """The child sessions stopped now (a program waiting for its pool's
        children may be waiting for one stopped at a breakpoint)."""
        stopped = []
        for name in self.names():
            try:
                answer = client.call(name, "ping", {}, CHILD_PING_TIMEOUT)
            except DbgError:
                continue
            if ((answer.get("result") or {}).get("session") or {}).get("state") == "stopped":
                stopped.append(name)
        return stopped

    def stop_of(self, name: str) -> JsonObject:
        """Where child session ``name`` stopped (its `wait` collects the stop)."""
        try:
            answer = client.call(name, "wait", {}, CHILD_STOP_TIMEOUT)
        except DbgError:
            return {"session": name}
        stop = answer.get("result") or {}
        return {"session": name, "reason": stop.get("reason"), "location": stop.get("location"),
                "hit_breakpoints": stop.get("hit_breakpoints") or []}

    def tell(self, op: str, args: JsonObject, result: JsonObject,
             timeout: float) -> list[JsonObject]:
        """A breakpoint set or removed in the parent is set or removed in its
        live child sessions too (a new child gets the parent's breakpoints
        when it starts); what each child answered. An unbreak by id goes to
        the children by location, since their ids are their own."""
        children = self.names()
        if not children:
            return []
        if op == "break":
            calls = [args]
        else:
            calls = [{"location": BreakLoc(file=b.get("file"), line=b.get("requested_line")
                                           or b.get("line")).to_wire()
                      if b.get("kind") == "source" and b.get("file")
                      else BreakLoc(function=b.get("function")).to_wire()}
                     for b in result.get("removed") or [] if b.get("file") or b.get("function")]
        told = []
        for name in children:
            for call in calls:
                try:
                    answer = self._call(name, op, call, min(timeout, CHILD_PING_TIMEOUT * 4))
                except DbgError as exc:
                    told.append({"session": name, "ok": False, "error": exc.message})
                    continue
                error = answer.get("error") or {}
                told.append({"session": name, "ok": bool(answer.get("ok")),
                             **({"error": error.get("message", "")} if error else {})})
        return told

    def _call(self, name: str, op: str, args: JsonObject, timeout: float) -> JsonObject:
        """Child session ``name``'s answer to ``op``. A child still attaching
        (its daemon's `attach`, sent by this session when the child began, has
        not answered yet) refuses ops that need it settled; it is waited for
        (within ``timeout``), or a breakpoint set meanwhile would miss it."""
        deadline = time.monotonic() + timeout
        while True:
            answer = client.call(name, op, args, max(0.1, deadline - time.monotonic()))
            if (answer.get("error") or {}).get("kind") != NotStopped.kind \
                    or time.monotonic() >= deadline:
                return answer
            ping = client.call(name, "ping", {}, CHILD_PING_TIMEOUT)
            if (ping.get("result") or {}).get("busy") != "attach":
                return answer
            time.sleep(CHILD_ATTACH_POLL)


class ChildLinger:
    """When a child process's own session ends: CHILD_LINGER seconds after
    its child ended, with nothing asked of it since."""

    def __init__(self) -> None:
        #: When this child process's session saw its child end.
        self._ended_at: float | None = None

    def over(self, session: Session, last_activity: float) -> bool:
        """This is a child process's session, and the child ended more than
        CHILD_LINGER seconds ago (and nothing was asked of it since)."""
        attached = session.attach_request
        backend = session.backend
        if attached is None or not attached.options.get("child") or backend is None:
            return False
        try:
            ended = backend.state() == "exited"
        except Exception:
            ended = False
        if not ended:
            self._ended_at = None
            return False
        if self._ended_at is None:
            self._ended_at = time.monotonic()
        return time.monotonic() - max(self._ended_at, last_activity) > CHILD_LINGER
