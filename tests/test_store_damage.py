"""A damaged session store is always told: whichever op finds it first says
so, keeps the damaged copy aside, and `dbg doctor` fails until `doctor --fix`
acknowledges it; until then every op that reads the store says so too, each
time (what the copy held is missing from its answers), an emptied store as
much as one SQLite finds unreadable. And what a daemon killed with SIGKILL leaves in its session
folder (FIFOs, its socket, its status file) goes at the next start of that
name, or at `dbg doctor --fix`."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import stat
import tarfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.shared import procutil
from dbgcore.store.db import Store
from dbgcore.testing import dbg_in

if TYPE_CHECKING:
    from conftest import Dbg

pytestmark = pytest.mark.usefixtures("pdb_ready")

#: Enough stops that 200 KB in the middle of the store is inside its tables.
STOPS = 5000


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DBG_HOME with a session recorded by a real pdb session, and
    thousands of stops more (written the way a daemon writes them); the
    store checkpointed into one file."""
    base = tmp_path_factory.mktemp("recorded")
    with dbg_in(base) as dbg:
        program = count_program(dbg)
        assert dbg.json("start", "--backend", "pdb", str(program))["ok"]
        assert dbg.json("next")["ok"]
        assert dbg.json("kill")["ok"]
        store = Store(dbg.home / "store.sqlite3")
        sid = store.latest_session_id("default")
        assert sid is not None
        for i in range(STOPS):
            store.record_stop(sid, {"state": "stopped", "reason": "breakpoint",
                                    "location": {"file": str(program), "line": 3,
                                                 "function": "<module>"},
                                    "locals": [{"name": "i", "value": str(i)}]},
                              [{"file": str(program), "line": 3, "function": "<module>"}])
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        return dbg.home


def count_program(dbg: Dbg) -> Path:
    program = dbg.cwd / "count.py"
    program.write_text("total = 0\nfor i in range(3):\n    total += i\nprint(total)\n")
    return program


def damage(store: Path, how: str) -> None:
    for extra in ("-wal", "-shm"):
        Path(f"{store}{extra}").unlink(missing_ok=True)
    size = store.stat().st_size
    rng = random.Random(20)
    if how == "emptied":  # `: > store.sqlite3`: SQLite would take it for a new store
        store.open("wb").close()
    elif how == "first page only":  # a sound header, the rest gone
        with store.open("r+b") as fh:
            fh.truncate(4096)
    elif how == "zeroed":
        with store.open("r+b") as fh:
            fh.write(bytes(size))
    elif how == "fifo":
        store.unlink()
        os.mkfifo(store, 0o600)
    elif how == "truncated":
        with store.open("r+b") as fh:
            fh.truncate(size // 3)
    elif how == "random header":
        with store.open("r+b") as fh:
            fh.write(rng.randbytes(4096))
    elif how == "directory":
        store.unlink()
        store.mkdir()
    elif how == "random middle":
        assert size > 600_000, size
        with store.open("r+b") as fh:
            fh.seek(size // 2 - 100_000)
            fh.write(rng.randbytes(200_000))
    else:
        raise AssertionError(how)


def copy_home(source: Path, dbg: Dbg) -> None:
    """The recorded home, as a home in use has it: its store checked (and
    stamped) by the last op that opened it."""
    shutil.copytree(source, dbg.home, dirs_exist_ok=True)
    (dbg.home / ".store-checked").unlink(missing_ok=True)
    Store(dbg.home / "store.sqlite3").close()


def kept_aside(home: Path) -> list[Path]:
    return [p for p in home.glob("store.sqlite3.damaged-*")
            if not p.name.endswith(("-wal", "-shm"))]


def checks(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["check"]: c for c in answer["checks"]}


DAMAGE = ["truncated", "random header", "directory", "random middle"]
#: Every kind of damage the store is checked for: the four above, and those
#: SQLite alone would not find (an emptied file is a new store to it).
ALL_DAMAGE = [*DAMAGE, "emptied", "first page only", "zeroed", "fifo"]


@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.parametrize("first", ["hits", "start", "report"])
def test_the_first_op_to_find_damage_says_so_and_doctor_fails_until_fix(
        dbg: Dbg, recorded: Path, tmp_path: Path, how: str, first: str) -> None:
    copy_home(recorded, dbg)
    store = dbg.home / "store.sqlite3"
    damage(store, how)
    program = count_program(dbg)
    if first == "hits":
        answer = dbg.json("hits")
        text = dbg("hits")  # the text form of the next one: told again, in one line
        assert text.code == 0, text
        told = [ln for ln in text.out.splitlines() if ln.startswith("note:")]
        assert len(told) == 1 and "session store was damaged" in told[0], text
    elif first == "start":
        answer = dbg.json("start", "--backend", "pdb", str(program))
    else:
        out = tmp_path / "reports"
        out.mkdir()
        answer = dbg.json("report", "--output", str(out))
    assert answer["ok"] and answer["_exit"] == 0, answer
    note = answer.get("note") or ""
    assert "session store was damaged" in note and "dbg doctor" in note, answer
    kept = kept_aside(dbg.home)
    assert len(kept) == 1 and str(kept[0]) in note, (kept, note)
    if how == "directory":
        assert kept[0].is_dir()
    else:
        assert kept[0].stat().st_size > 0  # the damaged copy, as it was
    if first == "report":
        with tarfile.open(answer["path"]) as tar:
            readme = next(m for m in tar.getmembers() if m.name.endswith("README.txt"))
            assert "damaged" in tar.extractfile(readme).read().decode()  # type: ignore[union-attr]

    doctor = dbg("doctor")
    assert doctor.code == 1, doctor
    line = next(ln for ln in doctor.out.splitlines() if "store set aside" in ln)
    assert line.startswith("FAIL") and str(kept[0]) in line and "doctor --fix" in line, line
    assert "ok   store:" in doctor.out  # the fresh store in its place is sound
    fixed = dbg("doctor", "--fix")
    assert fixed.code == 0 and "acknowledged" in fixed.out, fixed
    assert dbg("doctor").code == 0
    assert kept_aside(dbg.home) == kept  # acknowledged, not deleted

    # The fresh store records again.
    if first != "start":
        assert dbg.json("start", "--backend", "pdb", str(program))["ok"]
    assert dbg.json("next")["ok"]
    assert len(dbg.json("hits")["hits"]) == 2


#: The ops that read the store, as a user asks them.
READERS: dict[str, tuple[str, ...]] = {
    "hits": ("hits",), "runs": ("runs",), "calls": ("calls",),
    "history": ("history", "total"), "report": ("report",), "doctor": ("doctor",)}


def told(answer: dict[str, Any]) -> str:
    """What an answer says besides its rows: its note, or its error's words."""
    error = answer.get("error") or {}
    return f"{answer.get('note') or ''} {error.get('message') or ''}"


def read(dbg: Dbg, op: str, out: Path) -> dict[str, Any]:
    args = READERS[op] + (("--output", str(out)) if op == "report" else ())
    return dbg.json(*args)


@pytest.mark.parametrize("op", list(READERS))
@pytest.mark.parametrize("how", ALL_DAMAGE)
def test_every_read_tells_the_damage_until_doctor_fix(
        dbg: Dbg, recorded: Path, tmp_path: Path, how: str, op: str) -> None:
    copy_home(recorded, dbg)
    before = read(dbg, op, tmp_path)
    assert "damaged" not in told(before), before
    damage(dbg.home / "store.sqlite3", how)
    answers = [read(dbg, op, tmp_path) for _ in range(3)]
    kept = kept_aside(dbg.home)
    if op == "doctor":
        # It changes nothing without --fix: the damaged store stays, told each time.
        assert kept == []
        for answer in answers:
            assert answer["_exit"] == 1 and "store" in answer["failed"], answer
            assert "damaged" in checks(answer)["store"]["detail"], answer
    else:
        assert len(kept) == 1, kept
        for answer in answers:  # each time, not only the first that found it
            words = told(answer)
            assert "session store was damaged" in words and str(kept[0]) in words, answer
            assert words.count("session store was") == 1, words  # one note, not two
        # The answer is otherwise the op's own: rows (none: they are in the copy) or
        # the error it gives when there is no run.
        shapes = {"hits": "hits", "runs": "runs", "report": "path"}
        for answer in answers:
            if op in shapes:
                assert answer["ok"] and shapes[op] in answer, answer
            else:
                assert answer["error"]["kind"] == "failed", answer
                assert answer["error"]["message"].startswith("no recorded run"), answer
        assert dbg("doctor").code == 1
    fixed = dbg.json("doctor", "--fix")
    assert fixed["_exit"] == 0, fixed
    assert dbg.json("doctor")["_exit"] == 0
    after = read(dbg, op, tmp_path)
    assert "damaged" not in told(after), after


def test_damage_under_a_live_session_is_told_by_every_read_while_it_records_on(
        dbg: Dbg, recorded: Path, tmp_path: Path) -> None:
    copy_home(recorded, dbg)
    program = count_program(dbg)
    assert dbg.json("start", "--backend", "pdb", str(program))["ok"]
    store = dbg.home / "store.sqlite3"
    store.open("wb").close()  # emptied under the daemon
    first = dbg.json("hits")
    kept = kept_aside(dbg.home)
    assert len(kept) == 1 and str(kept[0]) in told(first), first
    for _ in range(2):
        for op in ("runs", "calls", "history", "hits", "report"):
            answer = read(dbg, op, tmp_path)
            assert str(kept[0]) in told(answer), (op, answer)
        assert dbg.json("next")["ok"]  # the session goes on, recording in the fresh store
    assert dbg.json("hits")["total"] == 2
    assert dbg("doctor").code == 1


@pytest.mark.parametrize("how", DAMAGE)
def test_doctor_finding_damage_first_fails_and_fix_moves_it_aside(
        dbg: Dbg, recorded: Path, how: str) -> None:
    copy_home(recorded, dbg)
    damage(dbg.home / "store.sqlite3", how)
    answer = dbg.json("doctor")
    assert answer["_exit"] == 1 and answer["failed"] == ["store"], answer
    assert kept_aside(dbg.home) == []  # doctor without --fix changes nothing
    fixed = dbg.json("doctor", "--fix")
    assert fixed["_exit"] == 0, fixed
    kept = kept_aside(dbg.home)
    assert len(kept) == 1 and str(kept[0]) in checks(fixed)["store"]["detail"]
    assert dbg.json("doctor")["_exit"] == 0
    assert dbg.json("hits")["hits"] == [] and "note" not in dbg.json("hits")


def test_damage_made_under_a_live_session_is_found_and_it_records_on(
        dbg: Dbg, recorded: Path) -> None:
    copy_home(recorded, dbg)
    program = count_program(dbg)
    assert dbg.json("start", "--backend", "pdb", str(program))["ok"]
    before = dbg.json("hits")
    assert before["total"] == 1 and "note" not in before, before
    store = dbg.home / "store.sqlite3"
    db = sqlite3.connect(store)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with store.open("r+b") as fh:  # the daemon holds it open meanwhile
        fh.seek(store.stat().st_size // 2 - 100_000)
        fh.write(random.Random(3).randbytes(200_000))
    found = dbg.json("hits")
    assert "session store was damaged" in found.get("note", ""), found
    # The daemon follows the store to its fresh file, and its stops are there.
    assert dbg.json("next")["ok"]
    after = dbg.json("hits")
    assert after["total"] == 1 and after["hits"][0]["line"] == 2, after
    assert dbg("doctor").code == 1


def test_quick_check_runs_only_when_the_store_changed(recorded: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(recorded, home)
    path = home / "store.sqlite3"
    marker = home / ".store-checked"
    marker.unlink(missing_ok=True)
    Store(path).close()
    assert marker.exists()
    # A check that passed writes its marker anew (a new file, os.replace'd
    # in); one that did not run leaves it as it was. (Measured: ~25 ms
    # checked, ~1 ms not, for 5,000 stops, 1.4 MB: not asserted, it is time.)
    first = marker.stat().st_ino
    Store(path).close()
    assert marker.stat().st_ino == first  # unchanged: not checked again
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
    Store(path).close()
    assert marker.stat().st_ino != first  # changed: checked again


def daemon_killed(dbg: Dbg, program: Path) -> tuple[dict[str, Any], list[Path]]:
    """Start a session, kill its daemon with SIGKILL; its status and the
    runtime files it left."""
    assert dbg.json("start", "--backend", "pdb", str(program))["ok"]
    folder = dbg.home / "sessions" / "default"
    status = json.loads((folder / "status.json").read_text())
    os.kill(status["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while procutil.alive(status["pid"], status.get("start_time")) and \
            time.monotonic() < deadline:
        time.sleep(0.02)
    left = [p for p in folder.iterdir()
            if stat.S_ISFIFO(p.lstat().st_mode) or stat.S_ISSOCK(p.lstat().st_mode)]
    assert any(p.name.endswith("-stdin.fifo") for p in left), left
    assert any(p.name.endswith("-stdout.fifo") for p in left), left
    return status, left


def test_a_killed_daemons_files_go_at_the_next_start(dbg: Dbg) -> None:
    program = count_program(dbg)
    status, left = daemon_killed(dbg, program)
    again = dbg.json("start", "--backend", "pdb", str(program))
    assert again["ok"] and f"pid {status['pid']}" in again.get("note", ""), again
    assert not any(p.exists() for p in left if p.name != "daemon.sock"), left
    new_status = json.loads((dbg.home / "sessions" / "default" / "status.json").read_text())
    fifos = [p.name for p in (dbg.home / "sessions" / "default").glob("*.fifo")]
    assert fifos and all(f"-{new_status['pid']}-" in name for name in fifos), fifos
    assert dbg.json("print", "1 + 1")["value"] == "2"


def test_doctor_fix_removes_a_killed_daemons_files(dbg: Dbg) -> None:
    program = count_program(dbg)
    status, left = daemon_killed(dbg, program)
    answer = dbg.json("doctor")
    assert answer["_exit"] == 1 and answer["failed"] == ["session default"], answer
    assert dbg.json("doctor", "--fix")["_exit"] == 0
    assert not any(os.path.lexists(p) for p in left), left
    assert not (dbg.home / "sessions" / "default" / "status.json").exists()
    # Files left when the status file went first (a doctor of an older dbg, a
    # user tidying by hand) are found by name: FIFOs whose daemon is not running.
    stray = dbg.home / "sessions" / "default" / f"program-{status['pid']}-7-stdin.fifo"
    os.mkfifo(stray, 0o600)
    warned = dbg.json("doctor")
    assert checks(warned)["session default"]["status"] == "warn", warned
    assert stray.name in checks(warned)["session default"]["detail"]
    assert dbg.json("doctor", "--fix")["_exit"] == 0 and not os.path.lexists(stray)
    assert dbg.json("doctor")["_exit"] == 0


def test_clients_finding_the_same_damage_at_once_set_it_aside_once(
        dbg: Dbg, recorded: Path) -> None:
    import subprocess

    from dbgcore.testing import DBG

    copy_home(recorded, dbg)
    damage(dbg.home / "store.sqlite3", "truncated")
    racing = [subprocess.Popen([*DBG, "--json", "hits"], cwd=dbg.cwd, env=dbg.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(6)]
    answers = [json.loads(p.communicate(timeout=60)[0]) for p in racing]
    assert all(a["ok"] for a in answers), answers
    told = [a for a in answers if "damaged" in a.get("note", "")]
    assert told, answers  # at least the one that moved it says so
    assert len(kept_aside(dbg.home)) == 1  # never the fresh store moved aside after it
    log = (dbg.home / "store-set-aside.jsonl").read_text().splitlines()
    assert len(log) == 1, log
