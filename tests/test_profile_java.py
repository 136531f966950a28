"""`dbg profile` of a Java program with JDK Flight Recorder (the ``jfr``
profiler of the jdb plugin), on tests/targets/java/Inventory.java: stock
looked up by a linear scan (``indexOf``) from two places, one three times as
often, while a thread waits in a native read. The scan is the hottest
function, `callers` tells the two call lines apart by cost, the waiting
thread is seen only with ``--clock wall``, `profile diff` shows the fix
(``indexed``), a running JVM is recorded by its pid and keeps running, and a
run cut at --duration keeps its recording."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import require

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.fixture
def inventory(target: Any) -> Any:
    require(all(shutil.which(t) for t in ("java", "javac", "jfr", "jcmd")),
            "a JDK (java, javac, jfr, jcmd) is not on PATH")
    return target("java/Inventory.java")


def _all_rows(dbg: Dbg) -> list[dict[str, Any]]:
    return dbg.json("hot", "--all", "--limit", "200")["rows"]


def test_the_scan_is_found_and_its_two_callers_told_apart(dbg: Dbg, inventory: Any) -> None:
    answer = dbg.json("profile", str(inventory.path))
    assert answer["ok"] and answer["tool"].startswith("jfr "), answer
    assert answer["exit_code"] == 0 and answer["weight"] >= 20, answer
    top = answer["top"][0]
    assert (top["function"], top["file"]) == ("Inventory.position", str(inventory.path)), answer
    assert top["self_share"] > 50 and answer["folded"]["functions"] > 0, answer
    sites = dbg.json("callers", "Inventory.position")["sites"]
    assert [(s["function"], s["line"]) for s in sites[:2]] == [
        ("Inventory.restock", inventory.lines["restock-call"]),
        ("Inventory.audit", inventory.lines["audit-call"])], sites
    assert sites[0]["total_share"] > 1.5 * sites[1]["total_share"], sites
    # Java code running only, by default: the thread in its native read is not seen.
    assert not any(r["function"] == "java.io.FileInputStream.readBytes"
                   for r in _all_rows(dbg))

    fixed = dbg.json("profile", str(inventory.path), "indexed")
    change = dbg.json("profile", "diff", str(answer["run"]), str(fixed["run"]))["changes"][0]
    assert change["function"] == "Inventory.position", change
    assert change["after"] < change["before"] / 3, change


def test_the_wall_clock_sees_the_thread_waiting_in_a_native_read(dbg: Dbg,
                                                                inventory: Any) -> None:
    answer = dbg.json("profile", "--clock", "wall", str(inventory.path))
    assert answer["ok"], answer
    reads = [r for r in _all_rows(dbg) if r["function"] == "java.io.FileInputStream.readBytes"]
    assert reads and reads[0]["library"] == "java.base" and reads[0]["self_share"] > 10, reads
    waiter = dbg.json("hot", "--by", "line")["rows"]
    assert any(r["function"].startswith("Inventory.lambda$main") and
               r["line"] == inventory.lines["waiter-reads"] for r in waiter), waiter


def test_a_running_jvm_is_recorded_by_pid_and_runs_on(dbg: Dbg, inventory: Any,
                                                     tmp_path: Path) -> None:
    classes = tmp_path / "classes"
    subprocess.run(["javac", "-d", str(classes), str(inventory.path)], check=True)
    # Its JFR repository in tmp_path; a SIGTERM (not SIGKILL) at the end lets
    # it remove its attach socket, /tmp/.java_pid<pid>.
    jvm = subprocess.Popen(["java", f"-Djava.io.tmpdir={tmp_path}", "-cp", str(classes),
                            "Inventory", "forever"],
                           stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        time.sleep(2)  # the JVM up and in its loop, its attach listener ready for jcmd
        answer = dbg.json("profile", "--pid", str(jvm.pid), "--duration", "1")
        assert answer["ok"] and answer["pid"] == jvm.pid, answer
        assert "Inventory.position" in [r["function"] for r in answer["top"]], answer
        assert jvm.poll() is None
    finally:
        jvm.terminate()
        try:
            jvm.wait(timeout=10)
        except subprocess.TimeoutExpired:
            jvm.kill()
            jvm.wait()


def test_a_run_cut_at_duration_keeps_its_recording(dbg: Dbg, inventory: Any) -> None:
    answer = dbg.json("profile", "--duration", "3", str(inventory.path), "forever")
    assert answer["ok"] and answer["exit_code"] is None, answer
    assert "stopped (SIGINT)" in answer["note"], answer
    assert "Inventory.position" in [r["function"] for r in answer["top"]], answer


def test_a_clock_is_asked_only_of_a_profiler_that_tells_them_apart(dbg: Dbg,
                                                                  tmp_path: Path) -> None:
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    refused = dbg("profile", "--tool", "cprofile", "--clock", "cpu", str(program))
    assert refused.code == 2 and "cprofile cannot tell CPU time from wall time" in refused.err
    assert "--tool py-spy --clock cpu" in refused.err, refused
    unknown = dbg("profile", "--clock", "sundial", str(program))
    assert unknown.code == 2 and "unknown clock 'sundial'" in unknown.err, unknown
