"""The session's stops as they happen, read from the store.

The daemon records every stop in the SQLite store before it answers the op
that stopped (:meth:`dbgcore.daemon.session.Session.snapshot`), whoever sent
that op: the agent through the CLI or MCP, or this DAP client. So the store
is the one place where a DAP client learns of each stop, its own and the
agent's alike. The store is in WAL mode: each write grows or rewrites its
``-wal`` file, so the follower looks at that file's size and time (a stat,
a few times a second) and queries the store only when it changed, and at
most every :data:`RECHECK` seconds otherwise (a checkpoint may move the
write into the main file).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from dbgcore.shared.errors import DbgError
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import store_path

if TYPE_CHECKING:
    from dbgcore.store.db import Store

#: How often the store's files are looked at.
LOOK = 0.1
#: How often the store is asked even when its files look unchanged.
RECHECK = 2.0


def _signature(path: str) -> tuple[int, int, int, int]:
    try:
        wal = os.stat(path + "-wal")
        wal_sig = (wal.st_size, wal.st_mtime_ns)
    except OSError:
        wal_sig = (0, 0)
    try:
        main = os.stat(path)
        main_sig = (main.st_size, main.st_mtime_ns)
    except OSError:
        main_sig = (0, 0)
    return (*wal_sig, *main_sig)


class StopFollower:
    """Calls ``on_stop(row)`` for each stop the session ``name`` records
    after :meth:`start` (its ``since`` id), on a thread of its own, until
    :meth:`stop`. ``row``: :meth:`dbgcore.store.db.Store.stop_row`."""

    def __init__(self, name: str, on_stop: Callable[[JsonObject], None]) -> None:
        self.name = name
        self.on_stop = on_stop
        self._store: Store | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.seen = 0
        self.session_id: int | None = None

    def store(self) -> Store:
        if self._store is None:
            from dbgcore.store.db import Store

            self._store = Store(readonly=True, by="dbg dap")
        return self._store

    def latest(self) -> JsonObject | None:
        """The session's newest recorded stop (None: none), its id remembered
        as seen: a late joiner is told it at once, and then only newer ones."""
        store = self.store()
        self.session_id = store.latest_session_id(self.name)
        if self.session_id is None:
            return None
        self.seen = store.last_stop_id(self.session_id)
        return store.stop_row(self.seen) if self.seen else None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="dbg-dap-stops")
            self._thread.start()

    def stop(self) -> None:
        self._done.set()

    def _run(self) -> None:
        path = str(store_path())
        last_sig = _signature(path)
        waited = 0.0
        while not self._done.wait(LOOK):
            waited += LOOK
            sig = _signature(path)
            if sig == last_sig and waited < RECHECK:
                continue
            last_sig, waited = sig, 0.0
            try:
                self._news()
            except (DbgError, OSError, ValueError):
                continue  # the store set aside or busy: asked again later

    def _news(self) -> None:
        store = self.store()
        session_id = store.latest_session_id(self.name)
        if session_id is None:
            return
        if session_id != self.session_id:
            # The name started again (a new session after an ended one).
            self.session_id = session_id
        newest = store.last_stop_id(session_id)
        if newest <= self.seen:
            return
        # Stops that came and went between two looks (a `dbg continue` that
        # ran through a breakpoint's condition) are history; the newest is
        # where the program is.
        self.seen = newest
        row = store.stop_row(newest)
        if row is not None and not self._done.is_set():
            self.on_stop(row)
