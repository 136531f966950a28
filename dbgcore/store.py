"""The session store: every session, command and stop, in SQLite (WAL).

Each write commits at once, so a daemon that dies loses nothing it had already
recorded; what an op records while the program runs (a trace's calls, `history
--at`'s values in ``samples``) comes in batches, each one transaction, from a
writer thread (dbgcore.recording), so a lock keeps the connection to one use
at a time. Several daemons share one database file; WAL mode and a busy
timeout let them write side by side while clients read.

Damage is never passed over in silence. A store that SQLite cannot read (not
a database, a page that does not add up, a directory in its place), or that
is smaller than at its last check that passed (emptied, cut short: SQLite
would take an empty file for a new store), found on open (``PRAGMA
quick_check``, whenever the file changed since the last check) or by any read
or write later, is moved aside with its -wal and -shm, a fresh one records
from then on, the answer of the op that found it carries a note, and
``store-set-aside.jsonl`` beside it keeps telling every op that opens the
store (a note each time, :func:`standing_note`) and `dbg doctor` (which then
fails) until the user clears it (`dbg doctor --fix`, or deleting the copy).
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

from dbgcore.homecheck import open_file, open_log, write_file
from dbgcore.jsontypes import Json, JsonObject
from dbgcore.paths import store_path, untrusted

#: A value sqlite3 stores and gives back (the types it maps to SQL's).
SqlValue = int | float | str | bytes | None
#: A query's parameters, or a row it reads.
SqlRow = tuple[SqlValue, ...]
_T = TypeVar("_T")


def _json_column(value: SqlValue, empty: str) -> Json:
    """A column that holds JSON text (NULL or empty: ``empty``'s value)."""
    return json.loads(value if isinstance(value, (str, bytes)) and value else empty)

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
"""

#: Columns of `stops` added since the first schema, with their types.
_ADDED_STOP_COLUMNS = {"signal": "TEXT", "return_value": "TEXT", "run_id": "INTEGER"}
#: The writes whose first (INSERT) or last (UPDATE) parameter is a session id.
_BY_SESSION = ("INSERT INTO stops", "INSERT INTO commands", "INSERT INTO runs",
               "UPDATE sessions")

#: Caps on what one record may hold, so a huge value cannot bloat the store.
MAX_RESULT_CHARS = 20_000
MAX_LOCALS = 50
MAX_VALUE_CHARS = 500
MAX_FRAMES = 64


def keep_aside(path: Path, why: str) -> Path:
    """Move a store that cannot be used, with its -wal and -shm files, to
    ``PATH.WHY-TIME`` (a fresh one is made in its place); returns where."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{why}-{stamp}")
    number = 1
    while os.path.lexists(aside):  # two in one second: never over an earlier copy
        number += 1
        aside = path.with_name(f"{path.name}.{why}-{stamp}.{number}")
    # The main file last: a process that opens the store meanwhile finds the
    # damaged file without its WAL, never a fresh file beside the old WAL.
    for suffix in ("-wal", "-shm", ""):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    # The stamp of the last check was the damaged file's: the fresh one has none.
    with contextlib.suppress(OSError):
        _checked_file(path).unlink()
    return aside


#: SQLite's result codes for a file that is not (or no longer) a sound database.
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
#: The same, as Python 3.10 words them (it has no ``sqlite_errorcode``).
_DAMAGE_WORDS = ("malformed", "not a database", "disk image", "database corrupt")


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database file itself is damaged (not busy,
    not a full disk, not a permission)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    return any(word in str(exc).lower() for word in _DAMAGE_WORDS)


class StoreDamaged(Exception):
    """The store failed its check, or is not a file: why."""


def set_aside_log(path: Path) -> Path:
    """Where the stores set aside are told of until the user clears them."""
    return path.with_name("store-set-aside.jsonl")


def _lock_file(path: Path) -> Path:
    return path.with_name(".store-aside.lock")


def set_aside(path: Path, why: str, detail: str, by: str,
              found: tuple[int, int] | None = None) -> Path:
    """Move the store aside and leave word of it for `dbg doctor`; where it
    went. With ``found`` (the device and inode of the file found damaged),
    a store another process has set aside meanwhile is left alone (the fresh
    one in its place is not the damaged one): where that one went instead."""
    import fcntl

    fd = open_file(str(_lock_file(path)), os.O_WRONLY | os.O_CREAT)
    try:
        # Two processes that find the same damage at once: one moves it.
        fcntl.flock(fd, fcntl.LOCK_EX)
        if found is not None and _identity(path) != found:
            earlier = stores_set_aside(path)
            return Path(str(earlier[-1]["aside"])) if earlier else path
        aside = keep_aside(path, why)
        entry = {"aside": str(aside), "why": why, "detail": detail[:300], "by": by,
                 "at": time.time()}
        log = open_log(str(set_aside_log(path)))
        try:
            os.write(log, (json.dumps(entry) + "\n").encode())
        finally:
            os.close(log)
        return aside
    finally:
        os.close(fd)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def stores_set_aside(path: Path) -> list[JsonObject]:
    """The stores set aside and not cleared yet: told of in the log, and
    still there (a copy the user deleted is cleared)."""
    try:
        lines = set_aside_log(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        with contextlib.suppress(ValueError, TypeError):
            entry = json.loads(line)
            if isinstance(entry, dict) and os.path.lexists(str(entry.get("aside"))):
                out.append(entry)
    return out


def clear_set_aside(path: Path) -> None:
    """The user has heard: `dbg doctor` stops failing on the stores set aside
    (their copies stay until the user deletes them)."""
    with contextlib.suppress(FileNotFoundError):
        set_aside_log(path).unlink()


def standing_note(path: Path, told: str = "") -> str | None:
    """One line on the stores set aside and not acknowledged yet, for every
    answer that reads the store until `dbg doctor --fix` (what they held is
    missing from it meanwhile); None when there are none, or when ``told``
    (what the op says already) names the latest."""
    entries = stores_set_aside(path)
    if not entries:
        return None
    latest = entries[-1]
    if str(latest.get("aside")) in told:
        return None
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(latest.get("at") or 0)))
    what = "locked past the timeout" if latest.get("why") == "locked" else "damaged"
    more = f" (and {len(entries) - 1} earlier)" if len(entries) > 1 else ""
    return (f"the session store was {what}{more} ({latest.get('detail')}; found by "
            f"{latest.get('by')} at {when}): what it held is kept at {latest.get('aside')} and "
            "is missing here; a fresh one records since (`dbg doctor --fix` once you have "
            "looked)")


def shrunk(path: Path) -> str | None:
    """Why the store file is damaged if it is smaller than at its last check
    that passed, the same file (emptied, cut short): SQLite never makes a
    store smaller without VACUUM, which dbg never runs. None: it is not."""
    try:
        stamp = _checked_file(path).read_text(encoding="utf-8").split(":")
        info = os.stat(path)
        device, inode, size = int(stamp[0]), int(stamp[1]), int(stamp[2])
    except (OSError, ValueError, IndexError):
        return None
    if (info.st_dev, info.st_ino) != (device, inode) or info.st_size >= size:
        return None
    held = f"where a store of {size:,} bytes was"
    if info.st_size == 0:
        return f"emptied: 0 bytes {held}"
    return f"cut short: {info.st_size:,} bytes {held}"


def _check_stamp(path: Path) -> str:
    """What identifies the store file's content for the check: device,
    inode, size and modification time (SQLite writes the main file only when
    a checkpoint copies the WAL in, and damage made by anyone else changes
    it too)."""
    info = os.stat(path)
    return f"{info.st_dev}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"


def _checked_file(path: Path) -> Path:
    return path.with_name(".store-checked")


def quick_check(db: sqlite3.Connection, path: Path) -> None:
    """``PRAGMA quick_check`` on the store, unless the file is as it was at
    the last check that passed; raises StoreDamaged with SQLite's findings.
    (About 7 ms for 5,000 stops, 50 ms for 50,000 in a 65 MB store, warm.)"""
    stamp = _check_stamp(path)
    marker = _checked_file(path)
    with contextlib.suppress(OSError):
        if marker.read_text(encoding="utf-8") == stamp:
            return
    verdict = [str(row[0]) for row in db.execute("PRAGMA quick_check(20)")]
    if verdict != ["ok"]:
        # One line for a note: SQLite heads its findings with the schema name.
        found = " ".join(" ".join(verdict).replace("*** in database main ***", "").split())
        raise StoreDamaged(found[:200])
    _stamp_checked(path, stamp)


def _stamp_checked(path: Path, stamp: str) -> None:
    """Keep ``stamp`` as the store's last check that passed (also what
    :func:`shrunk` measures it against)."""
    marker = _checked_file(path)
    with contextlib.suppress(OSError):
        write_file(str(marker), stamp.encode("utf-8"),
                   str(marker.with_name(f"{marker.name}.{os.getpid()}")))


def damage_note(detail: str, aside: Path) -> str:
    return (f"the session store was damaged and could not be used ({detail}); it is kept at "
            f"{aside}, and a fresh one records from now on (`dbg doctor` reports it until "
            "`dbg doctor --fix`)")


def shifted_call(call: JsonObject, base: int) -> JsonObject:
    """A trace's call (numbered from 1) numbered after the ``base`` calls
    its run had before the trace."""
    return {**call, "seq": int(call["seq"]) + base,
            "parent": None if call.get("parent") is None else int(call["parent"]) + base}


_INSERT_SESSION = (
    "INSERT INTO sessions (name, backend, tool, version, program, args, cwd, daemon_pid,"
    " started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")


class Store:
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
        #: writes batches while the op's thread records (see dbgcore.recording).
        self._lock = threading.RLock()
        self._open_checked()
        note = standing_note(self.path, " ".join(self.notes))
        if note is not None:
            self.notes.append(note)

    def _open_checked(self) -> None:
        """Open the store, checking it first; a damaged one is set aside and
        a fresh one opened (told in a note)."""
        for _ in range(3):  # a fresh file may be damaged by someone else at once
            found = _identity(self.path)
            if found is None and self.readonly:
                self._in_memory()  # nothing recorded yet
                return
            if found is None:
                # Deleted by the user: what the check knew was of that file.
                with contextlib.suppress(OSError):
                    _checked_file(self.path).unlink()
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
                    _stamp_checked(self.path, _check_stamp(self.path))
                self._opened = _identity(self.path)
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
        for column, kind in _ADDED_STOP_COLUMNS.items():
            self.db.execute(f"ALTER TABLE stops ADD COLUMN {column} {kind}")
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
        have = {row[1] for row in self.db.execute("PRAGMA table_info(stops)")}
        for column, kind in _ADDED_STOP_COLUMNS.items():
            if column not in have:
                try:
                    self.db.execute(f"ALTER TABLE stops ADD COLUMN {column} {kind}")
                except sqlite3.OperationalError:
                    pass  # another daemon added it first

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
        if self._opened is not None and _identity(self.path) != self._opened:
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
                       result: JsonObject) -> None:
        text = json.dumps(result, default=str)
        if len(text) > MAX_RESULT_CHARS:
            text = json.dumps({"truncated": True, "head": text[:MAX_RESULT_CHARS]})
        self._write(
            "INSERT INTO commands (session_id, at, op, args, ok, result) VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, time.time(), op, json.dumps(args, default=str), int(ok), text),
        )

    def open_run(self, session_id: int, program: str, args: list[str]) -> int:
        """A run of the program begins in a session: its id (0: not recorded)."""
        return self._write("INSERT INTO runs (session_id, started_at, program, args)"
                           " VALUES (?, ?, ?, ?)",
                           (session_id, time.time(), program, json.dumps(args)))

    def end_run(self, run_id: int, exit_code: int | None, signal: str | None) -> None:
        self._write("UPDATE runs SET ended_at = ?, exit_code = ?, signal = ? WHERE id = ?",
                    (time.time(), exit_code, signal, run_id))

    def record_calls(self, run_id: int, calls: list[JsonObject]) -> int:
        """Add `dbg trace`'s records to a run at once, numbered after those
        it has; returns the number the first one got (a trace in progress
        writes them as they come instead: dbgcore.recording.StoredCalls)."""
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
            (run_id, int(c["seq"]), str(c.get("function")), json.dumps(c, default=str))
            for c in new]
        over: list[SqlRow] = [
            (str(c.get("function")), json.dumps(c, default=str), run_id, int(c["seq"]))
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
        rows: list[SqlRow] = [(run_id, kind, key, at, json.dumps(data, default=str))
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

    def latest_session_id(self, name: str) -> int | None:
        rows, _ = self._rows(
            "SELECT id FROM sessions WHERE name = ? ORDER BY id DESC LIMIT 1", (name,))
        return int(rows[0][0] or 0) if rows else None

    def runs(self, name: str | None, limit: int = 200,
             run_id: int | None = None) -> list[JsonObject]:
        """Recorded runs, newest last: of the sessions named ``name`` (None:
        all; or the one run ``run_id``), each with its count of stops, traced
        calls and sampled values, and its ``state`` (dbgcore.runstate.run_state:
        a run whose end was never written is in progress, or was cut short)."""
        from dbgcore.runstate import run_state

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
        rows, _ = self._rows(f"SELECT * FROM ({query} ORDER BY runs.id DESC LIMIT ?)"
                             " ORDER BY 1", (*params, limit))
        keys = ("id", "session", "program", "args", "started_at", "ended_at", "exit_code",
                "signal", "stops", "calls", "values")
        out = []
        for row in rows:
            item: JsonObject = dict(zip(keys, row[:len(keys)], strict=True))
            item["args"] = _json_column(item["args"], "[]")
            pid, session_began, session_ended, latest = row[len(keys):]
            item["state"], item["cut_short"] = run_state(
                item["ended_at"] is not None, bool(latest), session_ended is not None,
                int(pid or 0), float(session_began or 0))
            out.append(item)
        return out

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
            value = _json_column(data, "null")
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
            value = _json_column(data, "null")
            if isinstance(value, dict):
                out.append(value)
        return out

    def hits(self, session_id: int | None, name: str | None = None,
             limit: int = 200, run_id: int | None = None) -> list[JsonObject]:
        query = (
            "SELECT stops.id, stops.at, sessions.name, stops.state, stops.reason, stops.thread,"
            " stops.file, stops.line, stops.function, stops.exit_code, stops.stack, stops.locals,"
            " stops.signal, stops.return_value, stops.run_id"
            " FROM stops JOIN sessions ON sessions.id = stops.session_id"
        )
        params: SqlRow = ()
        if run_id is not None:
            query += " WHERE stops.run_id = ?"
            params = (run_id,)
        elif session_id is not None:
            query += " WHERE stops.session_id = ?"
            params = (session_id,)
        elif name is not None:
            query += " WHERE sessions.name = ?"
            params = (name,)
        query += " ORDER BY stops.id LIMIT ?"
        rows, _ = self._rows(query, (*params, limit))
        keys = ("id", "at", "session", "state", "reason", "thread", "file", "line", "function",
                "exit_code", "stack", "locals", "signal", "return_value", "run")
        out = []
        for row in rows:
            item: JsonObject = dict(zip(keys, row, strict=True))
            item["stack"] = _json_column(item["stack"], "[]")
            item["locals"] = _json_column(item["locals"], "[]")
            item["return_value"] = _json_column(item["return_value"], "null")
            out.append(item)
        return out

    def commands(self, session_id: int) -> list[JsonObject]:
        rows, _ = self._rows(
            "SELECT at, op, args, ok, result FROM commands WHERE session_id = ? ORDER BY id",
            (session_id,))
        return [
            {"at": at, "op": op, "args": _json_column(args, "{}"), "ok": bool(ok),
             "result": _json_column(result, "{}")}
            for at, op, args, ok, result in rows
        ]
