"""A full disk under DBG_HOME: a real 2 MB tmpfs, filled at chosen moments.

What a full disk must do (issue 38, item 5): the op that meets it gets one
line that names the disk, a log that cannot be written never fails an op
(it is noted once and shown by `dbg status`), the session answers on and
logs again once space is freed, what was recorded before is kept, a start
says the disk is full, `dbg report` fails in one line and `dbg doctor`
fails on it. Mounting needs root (as CI runs): refused, the tests skip,
or fail under DBG_REQUIRE_ALL_BACKENDS=1.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import builds
import pytest
from builds import copy_target

from dbgcore.testing import Dbg, Result, dbg_in, require, require_backend
from dbgcore.transport.translog import BoundedLogHandler, LogHealth, TransLog

#: The filler's name, in DBG_HOME.
FILLER = "filler"


@pytest.fixture
def tiny_home() -> Iterator[Dbg]:
    """A runner whose DBG_HOME is a fresh 2 MB tmpfs (short enough a path
    for the fast path's sockets); unmounted at the end."""
    base = Path(tempfile.mkdtemp(prefix="dbg-disk-", dir="/tmp"))
    home = base / "home"
    home.mkdir(mode=0o700)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs",
                              str(home)], capture_output=True, text=True)
    try:
        require(mounted.returncode == 0,
                f"cannot mount a 2 MB tmpfs (needs root): {mounted.stderr.strip()}")
        with dbg_in(base) as runner:
            try:
                yield runner
            finally:
                free(runner)  # so the sessions' ends can write what they write
    finally:
        if mounted.returncode == 0:
            subprocess.run(["umount", "-l", str(home)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def fill(dbg: Dbg, leave: int = 0) -> None:
    """Fill the disk holding DBG_HOME with zeros, up to ``leave`` bytes."""
    path = dbg.home / FILLER
    with open(path, "ab", buffering=0) as fh:
        for size in (64 * 1024, 4096):
            while True:
                info = os.statvfs(dbg.home)
                if info.f_bavail * info.f_frsize - size < leave:
                    break
                try:
                    fh.write(b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    info = os.statvfs(dbg.home)
    assert info.f_bavail * info.f_frsize <= leave + 4096, "the disk did not fill"
    if leave:
        return
    # The last page of a log already written has room left, which the disk
    # being full does not take away: filled too, so the next write fails.
    for log in dbg.home.glob("sessions/*/*.log"):
        with open(log, "ab", buffering=0) as fh:
            try:
                while fh.write(b"- the test fills this page\n") == 27:
                    pass
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc


def free(dbg: Dbg) -> None:
    (dbg.home / FILLER).unlink(missing_ok=True)


def one_line(result: Result) -> None:
    """A failure said in one line on stderr, no traceback anywhere."""
    assert result.code != 0, result
    assert "Traceback" not in result.out + result.err, result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.out + result.err, result
    assert "internal error" not in result.out + result.err, result


@pytest.mark.parametrize("client", ["fast path", "full CLI"])
def test_a_start_on_a_full_disk_says_so_in_one_line(tiny_home: Dbg, client: str) -> None:
    dbg = tiny_home
    require_backend("pdb")
    env = {"DBG_NO_FAST_PATH": "1"} if client == "full CLI" else {}
    program = copy_target("counter.py", dbg.cwd)
    fill(dbg)
    refused = dbg("start", "--backend", "pdb", str(program.path), env=env)
    one_line(refused)
    assert f"the disk holding DBG_HOME ({dbg.home}) is full" in refused.err, refused
    as_json = dbg.json("start", "--backend", "pdb", str(program.path), env=env)
    assert as_json["_exit"] == 1 and "is full" in as_json["error"]["message"], as_json
    # No half-written cache is left for each refused call.
    assert not [p.name for p in dbg.home.iterdir() if p.name.startswith(".")]
    free(dbg)
    started = dbg.json("start", "--backend", "pdb", "--break", program.loc("accumulate"),
                       "--run", str(program.path), env=env)
    assert started["ok"] and started["state"] == "stopped", started


def _prepare(dbg: Dbg, backend: str, tmp_path: Path) -> tuple[str, str, str]:
    """The program, where it stops, and a variable there to print."""
    if backend == "gdb":
        source = copy_target("native/cart.c", dbg.cwd)
        return str(builds.build_c(source.path)), source.loc("loop"), "total"
    program = copy_target("counter.py", dbg.cwd)
    return str(program.path), program.loc("accumulate"), "total"


@pytest.mark.parametrize("backend", ["pdb", "debugpy", "gdb"])
def test_a_session_goes_on_when_the_disk_fills_under_it(tiny_home: Dbg, backend: str,
                                                        tmp_path: Path) -> None:
    dbg = tiny_home
    require_backend(backend)
    program, stop_at, variable = _prepare(dbg, backend, tmp_path)
    started = dbg.json("start", "--backend", backend, "--break", stop_at, "--run", program)
    assert started["ok"] and started["state"] == "stopped", started
    fill(dbg)
    answers = []
    for argv in (["continue"], ["next"], ["print", variable]):
        result = dbg("--json", *argv)
        no_traceback(result)
        answer = result.json
        assert result.code == 0 and answer["ok"], (argv, result)
        answers.append(answer)
    assert answers[0]["state"] == "stopped" and answers[1]["state"] == "stopped", answers
    notes = [str(a.get("note", "")) for a in answers]
    # Told once, in the answer of the op that met it; the ops went on.
    told = [n for n in notes if "debugger.log cannot be written" in n]
    assert len(told) == 1 and "is full" in told[0], notes
    status = dbg.json("status")
    assert status["state"] == "stopped", status
    logs = str(status.get("logs", ""))
    assert "daemon.log" in logs and "debugger.log" in logs, status
    assert logs.endswith(f"cannot be written (the disk holding DBG_HOME ({dbg.home}) is full)"), \
        status
    assert "\nlogs: daemon.log" in dbg("status").out

    report = dbg("report")
    one_line(report)
    assert f"the disk holding DBG_HOME ({dbg.home}) is full" in report.err, report
    doctor = dbg("doctor")
    assert doctor.code == 1 and "Traceback" not in doctor.out + doctor.err, doctor
    assert any(line.startswith("FAIL disk: ") and "is full" in line
               for line in doctor.out.splitlines()), doctor.out

    free(dbg)
    again = dbg.json("next")
    assert again["ok"] and again["state"] in ("stopped", "exited"), again
    status = dbg.json("status")
    assert status["ok"] and "logs" not in status, status
    assert "were not logged here" in (dbg.home / "sessions" / "default"
                                      / "debugger.log").read_text(errors="replace")
    # The stop recorded before the disk filled is kept.
    hits = dbg.json("hits")
    assert hits["ok"] and hits["hits"], hits
    assert hits["hits"][0]["line"] == started["location"]["line"], hits
    assert dbg("report").code == 0
    disk = next(c for c in dbg.json("doctor")["checks"] if c["check"] == "disk")
    assert disk["status"] != "fail", disk


def stopped_past_the_flood(dbg: Dbg, answer: Result, program: builds.Target) -> None:
    """``answer`` (a start or a continue over disk_flood.py's flood, on a
    full disk) is its stop after the flood, with debugger.log's failure
    noted; the session steps on, and ends once space is freed."""
    no_traceback(answer)
    snap = answer.json
    assert answer.code == 0 and snap["ok"], answer
    assert snap["state"] == "stopped" and snap["location"]["line"] == program.lines["flooded"]
    assert "debugger.log cannot be written" in snap.get("note", ""), snap.get("note")
    step = dbg.json("next")
    assert step["ok"] and step["location"]["line"] == program.lines["after"], step
    free(dbg)
    done = dbg.json("continue")
    assert done["ok"] and done["state"] == "exited", done
    assert "after the flood" in dbg.output("stdout")


def test_a_start_whose_program_floods_a_nearly_full_disk_answers(tiny_home: Dbg) -> None:
    """debugpy's output comes as DAP events, which debugger.log logs: a
    start whose program prints 50 MB fills the disk on its way."""
    dbg = tiny_home
    require_backend("debugpy")
    program = copy_target("disk_flood.py", dbg.cwd)
    # A first session makes the store and the caches a start writes...
    assert dbg.json("start", "--backend", "debugpy", str(program.path))["ok"]
    assert dbg("kill").code == 0
    # ...then room for the start's own files, not for what the program prints.
    fill(dbg, leave=64 * 1024)
    started = dbg("--json", "--timeout", "120", "start", "--backend", "debugpy", "--break",
                  program.loc("flooded"), "--run", str(program.path), timeout=240)
    info = os.statvfs(dbg.home)
    assert info.f_bavail * info.f_frsize < 16 * 1024, "the flood did not fill the disk"
    stopped_past_the_flood(dbg, started, program)


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_a_continue_over_a_flood_on_a_full_disk_answers(tiny_home: Dbg, backend: str) -> None:
    """The program's output (FIFOs into memory for pdb, DAP events logged
    for debugpy) goes on with the disk full, and so does the session."""
    dbg = tiny_home
    require_backend(backend)
    program = copy_target("disk_flood.py", dbg.cwd)
    started = dbg.json("start", "--backend", backend, "--break", program.loc("begin"),
                       "--break", program.loc("flooded"), "--run", str(program.path))
    assert started["ok"] and started["location"]["line"] == program.lines["begin"], started
    fill(dbg)
    flooded = dbg("--json", "--timeout", "120", "continue", timeout=240)
    stopped_past_the_flood(dbg, flooded, program)


def _remount(dbg: Dbg, how: str) -> None:
    """Remount DBG_HOME's tmpfs ``ro`` or ``rw``. A daemon that answered its
    kill may still hold its log open for writing a moment (the kernel
    refuses a read-only remount then): tried again until it is gone."""
    deadline = time.monotonic() + 30
    while True:
        done = subprocess.run(["mount", "-o", f"remount,{how}", str(dbg.home)],
                              capture_output=True, text=True)
        if done.returncode == 0:
            return
        assert time.monotonic() < deadline, done.stderr
        time.sleep(0.1)


def test_a_read_only_home_is_said_by_start_report_and_doctor(tiny_home: Dbg) -> None:
    dbg = tiny_home
    require_backend("pdb")
    program = copy_target("counter.py", dbg.cwd)
    started = dbg.json("start", "--backend", "pdb", "--break", program.loc("accumulate"),
                       "--run", str(program.path))
    assert started["ok"], started
    assert dbg("kill").code == 0
    _remount(dbg, "ro")
    try:
        for env in ({}, {"DBG_NO_FAST_PATH": "1"}):
            refused = dbg("start", "--backend", "pdb", str(program.path), env=env)
            one_line(refused)
            assert f"the disk holding DBG_HOME ({dbg.home}) is read-only" in refused.err, refused
            assert "mount it read-write" in refused.err, refused
        report = dbg("report")
        one_line(report)
        # Its folder cannot be made (dbgcore.shared.paths says so), or its file written.
        assert "is read-only" in report.err or "Read-only file system" in report.err, report
        doctor = dbg.json("doctor")
        assert doctor["_exit"] == 1, doctor
        disk = next(c for c in doctor["checks"] if c["check"] == "disk")
        assert disk["status"] == "fail" and "is read-only" in disk["detail"], disk
        hits = dbg.json("hits")
        assert hits["ok"] and hits["hits"][0]["line"] == program.lines["accumulate"], hits
    finally:
        _remount(dbg, "rw")
    assert dbg.json("start", "--backend", "pdb", str(program.path))["ok"]


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_a_restart_on_a_full_disk_leaves_the_session_usable(tiny_home: Dbg,
                                                            backend: str) -> None:
    """pdb's start hands its launcher a file: a restart the disk refuses
    fails in one line and leaves the program ended, not "running" for good."""
    dbg = tiny_home
    require_backend(backend)
    program = copy_target("counter.py", dbg.cwd)
    started = dbg.json("start", "--backend", backend, "--break", program.loc("accumulate"),
                       "--run", str(program.path))
    assert started["ok"], started
    fill(dbg)
    restarted = dbg("restart")
    no_traceback(restarted)
    status = dbg.json("status")
    if restarted.code != 0:
        one_line(restarted)
        assert "is full" in restarted.err, restarted
        assert status["state"] == "exited", status
    else:
        assert status["state"] == "stopped", status
    free(dbg)
    again = dbg.json("restart")
    assert again["ok"] and again["state"] == "stopped", again
    assert dbg.json("continue")["location"]["line"] == program.lines["accumulate"]
    hits = dbg.json("hits", "--all")
    assert hits["ok"] and hits["hits"][0]["line"] == program.lines["accumulate"], hits


def test_the_logs_drop_what_the_disk_refuses_and_go_on_when_it_takes_it(tiny_home: Dbg) -> None:
    """debugger.log's and daemon.log's writers, on the full disk itself: no
    write raises, each log is told once while it fails, and each goes on
    once there is space (debugger.log saying how many lines it lost)."""
    dbg = tiny_home
    health = LogHealth(dbg.home)
    fill(dbg)
    # New files: not even part of a page of their own to write into.
    transcript = TransLog(dbg.home / "debugger.log", health=health)
    handler = BoundedLogHandler(dbg.home / "daemon.log", health=health)
    logger = logging.getLogger("dbg.test-full-disk")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for i in range(3):
            transcript.sent(f"request {i}")
            transcript.received(f"answer {i}")
            logger.warning("record %d", i)
        notes = health.take_notes()
        assert len(notes) == 2, notes
        assert all("cannot be written" in n and "is full" in n for n in notes), notes
        assert health.take_notes() == []
        problem = health.problem() or ""
        assert problem.startswith("daemon.log and debugger.log cannot be written"), problem
        free(dbg)
        transcript.sent("request after")
        logger.warning("record after")
        assert health.problem() is None
        assert health.take_notes() == []
    finally:
        logger.removeHandler(handler)
        handler.close()
        transcript.close()
    lines = (dbg.home / "debugger.log").read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "--- 6 lines were not logged here: the file could not be written",
        "--> request after"], lines
    records = (dbg.home / "daemon.log").read_text()
    assert "record after" in records and "record 0" not in records, records
