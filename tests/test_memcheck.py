"""`dbg memcheck PROGRAM`: real valgrind (memcheck, with its gdb server) and
real gdb on a C program with four faults (tests/targets/native/memfaults.c):
each error is a stop at its line with valgrind's words and the origin of
the value, every gdb op works there, the end has valgrind's summaries, and
nothing of valgrind, vgdb or gdb outlives the session."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import builds
import pytest

from dbgcore.shared import procutil
from dbgcore.testing import require, require_backend

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.fixture
def faulty(target: Any) -> Iterator[tuple[Path, dict[str, int]]]:
    """memfaults.c, compiled with -g -O0 into the test's folder."""
    require_backend("gdb")
    require(shutil.which("valgrind") is not None and shutil.which("vgdb") is not None,
            "valgrind (with vgdb) is not installed: apt-get install valgrind")
    source = target("native/memfaults.c")
    yield builds.build_c(source.path), source.lines


def session_pids(dbg: Dbg, session: str = "default") -> list[tuple[int, Any]]:
    """The daemon and every process it recorded (gdb, valgrind's)."""
    status = json.loads((dbg.home / "sessions" / session / "status.json").read_text())
    return [(status["pid"], status.get("start_time")),
            *((c["pid"], c.get("start_time")) for c in status["children"])]


def vgdbs_of(valgrind: int) -> list[int]:
    """The vgdb processes gdb runs to reach valgrind ``valgrind`` (gdb's
    children, which the session does not record itself)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if words and words[0].endswith(b"vgdb") and f"--pid={valgrind}".encode() in words:
            found.append(int(entry.name))
    return found


def assert_all_gone(pids: list[tuple[int, Any]], vgdb_of: int) -> None:
    deadline = time.monotonic() + 10
    while (any(procutil.alive(*p) for p in pids) or vgdbs_of(vgdb_of)) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if procutil.alive(*p)], pids
    assert not vgdbs_of(vgdb_of)


def valgrind_pid(dbg: Dbg) -> int:
    """The session's latest program process: valgrind's (a restart adds one)."""
    status = json.loads((dbg.home / "sessions" / "default" / "status.json").read_text())
    return [int(c["pid"]) for c in status["children"] if c["role"] == "debuggee"][-1]


def test_each_error_is_a_stop_at_its_line_and_the_end_has_the_summaries(
        dbg: Dbg, faulty: tuple[Path, dict[str, int]]) -> None:
    program, lines = faulty
    name = "memfaults.c"
    first = dbg.json("memcheck", str(program), "one", "two")
    assert first["ok"] and first["state"] == "stopped", first
    # The uninitialised field's read, where the program reads it; its origin
    # is main's stack frame (valgrind names the function's first line).
    assert first["reason"] == "memcheck", first
    assert first["location"]["line"] == lines["uninit_use"], first
    description = first["description"].splitlines()
    assert description[0] == ("memcheck: Conditional jump or move depends on uninitialised "
                              "value(s)"), first
    assert f"Uninitialised value was created by a stack allocation at main ({name}:" \
           f"{lines['main']})" in description, first
    valgrind = valgrind_pid(dbg)
    pids = session_pids(dbg)
    # An ordinary gdb stop: locals and print see the struct and its field.
    names = {v["name"] for v in dbg.json("locals")["variables"]}
    assert {"acct", "values", "sum"} <= names, names
    # The program's arguments reach it through valgrind (acct.id = argc).
    assert dbg.json("print", "acct.id")["value"] == "3"

    past = dbg.json("continue")
    assert past["reason"] == "memcheck", past
    assert past["location"]["line"] == lines["past_end"], past
    assert past["location"]["function"] == "total", past
    kind, address = past["description"].splitlines()
    assert kind == "memcheck: Invalid read of size 4", past
    assert address.startswith("Address 0x") and address.endswith(
        f"is 0 bytes after a block of size 16 alloc'd at main ({name}:"
        f"{lines['values_alloc']})"), past
    assert dbg.json("print", "i")["value"] == "4"
    assert dbg.json("print", "count")["value"] == "4"
    frames = dbg.json("stack")["frames"]
    assert [f["function"] for f in frames[:2]] == ["total", "main"], frames

    # The second free stops in the program's frame, not in valgrind's free().
    freed = dbg.json("continue")
    assert freed["reason"] == "memcheck", freed
    assert freed["location"]["line"] == lines["double_free"], freed
    assert freed["location"]["function"] == "main", freed
    assert freed["description"].splitlines()[0].startswith("memcheck: Invalid free()"), freed
    assert f"free'd at main ({name}:{lines['first_free']})" in freed["description"], freed
    assert f"Block was alloc'd at main ({name}:{lines['values_alloc']})" in \
        freed["description"], freed

    end = dbg.json("continue")
    assert end["state"] == "exited" and end["exit_code"] == 0, end
    summary = end["description"].splitlines()
    assert summary[0].startswith("memcheck: ERROR SUMMARY: 3 errors from 3 contexts"), end
    assert "  definitely lost: 32 bytes in 1 blocks" in summary, end
    report = Path(summary[-1].partition("valgrind's whole report: ")[2])
    assert "Invalid read of size 4" in report.read_text(), summary
    assert "sum 60\n" in dbg.output("stdout")
    assert dbg("kill").code == 0
    assert_all_gone(pids, valgrind)


def test_breakpoints_between_errors_monitor_through_raw_and_restart_under_valgrind(
        dbg: Dbg, faulty: tuple[Path, dict[str, int]]) -> None:
    program, lines = faulty
    first = dbg.json("memcheck", "--break", f"memfaults.c:{lines['first_free']}",
                     str(program))
    assert first["reason"] == "memcheck", first
    assert first["location"]["line"] == lines["uninit_use"], first
    assert [b["line"] for b in first["breakpoints"]] == [lines["first_free"]], first
    assert dbg.json("continue")["location"]["line"] == lines["past_end"]
    at_break = dbg.json("continue")
    assert at_break["reason"] == "breakpoint", at_break
    assert at_break["location"]["line"] == lines["first_free"], at_break
    # valgrind's gdb server answers its own commands (raw: gdb's console).
    leaks = dbg("raw", "monitor", "leak_check", "full")
    assert leaks.code == 0 and "LEAK SUMMARY" in leaks.out, leaks
    # A step over the second free() is stopped by its error.
    stepped = dbg.json("next")
    assert stepped["location"]["line"] == lines["double_free"], stepped
    stepped = dbg.json("next")
    assert stepped["reason"] == "memcheck", stepped
    assert stepped["location"]["line"] == lines["double_free"], stepped
    # Run again under valgrind, to the first error; the first valgrind is gone.
    old = valgrind_pid(dbg)
    again = dbg.json("restart")
    assert again["reason"] == "memcheck", again
    assert again["location"]["line"] == lines["uninit_use"], again
    assert_all_gone([(old, None)], old)
    valgrind, pids = valgrind_pid(dbg), session_pids(dbg)
    assert valgrind != old
    # Killed while valgrind waits for gdb at an error.
    assert dbg("kill").code == 0
    assert_all_gone(pids, valgrind)


def test_bad_input_is_refused_before_anything_runs(
        dbg: Dbg, faulty: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    program, _ = faulty
    missing = dbg("memcheck", str(tmp_path / "nosuch"))
    assert missing.code == 2 and "no such program" in missing.err, missing
    script = tmp_path / "tool.py"
    script.write_text("print('hello')\n")
    python = dbg("memcheck", str(script))
    assert python.code != 0 and "not a compiled program" in python.err, python
    source = dbg("memcheck", str(program.with_suffix(".c")))
    assert source.code != 0 and "is a source file" in source.err, source
    assert not (dbg.home / "sessions" / "default" / "status.json").exists()


def test_a_backend_that_cannot_drive_valgrind_says_so(
        dbg: Dbg, faulty: tuple[Path, dict[str, int]]) -> None:
    require_backend("lldb")
    program, _ = faulty
    refused = dbg("memcheck", "--backend", "lldb", str(program))
    assert refused.code == 3, refused
    assert "memcheck not supported by lldb" in refused.err, refused
    assert "--backend gdb" in refused.err, refused


def test_a_running_program_under_valgrind_pauses(dbg: Dbg, target: Any,
                                                 tmp_path: Path) -> None:
    require_backend("gdb")
    require(shutil.which("valgrind") is not None, "valgrind is not installed")
    program = builds.build_c(target("native/longrun.c").path)
    started = dbg.json("--timeout", "8", "memcheck", str(program), str(tmp_path / "calls"))
    assert started["state"] == "running", started
    valgrind, pids = valgrind_pid(dbg), session_pids(dbg)
    paused = dbg.json("pause")
    assert paused["state"] == "stopped" and paused["reason"] == "pause", paused
    assert "main" in [f["function"] for f in dbg.json("stack")["frames"]]
    assert dbg("kill").code == 0
    assert_all_gone(pids, valgrind)
