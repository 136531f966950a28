"""The session store: every session, command and stop, in SQLite (WAL).

Each write commits at once, so a daemon that dies loses nothing it had already
recorded; what an op records while the program runs (a trace's calls, `history
--at`'s values in ``samples``) comes in batches, each one transaction, from a
writer thread (dbgcore.store.recording), so a lock keeps the connection to one use
at a time. Several daemons share one database file; WAL mode and a busy
timeout let them write side by side while clients read.

Damage to the store (a file SQLite cannot read, or one smaller than it was) is
found, set aside and told by dbgcore.store.damage.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from dbgcore.shared.jsontypes import Json, JsonObject
from dbgcore.shared.paths import store_path, untrusted
from dbgcore.shared.secrets import masked
from dbgcore.store.damage import (
    StoreDamaged,
    check_stamp,
    checked_file,
    damage_note,
    identity,
    is_damage,
    quick_check,
    set_aside,
    shrunk,
    stamp_checked,
    standing_note,
)
from dbgcore.store.profilerecords import ProfileRecords
from dbgcore.store.sql import SqlRow, json_column
from dbgcore.store.stopreads import StopReads

_T = TypeVar("_T")

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
-- `dbg hits` at a place, counted and paged on the index alone (no row read
-- whole that is not shown), and a run's stops; added to older stores too.
CREATE INDEX IF NOT EXISTS stops_place ON stops(session_id, line, function, file, state);
-- `dbg hits --diff`: a function's stop before a page, found by a seek.
CREATE INDEX IF NOT EXISTS stops_function ON stops(session_id, function, file);
-- Added after the first release: ALTER TABLE adds them to older stores.
CREATE INDEX IF NOT EXISTS sessions_name ON sessions(name);
-- Each run of the program in a session (start, restart, test, attach), and
-- the calls `dbg trace` recorded in it (one CallRecord as JSON each).
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    started_at REAL NOT NULL,
    program TEXT,
    args TEXT,
    ended_at REAL,
    exit_code INTEGER,
    signal TEXT
);
CREATE INDEX IF NOT EXISTS runs_session ON runs(session_id);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    function TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_run ON calls(run_id, seq);
-- Values an op samples as the program runs, one JSON object each: `dbg history
-- --at`'s (kind 'history', key its expression); profile samples to come.
CREATE TABLE IF NOT EXISTS samples (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    kind TEXT NOT NULL,
    key TEXT,
    at REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS samples_run ON samples(run_id, kind, key);
-- A run recorded by a profiler (`dbg profile`): which one, how, and the
-- stacks (or call edges) it saw, one vocab.profiles.Sample each.
CREATE TABLE IF NOT EXISTS profiles (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id),
    tool TEXT NOT NULL,
    shape TEXT NOT NULL,
    unit TEXT NOT NULL,
    rate REAL,
    duration REAL,
    pid INTEGER,
    note TEXT
);
CREATE TABLE IF NOT EXISTS profile_samples (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    thread TEXT,
    stack TEXT NOT NULL,
    weight REAL NOT NULL,
    total REAL,
    calls INTEGER
);
CREATE INDEX IF NOT EXISTS profile_samples_run ON profile_samples(run_id);
"""

#: Columns added since the first schema, with their types, by table.
_ADDED_STOP_COLUMNS = {"signal": "TEXT", "return_value": "TEXT", "run_id": "INTEGER"}
#: ``replays``: the recorded run a replay's run replays (`dbg replay`).
_ADDED_RUN_COLUMNS = {"replays": "INTEGER"}
#: Columns of `commands` added since: who sent a command not from the CLI or MCP.
_ADDED_COMMAND_COLUMNS = {"by": "TEXT"}
#: The writes whose first (INSERT) or last (UPDATE) parameter is a session id.
_BY_SESSION = ("INSERT INTO stops", "INSERT INTO commands", "INSERT INTO runs",
               "UPDATE sessions")

#: Indexes on columns added since the first schema (made after them).
_ADDED_INDEXES = "CREATE INDEX IF NOT EXISTS stops_run ON stops(run_id);"


#: Caps on what one record may hold, so a huge value cannot bloat the store.
MAX_RESULT_CHARS = 20_000
MAX_LOCALS = 50
MAX_VALUE_CHARS = 500
MAX_FRAMES = 64


def shifted_call(call: JsonObject, base: int) -> JsonObject:
    """A trace's call (numbered from 1) numbered after the ``base`` calls
    its run had before the trace."""
    return {**call, "seq": int(call["seq"]) + base,
            "parent": None if call.get("parent") is None else int(call["parent"]) + base}


def _kept(data: Json) -> Json:
    """What the store keeps of a value: masked (dbgcore.shared.secrets), so
    that a history read back shows no secret, whatever a call's --reveal."""
    return masked(data)


_INSERT_SESSION = (
    "INSERT INTO sessions (name, backend, tool, version, program, args, cwd, daemon_pid,"
    " started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")


class Store(ProfileRecords, StopReads):
    """``by`` names the op that opens it, for the word left when damage is
    found; ``readonly`` opens it for a reader that must change nothing in it
    (`dbg report`): no schema update."""

    def __init__(self, path: Path | None = None, readonly: bool = False,
                 by: str = "a dbg session") -> None:
        self.path = path or store_path()
        self.readonly = readonly
        self.by = by
        #: What the user should hear of the store, on the next answer (see take_notes).
        self.notes: list[str] = []
        self._write_failed = False
        #: The device and inode of the file open, to follow a store that
        #: another process set aside (see _follow).
        self._opened: tuple[int, int] | None = None
        #: The sessions this process recorded, to record them again in a
        #: fresh store after damage, and the ids they have there.
        self._sessions: dict[int, SqlRow] = {}
        self._renumbered: dict[int, int] = {}
        # SQLite would follow a link (and write its -wal and -shm beside
        # it); the home is the user's own (store_path), so no one else
        # could make one here after this look.
        if self.path.is_symlink():
            raise untrusted(f"{self.path} is a symbolic link")
        #: One use of the connection at a time: a recorder's writer thread
        #: writes batches while the op's thread records (see dbgcore.store.recording).
        self._lock = threading.RLock()
        self._open_checked()
        note = standing_note(self.path, " ".join(self.notes))
        if note is not None:
            self.notes.append(note)

    def _open_checked(self) -> None:
        """Open the store, checking it first; a damaged one is set aside and
        a fresh one opened (told in a note)."""
        for _ in range(3):  # a fresh file may be damaged by someone else at once
            found = identity(self.path)
            if found is None and self.readonly:
                self._in_memory()  # nothing recorded yet
                return
            if found is None:
                # Deleted by the user: what the check knew was of that file.
                with contextlib.suppress(OSError):
                    checked_file(self.path).unlink()
            try:
                if found is not None and not stat.S_ISREG(os.stat(self.path).st_mode):
                    kind = "a directory" if self.path.is_dir() else "not a regular file"
                    raise StoreDamaged(f"{kind} is in its place")
                if found is not None and (cut := shrunk(self.path)) is not None:
                    # Before SQLite makes an empty file a fresh store over it.
                    raise StoreDamaged(cut)
                self._connect()
                if found is not None:
                    quick_check(self.db, self.path)
                elif not self.readonly:
                    # Made here, sound: an empty file in its place later is damage.
                    stamp_checked(self.path, check_stamp(self.path))
                self._opened = identity(self.path)
                return
            except (StoreDamaged, sqlite3.Error, OSError) as exc:
                with contextlib.suppress(Exception):
                    self.db.close()
                if not isinstance(exc, StoreDamaged) and not is_damage(exc):
                    if "locked" in str(exc) and found is not None and not self.readonly:
                        # Held locked past the timeout (a stuck process):
                        # kept for it, and a fresh one records.
                        aside = set_aside(self.path, "locked", str(exc), self.by, found)
                        self.notes.append(
                            f"the session store was locked by another process ({exc}); it "
                            f"is kept at {aside}, and a fresh one records from now on (`dbg "
                            "doctor` reports it until `dbg doctor --fix`)")
                        continue
                    self._unusable(exc)
                    return
                self._damaged(str(exc), found)
                if self.readonly:
                    self._in_memory()
                    return
        self._unusable(StoreDamaged("damaged again as soon as it was made"))

    def _damaged(self, detail: str, found: tuple[int, int] | None) -> None:
        aside = set_aside(self.path, "damaged", detail, self.by, found)
        self.notes.append(damage_note(detail, aside))

    def _unusable(self, exc: BaseException) -> None:
        """Not damage (held locked past the timeout, no permission, a full
        disk): the file is left as it is, and this process records nowhere."""
        self.notes.append(f"the session store cannot be used ({exc}): answers go on, but "
                          "nothing is recorded or read from it now (see `dbg doctor`)")
        self._write_failed = True
        self._in_memory()

    def _in_memory(self) -> None:
        self.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self.db.executescript(_SCHEMA)
        for table, added in (("stops", _ADDED_STOP_COLUMNS), ("commands", _ADDED_COMMAND_COLUMNS)):
            for column, kind in added.items():
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        self.db.executescript(_ADDED_INDEXES)
        self._opened = None

    def _connect(self) -> None:
        if self.readonly:
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5,
                                      check_same_thread=False)
            return
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
        for table, added in (("stops", _ADDED_STOP_COLUMNS), ("runs", _ADDED_RUN_COLUMNS),
                             ("commands", _ADDED_COMMAND_COLUMNS)):
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            for column, kind in added.items():
                if column not in have:
                    try:
                        self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
                    except sqlite3.OperationalError:
                        pass  # another daemon added it first
        self.db.executescript(_ADDED_INDEXES)

    def _reopen(self) -> None:
        """Open what is at the path now, and record this process's sessions
        in it again (under the ids it gives them)."""
        with contextlib.suppress(Exception):
            self.db.close()
        self._open_checked()
        if self.readonly:
            return
        for old_id, params in self._sessions.items():
            with contextlib.suppress(sqlite3.Error):
                new_id = int(self.db.execute(_INSERT_SESSION, params).lastrowid or 0)
                self._renumbered[old_id] = new_id

    def _follow(self) -> None:
        """Another process found the store damaged and set it aside: this
        connection still has the old file open; go on in the new one."""
        if self._opened is not None and identity(self.path) != self._opened:
            self._reopen()

    def _rows(self, sql: str, params: SqlRow) -> tuple[list[SqlRow], list[str]]:
        """Run one query: its rows and column names. Damage it finds (rows
        are read lazily, so it may be found at any of them) is set aside and
        told; the fresh store has no rows."""
        def run() -> tuple[list[SqlRow], list[str]]:
            cursor = self.db.execute(sql, params)
            return cursor.fetchall(), [d[0] for d in cursor.description or ()]
        return self._guarded(run)

    def _guarded(self, run: Callable[[], _T]) -> _T:
        with self._lock:
            self._follow()
            try:
                return run()
            except sqlite3.Error as exc:
                if not is_damage(exc) or self._opened is None:
                    raise
                self._damaged(str(exc), self._opened)
                self._reopen()
                return run()

    def _renumber(self, sql: str, params: SqlRow) -> SqlRow:
        """``params`` with this process's session ids as the fresh store has them."""
        if not self._renumbered or not sql.startswith(_BY_SESSION):
            return params
        # Every write names the session id last (UPDATE) or first (INSERT).
        index = len(params) - 1 if sql.startswith("UPDATE") else 0
        fixed = list(params)
        old = fixed[index]
        if isinstance(old, int):
            fixed[index] = self._renumbered.get(old, old)
        return tuple(fixed)

    def close(self) -> None:
        with self._lock:
            self.db.close()

    # -- writes (daemon side) ------------------------------------------------

    def _write(self, sql: str, params: SqlRow) -> int:
        """One write: the row id it made (0: not written, see :meth:`_written`)."""
        return self._written(
            lambda: int(self.db.execute(sql, self._renumber(sql, params)).lastrowid or 0), 0,
            "answers go on, but `dbg hits` will miss what follows (see dbg doctor)")

    def _written(self, run: Callable[[], _T], failed: _T, lost: str) -> _T:
        """Every write: damage it finds is set aside, told, and the write made
        again in the fresh store (:meth:`_guarded`); a failed one (a full
        disk, a file size limit, an I/O error) gives ``failed`` and is noted,
        once, saying what is ``lost``, and does not end the session: answers
        go on without being recorded."""
        try:
            return self._guarded(run)
        except sqlite3.Error as exc:
            if not self._write_failed:
                self._write_failed = True
                self.notes.append(f"the session store cannot be written ({exc}): {lost}")
            return failed

    def take_notes(self) -> list[str]:
        """What happened to the store that the user has not been told yet."""
        notes, self.notes = self.notes, []
        return notes

    def open_session(self, name: str, backend: str, tool: str, version: str,
                     program: str, args: list[str], cwd: str) -> int:
        params = (name, backend, tool, version, program, json.dumps(args), cwd, os.getpid(),
                  time.time())
        session_id = self._write(_INSERT_SESSION, params)
        if session_id:
            self._sessions[session_id] = params
        return session_id

    def end_session(self, session_id: int) -> None:
        self._write("UPDATE sessions SET ended_at = ? WHERE id = ?", (time.time(), session_id))

    def record_command(self, session_id: int, op: str, args: JsonObject, ok: bool,
                       result: JsonObject, by: str | None = None) -> None:
        """One op a session ran; ``by``: who sent it, when not the CLI or
        MCP (``dap client vscode (pid N)``: a person, through `dbg dap`)."""
        # The command's arguments as given: what the user typed, not what the
        # program holds (`dbg report` finds their secrets in the logs by them).
        text = json.dumps(_kept(result), default=str)
        if len(text) > MAX_RESULT_CHARS:
            text = json.dumps({"truncated": True, "head": text[:MAX_RESULT_CHARS]})
        self._write(
            "INSERT INTO commands (session_id, at, op, args, ok, result, by)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, time.time(), op, json.dumps(args, default=str), int(ok), text, by),
        )

    def open_run(self, session_id: int, program: str, args: list[str],
                 replays: int | None = None) -> int:
        """A run of the program begins in a session: its id (0: not recorded).
        ``replays``: the recorded run it replays (`dbg replay`)."""
        return self._write("INSERT INTO runs (session_id, started_at, program, args, replays)"
                           " VALUES (?, ?, ?, ?, ?)",
                           (session_id, time.time(), program, json.dumps(args), replays))

    def end_run(self, run_id: int, exit_code: int | None, signal: str | None) -> None:
        self._write("UPDATE runs SET ended_at = ?, exit_code = ?, signal = ? WHERE id = ?",
                    (time.time(), exit_code, signal, run_id))

    def record_calls(self, run_id: int, calls: list[JsonObject]) -> int:
        """Add `dbg trace`'s records to a run at once, numbered after those
        it has; returns the number the first one got (a trace in progress
        writes them as they come instead: dbgcore.store.recording.StoredCalls)."""
        if not run_id or not calls:
            return 1
        base = self.last_call_seq(run_id)
        self.write_calls(run_id, [shifted_call(call, base) for call in calls], [])
        return base + 1

    def last_call_seq(self, run_id: int) -> int:
        """The ``seq`` of the run's last recorded call (0: none yet)."""
        try:
            rows, _ = self._rows("SELECT COALESCE(MAX(seq), 0) FROM calls WHERE run_id = ?",
                                 (run_id,))
        except sqlite3.Error:
            return 0
        return int(rows[0][0] or 0)

    def write_calls(self, run_id: int, new: list[JsonObject],
                    changed: list[JsonObject]) -> None:
        """One batch of a run's traced calls (``seq`` as the store numbers
        them), in one transaction: ``new`` ones added, and ``changed`` ones
        (kept before, ended since) written over."""
        if not run_id or not (new or changed):
            return
        added: list[SqlRow] = [
            (run_id, int(c["seq"]), str(c.get("function")), json.dumps(_kept(c), default=str))
            for c in new]
        over: list[SqlRow] = [
            (str(c.get("function")), json.dumps(_kept(c), default=str), run_id, int(c["seq"]))
            for c in changed]
        self._batch([("INSERT INTO calls (run_id, seq, function, data) VALUES (?, ?, ?, ?)",
                      added),
                     ("UPDATE calls SET function = ?, data = ? WHERE run_id = ? AND seq = ?",
                      over)], "the trace is answered but not kept for `dbg calls`")

    def record_samples(self, run_id: int, kind: str, key: str | None,
                       samples: list[tuple[float, JsonObject]]) -> None:
        """One batch of values an op sampled in a run, each (when, what), in
        one transaction; ``kind`` says which op (``history``), ``key`` of what."""
        if not run_id or not samples:
            return
        rows: list[SqlRow] = [(run_id, kind, key, at, json.dumps(_kept(data), default=str))
                              for at, data in samples]
        self._batch([("INSERT INTO samples (run_id, kind, key, at, data)"
                      " VALUES (?, ?, ?, ?, ?)", rows)],
                    f"the {kind} values are answered but not kept")

    def _batch(self, writes: list[tuple[str, list[SqlRow]]], lost: str) -> None:
        """Several writes as one transaction (see :meth:`_written`)."""
        def run() -> None:
            with self.db:  # one transaction: thousands of records are one write
                self.db.execute("BEGIN")
                for sql, params in writes:
                    if params:
                        self.db.executemany(sql, params)
        self._written(run, None, lost)

    def record_stop(self, session_id: int, snapshot: JsonObject,
                    stack: list[JsonObject], run_id: int | None = None) -> None:
        snapshot, stack = _kept(snapshot), _kept(stack)
        loc = snapshot.get("location") or {}
        local_rows = [
            {**v, "value": str(v.get("value", ""))[:MAX_VALUE_CHARS]}
            for v in (snapshot.get("locals") or [])[:MAX_LOCALS]
        ]
        thread = snapshot.get("thread")
        self._write(
            "INSERT INTO stops (session_id, at, state, reason, thread, file, line, function,"
            " exit_code, stack, locals, signal, return_value, run_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id, time.time(), snapshot.get("state"), snapshot.get("reason"),
                None if thread is None else str(thread), loc.get("file"), loc.get("line"),
                loc.get("function"), snapshot.get("exit_code"),
                json.dumps(stack[:MAX_FRAMES]), json.dumps(local_rows), snapshot.get("signal"),
                json.dumps(returned) if (returned := snapshot.get("return_value")) else None,
                run_id,
            ),
        )

    # -- reads (client side) -------------------------------------------------

    def session_row(self, session_id: int) -> JsonObject | None:
        """The ``sessions`` row of a recorded session, by column."""
        rows, names = self._rows("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return dict(zip(names, rows[0], strict=True)) if rows else None

    def replayed(self, run_id: int) -> int | None:
        """The recorded run that run ``run_id`` replays (`dbg replay`), if any."""
        rows, _ = self._rows("SELECT replays FROM runs WHERE id = ?", (run_id,))
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    def run_cwd(self, run_id: int) -> str | None:
        """The folder the session of run ``run_id`` ran its program in."""
        rows, _ = self._rows("SELECT sessions.cwd FROM runs JOIN sessions"
                             " ON sessions.id = runs.session_id WHERE runs.id = ?", (run_id,))
        return str(rows[0][0]) if rows and rows[0][0] is not None else None

    def latest_session_id(self, name: str) -> int | None:
        """The newest debugging session of this name: a profile's record
        (`dbg profile`, backend ``profile``) has no stops to show, and must
        not hide a live session's."""
        rows, _ = self._rows(
            "SELECT id FROM sessions WHERE name = ? AND COALESCE(backend, '') != 'profile'"
            " ORDER BY id DESC LIMIT 1", (name,))
        return int(rows[0][0] or 0) if rows else None

    def runs(self, name: str | None, limit: int = 200,
             run_id: int | None = None, debugged: bool = False) -> list[JsonObject]:
        """Recorded runs, newest last: of the sessions named ``name`` (None:
        all; or the one run ``run_id``), each with its count of stops, traced
        calls and sampled values, and its ``state`` (dbgcore.store.runstate.run_state:
        a run whose end was never written is in progress, or was cut short).
        ``debugged``: only runs under a debugger, not a profiler's (`dbg
        profile`), for what reads stops and traced calls."""
        from dbgcore.store.runstate import run_state

        query = (
            "SELECT runs.id, sessions.name, runs.program, runs.args, runs.started_at,"
            " runs.ended_at, runs.exit_code, runs.signal,"
            " (SELECT COUNT(*) FROM stops WHERE stops.run_id = runs.id),"
            " (SELECT COUNT(*) FROM calls WHERE calls.run_id = runs.id),"
            " (SELECT COUNT(*) FROM samples WHERE samples.run_id = runs.id),"
            " sessions.daemon_pid, sessions.started_at, sessions.ended_at,"
            " (SELECT MAX(later.id) FROM runs AS later"
            "  WHERE later.session_id = runs.session_id) = runs.id"
            " FROM runs JOIN sessions ON sessions.id = runs.session_id")
        params: SqlRow = ()
        if run_id is not None:
            query += " WHERE runs.id = ?"
            params = (run_id,)
        elif name is not None:
            query += " WHERE sessions.name = ?"
            params = (name,)
        if debugged and run_id is None:
            query += (" AND" if name is not None else " WHERE") + \
                " COALESCE(sessions.backend, '') != 'profile'"
        rows, _ = self._rows(f"SELECT * FROM ({query} ORDER BY runs.id DESC LIMIT ?)"
                             " ORDER BY 1", (*params, limit))
        keys = ("id", "session", "program", "args", "started_at", "ended_at", "exit_code",
                "signal", "stops", "calls", "values")
        out = []
        for row in rows:
            item: JsonObject = dict(zip(keys, row[:len(keys)], strict=True))
            item["args"] = json_column(item["args"], "[]")
            pid, session_began, session_ended, latest = row[len(keys):]
            item["state"], item["cut_short"] = run_state(
                item["ended_at"] is not None, bool(latest), session_ended is not None,
                int(pid or 0), float(session_began or 0))
            out.append(item)
        replays = self._replays() if out else {}
        for item in out:
            if int(item["id"]) in replays:
                item["replays"] = replays[int(item["id"])]
        return out

    def _replays(self) -> dict[int, int]:
        """Each replay's run and the run it replays (none in a store from
        before replays, which a reader opening it read-only does not add)."""
        has, _ = self._rows("SELECT name FROM pragma_table_info('runs') WHERE name = 'replays'",
                            ())
        if not has:
            return {}
        rows, _ = self._rows("SELECT id, replays FROM runs WHERE replays IS NOT NULL", ())
        return {int(str(a)): int(str(b)) for a, b in rows}

    def samples(self, run_id: int, kind: str, key: str | None = None) -> list[JsonObject]:
        """The values an op of ``kind`` sampled in a run (of ``key``), in
        the order they were taken, each with its time (``at``)."""
        query = "SELECT at, data FROM samples WHERE run_id = ? AND kind = ?"
        params: SqlRow = (run_id, kind)
        if key is not None:
            query += " AND key = ?"
            params = (*params, key)
        rows, _ = self._rows(query + " ORDER BY id", params)
        out = []
        for at, data in rows:
            value = json_column(data, "null")
            if isinstance(value, dict):
                out.append({**value, "at": at})
        return out

    def calls(self, run_id: int, function: str | None = None) -> list[JsonObject]:
        """A run's traced calls (CallRecord dicts) in the order they were
        entered; ``function``: only those of that name."""
        query = "SELECT data FROM calls WHERE run_id = ?"
        params: SqlRow = (run_id,)
        if function is not None:
            query += " AND function = ?"
            params = (run_id, function)
        rows, _ = self._rows(query + " ORDER BY seq", params)
        out = []
        for (data,) in rows:
            value = json_column(data, "null")
            if isinstance(value, dict):
                out.append(value)
        return out

    def commands(self, session_id: int) -> list[JsonObject]:
        rows, _ = self._rows(
            "SELECT at, op, args, ok, result, by FROM commands WHERE session_id = ? ORDER BY id",
            (session_id,))
        return [
            {"at": at, "op": op, "args": json_column(args, "{}"), "ok": bool(ok),
             "result": json_column(result, "{}"), "by": by}
            for at, op, args, ok, result, by in rows
        ]
