"""The session store: every session, command and stop, in SQLite (WAL).

Each write commits at once, so a daemon that dies loses nothing it had already
recorded. Several daemons share one database file; WAL mode and a busy timeout
let them write side by side while clients read.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from dbgcore.paths import store_path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    backend TEXT,
    tool TEXT,
    version TEXT,
    program TEXT,
    args TEXT,
    cwd TEXT,
    daemon_pid INTEGER,
    started_at REAL NOT NULL,
    ended_at REAL
);
CREATE TABLE IF NOT EXISTS commands (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    at REAL NOT NULL,
    op TEXT NOT NULL,
    args TEXT,
    ok INTEGER NOT NULL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS stops (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    at REAL NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    thread TEXT,
    file TEXT,
    line INTEGER,
    function TEXT,
    exit_code INTEGER,
    stack TEXT,
    locals TEXT
);
CREATE INDEX IF NOT EXISTS stops_session ON stops(session_id);
-- Added after the first release: ALTER TABLE adds them to older stores.
CREATE INDEX IF NOT EXISTS sessions_name ON sessions(name);
"""

#: Columns of `stops` added since the first schema, with their types.
_ADDED_STOP_COLUMNS = {"signal": "TEXT", "return_value": "TEXT"}

#: Caps on what one record may hold, so a huge value cannot bloat the store.
MAX_RESULT_CHARS = 20_000
MAX_LOCALS = 50
MAX_VALUE_CHARS = 500
MAX_FRAMES = 64


def keep_aside(path: Path, why: str) -> Path:
    """Move a store that cannot be used, with its -wal and -shm files, to
    ``PATH.WHY-TIME`` (a fresh one is made in its place); returns where."""
    aside = path.with_name(f"{path.name}.{why}-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    return aside


class Store:
    def __init__(self, path: Path | None = None, readonly: bool = False) -> None:
        self.path = path or store_path()
        #: What the user should hear of the store, on the next answer (see take_notes).
        self.notes: list[str] = []
        self._write_failed = False
        if readonly:
            # For a reader that must change nothing (`dbg report`): no schema
            # update, no recovery; an unreadable store is its error.
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5,
                                      check_same_thread=False)
            return
        try:
            self._open()
        except sqlite3.Error as exc:
            # Not a database any more (or held locked past the timeout):
            # keep it for whoever wants to look, and record in a fresh one.
            with contextlib.suppress(Exception):
                self.db.close()
            aside = keep_aside(self.path, "locked" if "locked" in str(exc) else "damaged")
            self.notes.append(f"the session store could not be used ({exc}); it is kept at "
                              f"{aside}, and a fresh one records from now on")
            self._open()

    def _open(self) -> None:
        fresh = not self.path.exists()
        self.db = sqlite3.connect(self.path, timeout=5, isolation_level=None,
                                  check_same_thread=False)
        if fresh:
            os.chmod(self.path, 0o600)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        have = {row[1] for row in self.db.execute("PRAGMA table_info(stops)")}
        for column, kind in _ADDED_STOP_COLUMNS.items():
            if column not in have:
                try:
                    self.db.execute(f"ALTER TABLE stops ADD COLUMN {column} {kind}")
                except sqlite3.OperationalError:
                    pass  # another daemon added it first

    def close(self) -> None:
        self.db.close()

    # -- writes (daemon side) ------------------------------------------------

    def _write(self, sql: str, params: tuple[Any, ...]) -> int:
        """One write; a failed one (a full disk, a file size limit, an I/O
        error) is noted, once, and does not end the session: answers go on
        without being recorded."""
        try:
            return int(self.db.execute(sql, params).lastrowid or 0)
        except sqlite3.Error as exc:
            if not self._write_failed:
                self._write_failed = True
                self.notes.append(f"the session store cannot be written ({exc}): answers go "
                                  "on, but `dbg hits` will miss what follows (see dbg doctor)")
            return 0

    def take_notes(self) -> list[str]:
        """What happened to the store that the user has not been told yet."""
        notes, self.notes = self.notes, []
        return notes

    def open_session(self, name: str, backend: str, tool: str, version: str,
                     program: str, args: list[str], cwd: str) -> int:
        return self._write(
            "INSERT INTO sessions (name, backend, tool, version, program, args, cwd, daemon_pid,"
            " started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (name, backend, tool, version, program, json.dumps(args), cwd, os.getpid(),
             time.time()),
        )

    def end_session(self, session_id: int) -> None:
        self._write("UPDATE sessions SET ended_at = ? WHERE id = ?", (time.time(), session_id))

    def record_command(self, session_id: int, op: str, args: dict[str, Any], ok: bool,
                       result: dict[str, Any]) -> None:
        text = json.dumps(result, default=str)
        if len(text) > MAX_RESULT_CHARS:
            text = json.dumps({"truncated": True, "head": text[:MAX_RESULT_CHARS]})
        self._write(
            "INSERT INTO commands (session_id, at, op, args, ok, result) VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, time.time(), op, json.dumps(args, default=str), int(ok), text),
        )

    def record_stop(self, session_id: int, snapshot: dict[str, Any],
                    stack: list[dict[str, Any]]) -> None:
        loc = snapshot.get("location") or {}
        local_rows = [
            {**v, "value": str(v.get("value", ""))[:MAX_VALUE_CHARS]}
            for v in (snapshot.get("locals") or [])[:MAX_LOCALS]
        ]
        thread = snapshot.get("thread")
        self._write(
            "INSERT INTO stops (session_id, at, state, reason, thread, file, line, function,"
            " exit_code, stack, locals, signal, return_value)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id, time.time(), snapshot.get("state"), snapshot.get("reason"),
                None if thread is None else str(thread), loc.get("file"), loc.get("line"),
                loc.get("function"), snapshot.get("exit_code"),
                json.dumps(stack[:MAX_FRAMES]), json.dumps(local_rows), snapshot.get("signal"),
                json.dumps(returned) if (returned := snapshot.get("return_value")) else None,
            ),
        )

    # -- reads (client side) -------------------------------------------------

    def session_row(self, session_id: int) -> dict[str, Any] | None:
        """The ``sessions`` row of a recorded session, by column."""
        cursor = self.db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,))
        row = cursor.fetchone()
        return None if row is None else dict(
            zip([d[0] for d in cursor.description], row, strict=True))

    def latest_session_id(self, name: str) -> int | None:
        row = self.db.execute(
            "SELECT id FROM sessions WHERE name = ? ORDER BY id DESC LIMIT 1", (name,)
        ).fetchone()
        return None if row is None else int(row[0])

    def hits(self, session_id: int | None, name: str | None = None,
             limit: int = 200) -> list[dict[str, Any]]:
        query = (
            "SELECT stops.id, stops.at, sessions.name, stops.state, stops.reason, stops.thread,"
            " stops.file, stops.line, stops.function, stops.exit_code, stops.stack, stops.locals,"
            " stops.signal, stops.return_value"
            " FROM stops JOIN sessions ON sessions.id = stops.session_id"
        )
        params: tuple[Any, ...] = ()
        if session_id is not None:
            query += " WHERE stops.session_id = ?"
            params = (session_id,)
        elif name is not None:
            query += " WHERE sessions.name = ?"
            params = (name,)
        query += " ORDER BY stops.id LIMIT ?"
        rows = self.db.execute(query, (*params, limit)).fetchall()
        keys = ("id", "at", "session", "state", "reason", "thread", "file", "line", "function",
                "exit_code", "stack", "locals", "signal", "return_value")
        out = []
        for row in rows:
            item = dict(zip(keys, row, strict=True))
            item["stack"] = json.loads(item["stack"] or "[]")
            item["locals"] = json.loads(item["locals"] or "[]")
            item["return_value"] = json.loads(item["return_value"] or "null")
            out.append(item)
        return out

    def commands(self, session_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT at, op, args, ok, result FROM commands WHERE session_id = ? ORDER BY id",
            (session_id,),
        ).fetchall()
        return [
            {"at": at, "op": op, "args": json.loads(args or "{}"), "ok": bool(ok),
             "result": json.loads(result or "{}")}
            for at, op, args, ok, result in rows
        ]
