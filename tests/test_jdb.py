"""The jdb backend on real Java programs: compiled here with javac -g, run by a
real JVM under a real jdb."""

from __future__ import annotations

import os
import subprocess
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import builds
import pytest

pytestmark = pytest.mark.backend("jdb")


@pytest.fixture(autouse=True)
def jdb_ready(backend_ready: Callable[[str], None]) -> None:
    backend_ready("jdb")


def stdout_of(dbg: Any) -> str:
    return str(dbg.output("stdout"))


def jvms_running(marker: Path) -> list[str]:
    """Command lines of live processes that mention ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        line = " ".join(a.decode(errors="replace") for a in argv)
        if str(marker) in line:
            found.append(line)
    return found


def test_java_file_runs_to_breakpoints_steps_and_exits_with_its_code(
        dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    snap = dbg.json("start", str(cart.path), "exit3")
    assert snap["ok"], snap["error"]
    assert (snap["reason"], snap["location"]["line"]) == ("entry", cart.lines["main-first"])
    assert snap["location"]["file"] == str(cart.path)
    assert snap["location"]["function"] == "Cart.main"
    assert "[via jdb 17" in dbg("tool").out or dbg.json("tool")["tool"] == "jdb"
    # What dbg keeps for the session (the compiled classes too) is the user's alone.
    folders = [p for p in dbg.home.rglob("*") if p.is_dir()]
    assert any(p.name == "classes" for p in folders), folders
    for folder in folders:
        if not any(part == "classes" for part in folder.relative_to(dbg.home).parts[:-1]):
            assert folder.stat().st_mode & 0o077 == 0, folder

    by_line = dbg.json("break", cart.loc("discount"))["breakpoint"]
    assert by_line["verified"] is True
    stop = dbg.json("continue")
    assert stop["reason"] == "breakpoint" and stop["hit_breakpoints"] == [by_line["id"]], stop
    assert {v["name"]: v["value"] for v in stop["locals"]} == {"total": "19.25", "percent": "10"}
    frames = dbg.json("stack")["frames"]
    assert [f["function"] for f in frames] == ["Cart.apply_discount", "Cart.main"]
    assert frames[1]["line"] == cart.lines["call-discount"]

    # A new value the program then uses.
    assert dbg.json("set", "percent", "50")["value"] == "50"
    assert dbg.json("print", "total * percent / 100")["value"] == "9.625"
    step = dbg.json("next")
    assert step["location"]["line"] == cart.lines["discount-return"], step
    out = dbg.json("finish")
    assert out["location"]["function"] == "Cart.main", out
    done = dbg.json("continue")
    assert (done["state"], done["exit_code"]) == ("exited", 3), done
    text = stdout_of(dbg)
    assert "subtotal: 19.25\n" in text and "total after discount: 9.63\n" in text, text
    assert "done" not in text  # exit3 leaves before printing it


def test_frames_fields_and_a_watched_field(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    dbg.json("start", "--break", cart.loc("add"), "--run", str(cart.path))
    assert dbg.json("print", "this.owner")["value"] == '"ada"'
    assert dbg.json("print", "price * quantity")["value"] == "3.0"
    caller = dbg.json("up")["frame"]
    assert caller["function"] == "Cart.main" and caller["index"] == 1
    names = [v["name"] for v in dbg.json("locals")["variables"]]
    assert names == ["args", "cart"], names
    assert dbg.json("down")["frame"]["function"] == "Cart.add"
    assert [f["current"] for f in dbg.json("stack")["frames"]] == [True, False]

    watched = dbg.json("watch", "added")["breakpoint"]
    assert watched["kind"] == "watch"
    stop = dbg.json("continue")
    assert stop["reason"] == "watchpoint", stop
    assert stop["description"] == "Cart.added: 0 -> 1"
    assert dbg.json("unbreak", str(watched["id"]))["ok"]
    missing = dbg("--json", "watch", "nosuch")
    assert missing.code == 1 and "no field Cart.nosuch" in missing.json["error"]["message"]
    local = dbg("--json", "watch", "price * 2")
    assert local.code == 2 and "jdb watches fields" in local.json["error"]["message"]


def test_deferred_breakpoint_is_pending_until_its_class_loads(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    dbg.json("start", str(cart.path))
    bp = dbg.json("break", cart.loc("tax"))["breakpoint"]
    by_name = dbg.json("break", "Pricing.withTax")["breakpoint"]
    assert (bp["verified"], by_name["verified"]) == (False, False)
    assert "pending" in dbg("breaks").out
    stop = dbg.json("continue")
    assert stop["reason"] == "breakpoint", stop
    assert stop["location"]["function"] == "Pricing.withTax"
    listed = {b["id"]: b for b in dbg.json("breaks")["breakpoints"]}
    assert listed[bp["id"]]["verified"] and listed[by_name["id"]]["verified"]
    assert "pending" not in dbg("breaks").out


def test_what_jdb_cannot_do_is_unsupported_with_a_hint(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    dbg.json("start", str(cart.path))
    for extra in (["--if", "i > 2"], ["--hit", "3"], ["--log", "x"]):
        result = dbg("--json", "break", cart.loc("loop"), *extra)
        assert result.code == 3, result
        error = result.json["error"]
        assert error["kind"] == "unsupported" and "by jdb" in error["message"]
        assert "dbg raw" in error["message"] and error["hint"]
    assert dbg.json("breaks")["breakpoints"] == []
    bad = dbg("--json", "break", f"{cart.path}:500")
    assert bad.code == 1 and "line 500 is past the end" in bad.json["error"]["message"]
    # The session is still usable.
    assert dbg.json("print", "args.length")["value"] == "0"


def test_uncaught_exception_and_catch(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    dbg.json("start", str(cart.path), "throw")
    stop = dbg.json("continue")
    assert stop["reason"] == "exception", stop
    # With its message, which jdb cannot show: dbg asks the JVM for it.
    assert stop["description"] == "java.lang.IllegalStateException: no owner ada (uncaught)"
    assert stop["location"]["line"] == cart.lines["throw"]
    assert dbg.json("restart")["ok"]
    assert dbg.json("catch", "java.lang.IllegalStateException")["filters"] == [
        "java.lang.IllegalStateException"]
    caught = dbg.json("continue")
    assert caught["reason"] == "exception" and "IllegalStateException" in caught["description"]


def test_catch_takes_a_class_by_its_short_name(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    dbg.json("start", str(cart.path), "throw")
    # jdb itself would defer `IllegalStateException` for good: no class has that name.
    assert dbg.json("catch", "IllegalStateException")["filters"] == [
        "java.lang.IllegalStateException"]
    caught = dbg.json("continue")
    assert caught["reason"] == "exception" and "IllegalStateException" in caught["description"]
    assert caught["location"]["line"] == cart.lines["throw"], caught


def test_threads_and_a_second_thread(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    started = dbg.json("start", "--break", cart.loc("worker"), "--run", str(cart.path))
    # What the start and the listing said, should it fail (CI at 06c290a saw
    # an answer without threads once, under load).
    answer = dbg.json("threads")
    assert "threads" in answer, (started, answer)
    listed = answer["threads"]
    current = [t for t in listed if t["current"]]
    assert [t["name"] for t in current] == ["worker"], listed
    main = next(t for t in listed if t["name"] == "main")
    assert dbg.json("thread", str(main["id"]))["thread"]["name"] == "main"
    frames = dbg.json("stack")["frames"]
    assert any(f["function"] == "Cart.main" for f in frames), frames
    assert dbg.json("unbreak", "1")["ok"]
    assert dbg.json("continue")["exit_code"] == 0


def test_pause_a_running_program_then_kill_leaves_no_jvm(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    dbg.json("start", str(cart.path), "sleep")
    running = dbg.json("--timeout", "1", "continue")
    assert running["state"] == "running", running
    paused = dbg.json("pause")
    assert (paused["state"], paused["reason"]) == ("stopped", "pause"), paused
    assert any(f["function"] == "Cart.main" for f in dbg.json("stack")["frames"])
    assert jvms_running(dbg.home)
    assert dbg.json("kill")["ok"]
    deadline = time.monotonic() + 5
    while jvms_running(dbg.home) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert jvms_running(dbg.home) == []


def test_class_path_class_file_and_jar(dbg: Any, target: Any, tmp_path: Path) -> None:
    cart = target("java/Cart.java")
    classes = builds.build_java(cart.path)
    snap = dbg.json("start", "--backend", "jdb", "-cp", str(classes), "Cart")
    assert snap["ok"] and snap["location"]["function"] == "Cart.main", snap.get("error")
    assert snap["location"]["file"] is None  # no sources on that class path
    dbg("kill")

    snap = dbg.json("start", str(classes / "Cart.class"))
    assert snap["ok"] and snap["location"]["function"] == "Cart.main", snap.get("error")
    dbg("kill")

    jar = tmp_path / "cart.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nMain-Class: Cart\n")
        for item in classes.iterdir():
            archive.write(item, item.name)
    snap = dbg.json("start", str(jar))
    assert snap["ok"] and snap["location"]["function"] == "Cart.main", snap.get("error")
    assert dbg.json("continue")["exit_code"] == 0
    dbg("kill")

    bad = dbg("start", "--backend", "jdb", "-cp", str(tmp_path / "nowhere"), "Cart")
    assert bad.code == 2 and "no such file or folder" in bad.err, bad


def test_a_compile_error_is_one_clear_line(dbg: Any, tmp_path: Path) -> None:
    broken = dbg.cwd / "Broken.java"
    broken.write_text("public class Broken { void f() { int x = ; } }\n")
    result = dbg("start", str(broken))
    assert result.code == 1, result
    assert "javac could not compile Broken.java" in result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err


def test_output_interleaved_with_many_stops_stays_whole(dbg: Any, target: Any) -> None:
    flood = target("java/Flood.java")
    dbg.json("start", "--break", flood.loc("flush"), str(flood.path))
    for _ in range(20):
        stop = dbg.json("continue")
        assert stop["reason"] == "breakpoint", stop
    dbg.json("unbreak", "1")
    assert dbg.json("continue")["exit_code"] == 0
    lines = stdout_of(dbg).splitlines()
    expected = [f"line {i}.{j}" for i in range(40) for j in range(50)] + ["printed 2000"]
    assert lines == expected
    assert dbg.json("hits")["total"] >= 20


def test_attach_to_a_listening_jvm(dbg: Any, target: Any) -> None:
    cart = target("java/Cart.java")
    classes = builds.build_java(cart.path)
    jvm = subprocess.Popen(
        ["java", "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0",
         "-cp", str(classes), "Cart"], stdout=subprocess.PIPE, env={**os.environ})
    try:
        assert jvm.stdout is not None
        port = jvm.stdout.readline().decode().split()[-1]
        snap = dbg.json("attach", "--backend", "jdb", "--port", port)
        assert snap["ok"] and snap["state"] == "stopped", snap
        assert dbg.json("break", "Cart.apply_discount")["ok"]
        stop = dbg.json("continue")
        assert stop["location"]["function"] == "Cart.apply_discount", stop
        assert dbg.json("print", "percent")["value"] == "10"
        assert dbg.json("kill")["ok"]
        # Detached: the program goes on to its end.
        assert jvm.wait(timeout=20) == 0
    finally:
        jvm.kill()
        jvm.wait()


def test_a_stop_lists_the_stack_once_and_frames_move_it(dbg: Any, target: Any) -> None:
    """The snapshot of a stop needs the stack twice; jdb is asked once (its
    answer kept until the program or the selected frame moves)."""
    cart = target("java/Cart.java")
    assert dbg.json("start", "--break", cart.loc("add"), "--run", str(cart.path))["ok"]
    log = dbg.home / "sessions" / "default" / "debugger.log"
    before = log.read_text().count("--> where")
    stop = dbg.json("next")
    assert stop["state"] == "stopped", stop
    assert log.read_text().count("--> where") == before + 1
    assert [f["current"] for f in dbg.json("stack")["frames"]] == [True, False]
    assert dbg.json("up")["frame"]["index"] == 1
    assert [f["current"] for f in dbg.json("stack")["frames"]] == [False, True]
    assert dbg.json("down")["frame"]["index"] == 0
    assert [f["current"] for f in dbg.json("stack")["frames"]] == [True, False]


@pytest.mark.parametrize("mode", ["cont", "vm-start"])
def test_a_late_thread_prompt_after_cont_is_not_taken_for_an_answer(
        dbg: Any, target: Any, tmp_path: Path, mode: str) -> None:
    # Under load jdb's event thread once printed "main[1] " right after the
    # "> " of the start's `cont`, before the entry breakpoint: dbg took that
    # prompt for `cont`'s answer ("jdb: the command did nothing"). And once
    # (a restart in CI) right after "VM Started: ", before jdb's greeting
    # ("No frames on the current call stack"), which the first command then
    # took for its answer: the start waited 30 s and failed.
    import shutil
    import sys

    wrapper = tmp_path / "late-jdb"
    script = Path(__file__).parent / "faults" / "late_jdb_prompt.py"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    wrapper.chmod(0o700)
    config = dbg.home / "config" / "dbg"
    config.mkdir(parents=True, exist_ok=True)
    (config / "backends.yaml").write_text(
        f"backends:\n  jdb:\n    command: [{wrapper}]\n", encoding="utf-8")
    dbg.env["LATE_JDB_REAL"] = shutil.which("jdb") or "jdb"
    dbg.env["LATE_JDB_MARK"] = str(tmp_path / "injected")
    dbg.env["LATE_JDB_MODE"] = mode
    cart = target("java/Cart.java")
    snap = dbg.json("start", str(cart.path), "exit3")
    assert snap["ok"], snap["error"]
    assert (snap["reason"], snap["location"]["line"]) == ("entry", cart.lines["main-first"])
    assert (tmp_path / "injected").read_text() == "injected\n"
    done = dbg.json("continue")
    assert (done["state"], done["exit_code"]) == ("exited", 3), done
