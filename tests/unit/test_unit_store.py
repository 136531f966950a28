"""The session store: real SQLite files, a second connection, a writer that
is killed outright, and the caps on what one record may hold."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dbgcore.store import db as store_module
from dbgcore.store.db import Store


def snapshot(line: int, **extra: Any) -> dict[str, Any]:
    return {
        "state": "stopped", "reason": "breakpoint", "thread": 1,
        "location": {"file": "/src/cart.py", "line": line, "function": "total"},
        "exit_code": None,
        "locals": [{"name": "total", "value": "0", "type": "int"}],
        **extra,
    }


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    s = Store(db_path)
    yield s
    s.close()


def test_records_sessions_commands_and_stops(store: Store) -> None:
    sid = store.open_session("default", "pdb", "pdb", "3.11", "/src/cart.py", ["-v"], "/src")
    store.record_command(sid, "break", {"location": "cart.py:14"}, True, {"breakpoint": {"id": 1}})
    store.record_command(sid, "print", {"expression": "nope"}, False, {"error": "NameError"})
    store.record_stop(sid, snapshot(14), [{"index": 0, "function": "total", "file": "/src/cart.py",
                                           "line": 14}])
    store.record_stop(sid, {"state": "exited", "exit_code": 3, "location": None}, [])

    assert store.latest_session_id("default") == sid
    assert store.latest_session_id("other") is None
    commands = store.commands(sid)
    assert [(c["op"], c["ok"]) for c in commands] == [("break", True), ("print", False)]
    assert commands[0]["args"] == {"location": "cart.py:14"}
    assert commands[0]["result"] == {"breakpoint": {"id": 1}}

    hits = store.hits(sid)
    assert [(h["state"], h["line"], h["exit_code"]) for h in hits] == [
        ("stopped", 14, None), ("exited", None, 3)]
    first = hits[0]
    assert (first["session"], first["reason"], first["thread"], first["file"],
            first["function"]) == ("default", "breakpoint", "1", "/src/cart.py", "total")
    assert first["stack"][0]["function"] == "total"
    assert first["locals"] == [{"name": "total", "value": "0", "type": "int"}]

    store.end_session(sid)
    ended = store.db.execute("SELECT ended_at FROM sessions WHERE id = ?", (sid,)).fetchone()
    assert ended[0] is not None


def test_a_command_keeps_who_sent_it_and_an_older_store_gets_the_column(db_path: Path) -> None:
    old = sqlite3.connect(db_path)
    # A store from before the `by` column: its commands table without it.
    old.executescript("CREATE TABLE commands (id INTEGER PRIMARY KEY, session_id INTEGER NOT "
                      "NULL, at REAL NOT NULL, op TEXT NOT NULL, args TEXT, ok INTEGER NOT "
                      "NULL, result TEXT);")
    old.close()
    store = Store(db_path)
    try:
        sid = store.open_session("agent", "pdb", "pdb", "3.11", "/src/cart.py", [], "/src")
        store.record_command(sid, "next", {}, True, {})
        store.record_command(sid, "stack", {}, True, {}, by="dap client vscode (pid 7)")
        assert [(c["op"], c["by"]) for c in store.commands(sid)] == [
            ("next", None), ("stack", "dap client vscode (pid 7)")]
        assert store.last_stop_id(sid) == 0
        store.record_stop(sid, snapshot(14), [])
        newest = store.last_stop_id(sid)
        row = store.stop_row(newest)
        assert row is not None and (row["state"], row["line"], row["reason"]) == (
            "stopped", 14, "breakpoint")
    finally:
        store.close()


def test_hits_by_session_and_by_name(store: Store) -> None:
    first = store.open_session("a", "pdb", "pdb", "", "p.py", [], "/")
    store.record_stop(first, snapshot(1), [])
    second = store.open_session("a", "pdb", "pdb", "", "p.py", [], "/")
    store.record_stop(second, snapshot(2), [])
    other = store.open_session("b", "pdb", "pdb", "", "p.py", [], "/")
    store.record_stop(other, snapshot(3), [])
    assert store.latest_session_id("a") == second
    assert [h["line"] for h in store.hits(second)] == [2]
    assert [h["line"] for h in store.hits(None, name="a")] == [1, 2]
    assert [h["line"] for h in store.hits(None)] == [1, 2, 3]
    assert [h["line"] for h in store.hits(None, limit=2)] == [1, 2]


def test_second_connection_sees_rows_at_once(store: Store, db_path: Path) -> None:
    sid = store.open_session("default", "pdb", "pdb", "", "p.py", [], "/")
    store.record_stop(sid, snapshot(7), [])
    # The writer is neither closed nor told to commit: each write is committed already.
    reader = Store(db_path)
    try:
        assert [h["line"] for h in reader.hits(sid)] == [7]
        store.record_stop(sid, snapshot(8), [])
        assert [h["line"] for h in reader.hits(sid)] == [7, 8]
    finally:
        reader.close()


def test_stops_survive_a_writer_killed_outright(db_path: Path) -> None:
    writer = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        from dbgcore.store.db import Store
        store = Store(Path({str(db_path)!r}))
        sid = store.open_session("crashy", "pdb", "pdb", "", "p.py", [], "/")
        store.record_command(sid, "continue", {{}}, True, {{"state": "stopped"}})
        store.record_stop(sid, {{"state": "stopped", "reason": "step",
                                 "location": {{"file": "p.py", "line": 5}}}}, [])
        sys.stdout.write("recorded\\n")
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", writer], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert proc.stdout == "recorded\n"

    survivor = Store(db_path)
    try:
        sid = survivor.latest_session_id("crashy")
        assert sid is not None
        assert [(h["reason"], h["line"]) for h in survivor.hits(sid)] == [("step", 5)]
        assert [c["op"] for c in survivor.commands(sid)] == ["continue"]
    finally:
        survivor.close()


def test_two_processes_write_side_by_side(db_path: Path) -> None:
    Store(db_path).close()
    writer = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from dbgcore.store.db import Store
        store = Store(Path({str(db_path)!r}))
        sid = store.open_session(sys.argv[1], "pdb", "pdb", "", "p.py", [], "/")
        for i in range(150):
            store.record_command(sid, "step", {{"i": i}}, True, {{}})
        store.close()
    """)
    procs = [subprocess.Popen([sys.executable, "-c", writer, name], stderr=subprocess.PIPE)
             for name in ("one", "two")]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    store = Store(db_path)
    try:
        for name in ("one", "two"):
            sid = store.latest_session_id(name)
            assert sid is not None
            assert [c["args"]["i"] for c in store.commands(sid)] == list(range(150))
    finally:
        store.close()


def test_wal_mode(store: Store, db_path: Path) -> None:
    store.open_session("default", "pdb", "pdb", "", "p.py", [], "/")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # WAL is a property of the file: a plain sqlite3 connection sees it too.
    plain = sqlite3.connect(db_path)
    try:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        plain.close()
    assert Path(f"{db_path}-wal").exists()


def test_files_are_private_even_with_a_permissive_umask(tmp_path: Path) -> None:
    path = tmp_path / "open.sqlite3"
    old = os.umask(0)
    try:
        s = Store(path)
        s.open_session("default", "pdb", "pdb", "", "p.py", [], "/")
        for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            assert stat.S_IMODE(name.stat().st_mode) == 0o600, name
        s.close()
    finally:
        os.umask(old)


def test_store_lives_under_dbg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "dbg-home"
    monkeypatch.setenv("DBG_HOME", str(home))
    s = Store()
    try:
        assert s.path == home / "store.sqlite3"
        assert s.path.exists()
        assert stat.S_IMODE(home.stat().st_mode) == 0o700
    finally:
        s.close()


def test_caps_on_locals_values_frames_and_results(store: Store) -> None:
    sid = store.open_session("default", "pdb", "pdb", "", "p.py", [], "/")
    many = [{"name": f"v{i}", "value": "x" * 5000, "type": "str"} for i in range(200)]
    frames = [{"index": i, "function": "f", "file": "p.py", "line": i + 1} for i in range(500)]
    store.record_stop(sid, snapshot(1, locals=many), frames)
    (hit,) = store.hits(sid)
    assert len(hit["locals"]) == store_module.MAX_LOCALS
    assert [v["name"] for v in hit["locals"]] == [f"v{i}" for i in range(store_module.MAX_LOCALS)]
    assert all(len(v["value"]) == store_module.MAX_VALUE_CHARS for v in hit["locals"])
    assert len(hit["stack"]) == store_module.MAX_FRAMES
    assert hit["stack"][0]["index"] == 0

    store.record_command(sid, "print", {}, True, {"value": "y" * 100_000})
    (command,) = store.commands(sid)
    assert command["result"]["truncated"] is True
    assert len(command["result"]["head"]) == store_module.MAX_RESULT_CHARS
