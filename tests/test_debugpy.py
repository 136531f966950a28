"""The DAP backend on real debugpy: the real `dbg` command, real debugpy 1.8,
small target programs (tests/targets/dap_*), no mocks.

Every session is started with `--backend debugpy` explicitly. Where a test
checks what debugpy itself does (a breakpoint moved to another line, a long
list folded into buckets, a note glued to an exception's name), the comment
says so; those are upstream behaviours dbg has to live with, not dbg's own.
Whether every canonical op works or is refused is checked for debugpy by its
row in tests/test_conformance.py.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Dbg, Target

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def debugpy_ready(backend_ready: Callable[[str], None]) -> None:
    backend_ready("debugpy")


pytestmark = [pytest.mark.backend("debugpy"), pytest.mark.usefixtures("debugpy_ready")]


# -- helpers ---------------------------------------------------------------------


def here(target: Target) -> str:
    return os.path.realpath(target.path)


def start(dbg: Dbg, target: Target, *options: str, args: tuple[str, ...] = ()) -> dict[str, Any]:
    snap = dbg.json("start", "--backend", "debugpy", *options, str(target.path), *args)
    assert snap["ok"] and snap["via"]["tool"] == "debugpy", snap
    return snap


def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["ok"] is True and answer["_exit"] == 0, answer
    return answer


def assert_at(snap: dict[str, Any], target: Target, mark: str, reason: str | None = None,
              function: str | None = None) -> None:
    """``snap`` is a stop snapshot at line ``mark`` of ``target``."""
    ok(snap)
    assert snap["state"] == "stopped", snap
    loc = snap["location"]
    assert (loc["file"], loc["line"]) == (here(target), target.lines[mark]), snap
    if reason is not None:
        assert snap["reason"] == reason, snap
    if function is not None:
        assert loc["function"] == function, snap


def value_of(rows: list[dict[str, Any]], name: str) -> str:
    found = [r["value"] for r in rows if r["name"] == name]
    assert found, f"no {name!r} in {rows}"
    return str(found[0])


def output(dbg: Dbg, category: str | None = None) -> str:
    answer = ok(dbg.json("output"))
    return "".join(c["text"] for c in answer["chunks"]
                   if category is None or c["category"] == category)


def assert_unsupported(answer: dict[str, Any]) -> None:
    """Refused on dbg's side: kind `unsupported`, exit 3, naming debugpy and `dbg raw`."""
    assert answer["ok"] is False and answer["_exit"] == 3, answer
    error = answer["error"]
    assert error["kind"] == "unsupported", answer
    assert "debugpy" in error["message"] and "dbg raw" in error["message"], answer


def wait_until(check: Any, timeout: float = 10.0, step: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(step)


def processes_of(home: Path, *needles: str) -> list[str]:
    """Live processes whose environment carries this test's DBG_HOME (every
    process dbg starts inherits it) or whose command line names one of
    ``needles``; zombies are left out."""
    marker = f"DBG_HOME={home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if stat.rpartition(")")[2].split()[0] == "Z":
            continue
        command = cmdline.replace(b"\0", b" ").decode("utf-8", "replace").strip()
        if marker in environ.split(b"\0") or any(n in command for n in needles):
            found.append(f"{entry.name}: {command}")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def debugpy_server(target: Target, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """Run ``target`` (which calls debugpy.listen on a port the system picks,
    says which, and waits for a client) with the venv's Python; yields
    (process, port). Killed at the end, with the adapter debugpy.listen
    started, as one process group. (A port picked here and then listened on
    there could be taken meanwhile by another test's process.)"""
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, str(target.path), "0"], stdout=sink,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=target.path.parent, start_new_session=True)
    try:
        said = re.compile(r"^listening (\d+)$", re.M)
        assert wait_until(lambda: said.search(log.read_text()) or proc.poll() is not None,
                          20), log.read_text()
        assert proc.poll() is None, log.read_text()
        found = said.search(log.read_text())
        assert found, log.read_text()
        yield proc, int(found[1])
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait(10)


def ticks(log: Path) -> int:
    return sum(1 for line in log.read_text().splitlines() if line.startswith("tick "))


# -- breakpoints ---------------------------------------------------------------------


def test_break_by_file_line_and_by_function(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    snap = start(dbg, cart)
    assert snap["state"] == "stopped" and snap["reason"] == "entry", snap
    assert snap["location"]["file"] == here(cart) and snap["location"]["line"] == 1

    # Relative to the program's folder, as a user would type it.
    line_bp = ok(dbg.json("break", f"dap_cart.py:{cart.lines['loop']}"))["breakpoint"]
    assert (line_bp["file"], line_bp["line"], line_bp["verified"]) == (
        here(cart), cart.lines["loop"], True)
    assert line_bp["requested_line"] is None
    func_bp = ok(dbg.json("break", "count_up"))["breakpoint"]
    assert func_bp["function"] == "count_up" and func_bp["kind"] == "function", func_bp

    snap = dbg.json("continue")
    assert_at(snap, cart, "loop", reason="breakpoint", function="total")
    assert snap["hit_breakpoints"] == [line_bp["id"]]
    assert value_of(snap["locals"], "total") == "0"
    assert "'apple'" in value_of(snap["locals"], "item")

    ok(dbg.json("unbreak", str(line_bp["id"])))
    # A function breakpoint stops at the function's first statement, as on gdb and pdb.
    snap = dbg.json("continue")
    ok(snap)
    assert snap["reason"] == "breakpoint" and snap["location"]["function"] == "count_up", snap
    assert snap["location"]["line"] == cart.lines["count-first"], snap
    assert value_of(snap["locals"], "limit") == "10"

    breaks = ok(dbg.json("breaks"))["breakpoints"]
    assert [(b["id"], b["hits"]) for b in breaks] == [(func_bp["id"], 1)], breaks

    snap = ok(dbg.json("continue"))
    assert (snap["state"], snap["exit_code"]) == ("exited", 0), snap


def test_condition_hit_count_temporary_and_logpoint(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    start(dbg, cart)
    cond = ok(dbg.json("break", cart.loc("count"), "--if", "x == 4"))["breakpoint"]
    assert cond["condition"] == "x == 4"
    hit = ok(dbg.json("break", cart.loc("loop"), "--hit", "2"))["breakpoint"]
    assert hit["hit_count"] == 2
    temp = ok(dbg.json("break", cart.loc("discount"), "--temp"))["breakpoint"]
    assert temp["temporary"] is True
    log = ok(dbg.json("break", cart.loc("count-first"), "--log", "count_up limit={limit}"))
    assert log["breakpoint"]["log_message"] == "count_up limit={limit}"

    # --hit 2: the first pass over the loop line does not stop, the second does.
    snap = dbg.json("continue")
    assert_at(snap, cart, "loop", reason="breakpoint")
    assert "'bread'" in value_of(snap["locals"], "item"), snap

    snap = dbg.json("continue")
    assert_at(snap, cart, "discount", reason="breakpoint")
    ids = [b["id"] for b in ok(dbg.json("breaks"))["breakpoints"]]
    assert temp["id"] not in ids and hit["id"] in ids, ids

    # The logpoint logs and does not stop; the condition stops only at x == 4.
    snap = dbg.json("continue")
    assert_at(snap, cart, "count", reason="breakpoint")
    assert value_of(snap["locals"], "x") == "4"
    assert ok(dbg.json("print", "acc"))["value"] == "6"
    assert "count_up limit=10" in output(dbg)

    ok(dbg.json("unbreak", str(cond["id"])))
    snap = ok(dbg.json("continue"))
    assert (snap["state"], snap["exit_code"]) == ("exited", 0), snap
    # debugpy logs once per pass over the logpoint's line: once here.
    assert output(dbg).count("count_up limit=10") == 1


def test_breakpoint_debugpy_moves_reports_requested_and_bound_line(dbg: Dbg, target: Any) -> None:
    """A breakpoint on a line without code moves to the next line that has
    some in the same function, as on gdb (pydevd alone would move it to the
    line *before*, and take a line past the end)."""
    cart = target("dap_cart.py")
    start(dbg, cart)
    comment = ok(dbg.json("break", cart.loc("comment")))["breakpoint"]
    assert comment["verified"] is True
    assert (comment["line"], comment["requested_line"]) == (
        cart.lines["report"], cart.lines["comment"]), comment
    blank = ok(dbg.json("break", f"{cart.path}:{cart.lines['comment'] + 1}"))["breakpoint"]
    assert (blank["line"], blank["requested_line"]) == (
        cart.lines["report"], cart.lines["comment"] + 1), blank

    text = dbg("break", f"{cart.path}:{cart.lines['comment']}")
    assert text.code == 0
    assert f"requested line {cart.lines['comment']}" in text.out, text
    assert f"bound at line {cart.lines['report']}" in text.out, text

    snap = dbg.json("continue")
    assert_at(snap, cart, "report", reason="breakpoint", function="main")
    assert set(snap["hit_breakpoints"]) >= {comment["id"], blank["id"]}, snap
    # `unbreak` by the line the user asked for finds the moved breakpoint.
    removed = ok(dbg.json("unbreak", f"dap_cart.py:{cart.lines['comment']}"))["removed"]
    assert comment["id"] in [b["id"] for b in removed], removed


# -- execution ---------------------------------------------------------------------


def test_step_next_finish_until(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    snap = start(dbg, cart, "--break", cart.loc("call-total"), "--run")
    assert_at(snap, cart, "call-total", reason="breakpoint", function="main")

    snap = dbg.json("step")
    assert_at(snap, cart, "total-first", reason="step", function="total")
    snap = ok(dbg.json("next"))
    assert snap["location"]["line"] == cart.lines["total-first"] + 1, snap
    snap = dbg.json("n")
    assert_at(snap, cart, "loop", reason="step", function="total")

    # finish returns to the caller, still on the line of the call, and leads
    # with what the function returned (debugpy's "(return) QUALNAME" local,
    # taken out of the locals).
    snap = dbg.json("finish")
    assert_at(snap, cart, "call-total", reason="step", function="main")
    assert snap["return_value"] == {"value": "19.25", "type": "float", "kind": "returned"}, snap
    assert not any(v["name"].startswith("(return)") for v in snap["locals"]), snap["locals"]

    snap = dbg.json("until", cart.loc("after-discount"))
    assert_at(snap, cart, "after-discount", function="main")
    assert ok(dbg.json("print", "final"))["value"] == "17.325"

    # A bare line is in the current file; until's own breakpoint is gone after.
    snap = dbg.json("until", str(cart.lines["report"]))
    assert_at(snap, cart, "report", function="main")
    lines = [b["line"] for b in ok(dbg.json("breaks"))["breakpoints"]]
    assert lines == [cart.lines["call-total"]], lines
    assert ok(dbg.json("continue"))["exit_code"] == 0


def test_pause_busy_loop_and_timeout_then_wait(dbg: Dbg, target: Any) -> None:
    spin = target("dap_spin.py")
    start(dbg, spin)
    snap = dbg.json("--timeout", "1", "continue")
    assert snap["ok"] and snap["_exit"] == 0 and snap["state"] == "running", snap

    busy = dbg.json("locals")
    assert busy["_exit"] == 1 and busy["error"]["kind"] == "not_stopped", busy
    assert ok(dbg.json("status"))["state"] == "running"

    # A breakpoint set while the target runs; the stop it causes is seen by
    # `dbg wait` (and by `dbg status`) even though it arrived between commands.
    bp = ok(dbg.json("break", spin.loc("work")))["breakpoint"]
    assert wait_until(lambda: dbg.json("status").get("state") == "stopped", 10)
    snap = dbg.json("--timeout", "10", "wait")
    assert_at(snap, spin, "work", reason="breakpoint", function="work")
    ok(dbg.json("unbreak", str(bp["id"])))

    snap = dbg.json("--timeout", "0.5", "continue")
    assert snap["state"] == "running", snap
    snap = dbg.json("--timeout", "0.5", "wait")
    assert snap["ok"] and snap["state"] == "running", snap

    snap = dbg.json("pause")
    ok(snap)
    assert snap["state"] == "stopped" and snap["reason"] == "pause", snap
    frames = ok(dbg.json("stack"))["frames"]
    main = next(f for f in frames if f["function"] == "main")
    assert main["file"] == here(spin) and main["index"] <= 1, frames
    ok(dbg.json("frame", str(main["index"])))
    assert int(ok(dbg.json("print", "count"))["value"]) > 0
    again = ok(dbg.json("pause"))
    assert again["state"] == "stopped" and "already stopped" in again.get("note", ""), again


def test_exit_code_and_unicode_output_kept_apart(dbg: Dbg, target: Any) -> None:
    prog = target("dap_exit3.py")
    snap = start(dbg, prog, "--run")
    assert (snap["state"], snap["exit_code"]) == ("exited", 3), snap
    status = ok(dbg.json("status"))
    assert (status["state"], status["exit_code"]) == ("exited", 3), status

    assert output(dbg, "stdout") == "stdout: héllo wörld ✓ 日本語 🐍\n"
    assert output(dbg, "stderr") == "stderr: ошибка ünïcödé 💥\n"
    only_err = dbg("output", "--stderr")
    assert only_err.code == 0 and "ошибка ünïcödé 💥" in only_err.out, only_err
    assert "日本語" not in only_err.out

    gone = dbg.json("print", "1")
    assert gone["_exit"] == 1 and gone["error"]["kind"] == "target_exited", gone
    assert "3" in gone["error"]["message"]


# -- inspection ----------------------------------------------------------------------


def test_stack_frames_locals_and_value_paths(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    snap = start(dbg, cart, "--break", cart.loc("loop"), "--run")
    assert_at(snap, cart, "loop", function="total")

    frames = ok(dbg.json("stack"))["frames"]
    assert [f["function"] for f in frames[:3]] == ["total", "main", "<module>"], frames
    assert [f["line"] for f in frames[:2]] == [cart.lines["loop"], cart.lines["call-total"]]
    assert frames[0]["current"] is True
    assert len(ok(dbg.json("stack", "--levels", "2"))["frames"]) == 2

    up = ok(dbg.json("up"))["frame"]
    assert (up["index"], up["function"], up["line"]) == (1, "main", cart.lines["call-total"])
    names = [v["name"] for v in ok(dbg.json("locals"))["variables"]]
    assert names == ["cart"], names
    value = ok(dbg.json("print", 'cart.items[2]["name"]'))
    assert (value["value"], value["type"]) == ("'coffee'", "str")

    down = ok(dbg.json("down"))["frame"]
    assert (down["index"], down["function"]) == (0, "total")
    edge = dbg.json("down")
    assert edge["_exit"] == 1 and edge["error"]["kind"] == "failed", edge
    frame = ok(dbg.json("frame", "2"))["frame"]
    assert frame["function"] == "<module>"
    ok(dbg.json("frame", "0"))

    rows = ok(dbg.json("locals"))["variables"]
    assert {v["name"] for v in rows} == {"self", "total", "item"}, rows
    assert value_of(rows, "total") == "0" and dict(
        (v["name"], v["type"]) for v in rows)["item"] == "dict"
    assert ok(dbg.json("print", "item['price'] * item['quantity']"))["value"] == "3.0"


def test_vars_by_reference_by_path_and_paging_a_long_list(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    snap = start(dbg, cart, "--break", cart.loc("call-count"), "--run")
    assert_at(snap, cart, "call-count", function="main")

    items = ok(dbg.json("vars", "cart.items"))
    rows = [r for r in items["variables"] if r["name"].isdigit()]
    assert [r["name"] for r in rows] == ["0", "1", "2"], items
    third = rows[2]
    assert third["reference"] > 0
    by_ref = ok(dbg.json("vars", str(third["reference"])))["variables"]
    assert value_of(by_ref, "'name'") == "'coffee'"
    by_path = ok(dbg.json("vars", "cart.items[2]"))["variables"]
    assert value_of(by_path, "'quantity'") == "2"

    leaf = dbg.json("vars", 'cart.items[2]["name"]')
    # A path to a value without children answers with that value's own row.
    assert [(r["name"], r["value"]) for r in ok(leaf)["variables"]] == [("'name'", "'coffee'")]
    missing = dbg.json("vars", "cart.nothing")
    assert missing["_exit"] == 1 and "nothing" in missing["error"]["message"], missing

    # debugpy lists 100 items of a long list, then "more" holding buckets of
    # 1000; it has no variable paging, so dbg opens the folds it needs.
    unpaged = ok(dbg.json("vars", "big"))["variables"]
    assert value_of(unpaged, "len()") == "10000"
    assert value_of(unpaged, "more") == "..."
    page = ok(dbg.json("vars", "big", "--start", "9990", "--count", "5"))["variables"]
    assert [(r["name"], r["value"]) for r in page] == [
        (f"{i:04d}", f"'row-{i}'") for i in range(9990, 9995)], page
    across = ok(dbg.json("vars", "big", "--start", "98", "--count", "4"))["variables"]
    assert [r["value"] for r in across] == [f"'row-{i}'" for i in range(98, 102)], across
    first = ok(dbg.json("vars", "big", "--count", "3"))["variables"]
    assert [r["name"] for r in first] == ["0000", "0001", "0002"], first
    tail = ok(dbg.json("vars", "big", "--start", "9998"))["variables"]
    assert [r["value"] for r in tail] == ["'row-9998'", "'row-9999'"], tail
    assert ok(dbg.json("vars", "big", "--start", "20000", "--count", "5"))["variables"] == []
    assert ok(dbg.json("print", "big[7777]"))["value"] == "'row-7777'"


def test_set_variable_changes_what_the_program_does(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    snap = start(dbg, cart, "--break", cart.loc("discount"), "--run")
    assert_at(snap, cart, "discount", function="apply_discount")
    assert value_of(snap["locals"], "total") == "19.25"

    changed = ok(dbg.json("set", "total", "100"))
    assert (changed["value"], changed["type"]) == ("100", "int"), changed
    assert ok(dbg.json("print", "total"))["value"] == "100"
    snap = ok(dbg.json("continue"))
    assert snap["exit_code"] == 0
    assert "total after discount: 90.00\n" in output(dbg, "stdout")


def test_threads_list_switch_and_stacks_differ(dbg: Dbg, target: Any) -> None:
    prog = target("dap_threads.py")
    snap = start(dbg, prog, "--break", prog.loc("main-break"), "--run")
    assert_at(snap, prog, "main-break", function="main")

    threads = ok(dbg.json("threads"))["threads"]
    by_name = {t["name"]: t for t in threads}
    assert set(by_name) == {"MainThread", "dap-worker"}, threads
    assert by_name["MainThread"]["current"] is True and by_name["dap-worker"]["current"] is False

    main_stack = ok(dbg.json("stack"))["frames"]
    assert main_stack[0]["function"] == "main"
    switched = ok(dbg.json("thread", str(by_name["dap-worker"]["id"])))["thread"]
    assert switched["name"] == "dap-worker" and switched["current"] is True
    worker_stack = ok(dbg.json("stack"))["frames"]
    # Usually in time.sleep (so `worker` is on top); maybe inside Event.is_set.
    worker = next(f for f in worker_stack if f["function"] == "worker")
    assert worker["index"] <= 1 and worker["line"] in (
        prog.lines["worker-wait"] - 1, prog.lines["worker-wait"]), worker_stack
    assert "main" not in [f["function"] for f in worker_stack]
    # The thread's start in threading.py is the standard library's: hidden, counted.
    assert "threading" in ok(dbg.json("stack"))["hidden"][-1]["of"]
    assert "threading.py" in ok(dbg.json("stack", "--all"))["frames"][-1]["file"]
    current = [t for t in ok(dbg.json("threads"))["threads"] if t["current"]]
    assert [t["name"] for t in current] == ["dap-worker"]

    bad = dbg.json("thread", "999999")
    assert bad["_exit"] == 1 and bad["error"]["kind"] == "failed", bad
    snap = ok(dbg.json("continue"))
    assert snap["exit_code"] == 0, snap
    out = output(dbg, "stdout")
    assert "worker done" in out and "main done: both threads alive" in out


# -- exceptions --------------------------------------------------------------------


def test_catch_raised_and_uncaught_exceptions(dbg: Dbg, target: Any) -> None:
    prog = target("dap_raise.py")
    start(dbg, prog)
    bogus = dbg.json("catch", "bogus")
    assert bogus["_exit"] == 2 and "raised" in bogus["error"]["hint"], bogus
    assert ok(dbg.json("catch", "raised"))["filters"] == ["raised"]

    snap = dbg.json("continue")
    assert_at(snap, prog, "raise", reason="exception", function="parse")
    assert snap["description"] == "ValueError: invalid literal for int() with base 10: 'three'"
    info = ok(dbg.json("exception"))
    assert (info["exception"], info["type"]) == ("ValueError", "ValueError"), info
    assert info["description"] == "invalid literal for int() with base 10: 'three'"
    assert info["break_mode"] == "always"
    text = dbg("exception")
    assert text.code == 0 and "ValueError: invalid literal" in text.out, text

    assert ok(dbg.json("catch", "uncaught"))["filters"] == ["uncaught"]
    snap = dbg.json("continue")
    assert_at(snap, prog, "uncaught", reason="exception", function="main")
    assert snap["description"] == "RuntimeError: boom: total was 3", snap
    assert "skipped three" in output(dbg, "stdout")
    # debugpy glues "(note: full exception trace is shown but execution is
    # paused at: _run_module_as_main)" to the type: not part of it, and not
    # said (the stop is in main, where dbg says, and evaluates).
    info = ok(dbg.json("exception"))
    assert (info["exception"], info["type"]) == ("RuntimeError", "RuntimeError"), info
    assert info["description"] == "boom: total was 3" and info["break_mode"] == "unhandled"
    assert "paused at" not in json.dumps(info), info
    assert ok(dbg.json("print", "total"))["value"] == "3"

    snap = ok(dbg.json("continue"))
    assert (snap["state"], snap["exit_code"]) == ("exited", 1), snap
    assert "RuntimeError: boom: total was 3" in output(dbg, "stderr")

    # Restart catches what was caught before.
    assert ok(dbg.json("restart"))["failed_breakpoints"] == []
    assert_at(dbg.json("continue"), prog, "uncaught", reason="exception")


def test_uncaught_exception_with_no_catch_ends_the_program(dbg: Dbg, target: Any) -> None:
    """An uncaught exception stops the program by default; `--no-catch`
    lets it end the program as Python would."""
    prog = target("dap_raise.py")
    snap = start(dbg, prog, "--no-catch", "--run")
    assert (snap["state"], snap["exit_code"]) == ("exited", 1), snap
    err = output(dbg, "stderr")
    assert "Traceback" in err and "RuntimeError: boom: total was 3" in err, err
    assert "skipped three" in output(dbg, "stdout")


# -- programs that are more than a script --------------------------------------------


def test_program_starting_a_subprocess(dbg: Dbg, target: Any) -> None:
    prog = target("dap_spawn.py")
    begun = time.monotonic()
    snap = start(dbg, prog, "--break", prog.loc("after-child"), "--run")
    assert_at(snap, prog, "after-child")
    assert value_of(snap["locals"], "child").startswith("CompletedProcess("), snap
    assert ok(dbg.json("print", "child.returncode"))["value"] == "7"
    snap = ok(dbg.json("continue"))
    assert (snap["state"], snap["exit_code"]) == ("exited", 0), snap
    assert time.monotonic() - begun < 30
    out = output(dbg, "stdout")
    assert "child says hi\n" in out and "child exit 7\n" in out, out
    ok(dbg.json("kill"))
    assert wait_until(lambda: not processes_of(dbg.home, str(prog.path)), 5), \
        processes_of(dbg.home, str(prog.path))


def test_start_module_package_with_args(dbg: Dbg, target: Any) -> None:
    pkg = target("dap_pkg/__main__.py")
    target("dap_pkg/__init__.py")
    snap = dbg.json("start", "--backend", "debugpy", "--break", pkg.loc("pkg-main"), "--run",
                    "-m", "dap_pkg", "one", "--two", "3")
    assert_at(snap, pkg, "pkg-main", function="main")
    assert ok(dbg.json("print", "argv"))["value"] == "['one', '--two', '3']"
    assert ok(dbg.json("status"))["program"] == "dap_pkg"
    assert ok(dbg.json("continue"))["exit_code"] == 0
    assert output(dbg, "stdout") == "pkg args=one,--two,3\n"


def test_start_module_pytest_on_a_test_file(dbg: Dbg, target: Any) -> None:
    tests = target("dap_pytest_target.py")
    # The debuggee runs under `python3` from PATH: put the venv's first, as an
    # activated venv would, so it has pytest.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    snap = dbg.json("start", "--backend", "debugpy", "--break", tests.loc("add"), "--run",
                    "-m", "pytest", tests.path.name, "-q", "-p", "no:cacheprovider",
                    env={"PATH": path}, timeout=90)
    assert_at(snap, tests, "add", function="add")
    assert ok(dbg.json("print", "(a, b)"))["value"] == "(2, 3)"
    frames = [f["function"] for f in ok(dbg.json("stack", "--levels", "3"))["frames"]]
    assert frames[:2] == ["add", "test_add"], frames
    snap = ok(dbg.json("--timeout", "60", "continue", timeout=90))
    assert (snap["state"], snap["exit_code"]) == ("exited", 0), snap
    assert "1 passed" in output(dbg, "stdout")


# -- escape hatches and expert ops ---------------------------------------------------


def test_raw_evaluates_statements_and_dap_sends_requests(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    start(dbg, cart, "--break", cart.loc("discount"), "--run")

    # `dbg raw` is evaluate in the repl context: statements run there.
    assert ok(dbg.json("raw", "doubled = total * 2"))["output"] == ""
    assert ok(dbg.json("raw", "doubled"))["output"] == "38.5"
    assert ok(dbg.json("print", "doubled"))["value"] == "38.5"
    multi = dbg.json("raw", "a = 1\nb = 2")
    assert multi["_exit"] == 2 and multi["error"]["kind"] == "usage", multi
    not_expression = dbg.json("print", "zz = 1")
    assert not_expression["_exit"] == 1, not_expression

    threads = ok(dbg.json("dap", "threads"))
    assert threads["command"] == "threads"
    assert threads["body"]["threads"] == [{"id": 1, "name": "MainThread"}], threads
    frames = ok(dbg.json("dap", "stackTrace", '{"threadId": 1, "levels": 1}'))["body"]
    assert frames["stackFrames"][0]["name"] == "apply_discount", frames
    # An unknown request name gets an error from debugpy (it does not hang).
    unknown = dbg.json("dap", "noSuchRequest", timeout=20)
    assert unknown["_exit"] == 1 and unknown["error"]["kind"] == "failed", unknown
    bad_json = dbg.json("dap", "threads", "{not json")
    assert bad_json["_exit"] == 2, bad_json

    scopes = ok(dbg.json("scopes"))["scopes"]
    assert [s["name"] for s in scopes] == ["Locals", "Globals"], scopes
    # debugpy advertises supportsModulesRequest: `dbg modules` works.
    modules = ok(dbg.json("modules"))["modules"]
    assert here(cart) in [m["path"] for m in modules], modules
    assert ok(dbg.json("continue"))["exit_code"] == 0


def test_unsupported_expert_ops_are_refused_without_hanging(dbg: Dbg, target: Any) -> None:
    """debugpy never answers disassemble, readMemory, dataBreakpointInfo or
    loadedSources, and hangs every later request after one of them: dbg must
    refuse them itself, quickly, and the session must still work after."""
    cart = target("dap_cart.py")
    start(dbg, cart, "--break", cart.loc("discount"), "--run")
    refused = [
        ("disasm",),
        ("memory", "read", "0", "4"),
        ("memory", "write", "0", "00"),
        ("sources",),
        ("break", "--instruction", "0x1000"),
        ("dap", "disassemble", '{"memoryReference": "0", "instructionCount": 1}'),
        ("dap", "readMemory", '{"memoryReference": "0", "count": 4}'),
        ("dap", "dataBreakpointInfo", '{"name": "total"}'),
        ("dap", "loadedSources"),
    ]
    for argv in refused:
        begun = time.monotonic()
        answer = dbg.json(*argv, timeout=20)
        assert_unsupported(answer)
        assert time.monotonic() - begun < 10, argv
    snap = dbg.json("next")
    assert_at(snap, cart, "discount-return", reason="step")
    assert ok(dbg.json("continue"))["exit_code"] == 0


# -- attach, restart, cleanup ----------------------------------------------------------


def test_attach_to_debugpy_listen_then_kill_detaches(dbg: Dbg, target: Any,
                                                     tmp_path: Path) -> None:
    """`dbg attach --port` talks to the adapter debugpy.listen() started.
    Observed: on `dbg kill` dbg detaches (disconnect, terminateDebuggee false,
    as gdb does when it quits while attached); debugpy drops the breakpoints
    and resumes the program, which keeps running, keeps writing to its own
    stdout, and accepts a new client."""
    server = target("dap_server.py")
    log = tmp_path / "server.log"
    with debugpy_server(server, log) as (proc, port):
        snap = dbg.json("attach", "--backend", "debugpy", "--port", str(port))
        ok(snap)
        # An attached program is paused so it can be inspected.
        assert snap["state"] == "stopped" and snap["reason"] == "attach", snap
        assert snap["location"]["file"] == here(server)
        assert ok(dbg.json("status"))["program"] == f"127.0.0.1:{port}"

        bp = ok(dbg.json("break", server.loc("tick")))["breakpoint"]
        assert bp["verified"] is True
        snap = dbg.json("continue")
        assert_at(snap, server, "tick", reason="breakpoint", function="tick")
        n = int(value_of(snap["locals"], "n"))
        assert n > 0
        assert ok(dbg.json("print", "n * n"))["value"] == str(n * n)
        frames = [f["function"] for f in ok(dbg.json("stack"))["frames"]]
        assert frames == ["tick", "main", "<module>"], frames
        snap = dbg.json("continue")
        assert_at(snap, server, "tick")
        assert int(value_of(snap["locals"], "n")) == n + 1

        # What the program prints while attached reaches `dbg output` too.
        ok(dbg.json("unbreak", str(bp["id"])))
        assert dbg.json("--timeout", "0.6", "continue")["state"] == "running"
        assert wait_until(lambda: "tick " in output(dbg, "stdout"), 5), output(dbg)

        ok(dbg.json("kill"))
        before = ticks(log)
        assert wait_until(lambda: ticks(log) > before + 2, 10), log.read_text()
        assert proc.poll() is None
        # Only the server and the adapter it started are left: nothing of dbg's.
        assert wait_until(lambda: not processes_of(dbg.home), 5), processes_of(dbg.home)

        again = dbg.json("-s", "again", "attach", "--backend", "debugpy", "--port", str(port))
        assert again["ok"] and again["state"] == "stopped", again
        assert ok(dbg.json("-s", "again", "breaks"))["breakpoints"] == []
        ok(dbg.json("-s", "again", "kill"))
        assert proc.poll() is None


def test_attach_to_a_closed_port_fails_cleanly(dbg: Dbg) -> None:
    answer = dbg.json("attach", "--backend", "debugpy", "--port", str(free_port()), timeout=30)
    assert answer["ok"] is False and answer["_exit"] == 1, answer
    assert "cannot connect" in answer["error"]["message"], answer


def test_restart_reapplies_breakpoints(dbg: Dbg, target: Any) -> None:
    cart = target("dap_cart.py")
    start(dbg, cart, "--break", cart.loc("discount"))
    ok(dbg.json("break", "count_up"))
    ok(dbg.json("break", cart.loc("count"), "--if", "x == 7"))
    assert_at(dbg.json("continue"), cart, "discount")

    snap = ok(dbg.json("restart"))
    assert snap["state"] == "stopped" and snap["reason"] == "entry", snap
    assert snap["failed_breakpoints"] == []
    placed = [(b["function"] or b["line"], b["condition"]) for b in snap["breakpoints"]]
    assert placed == [(cart.lines["discount"], None), ("count_up", None),
                      (cart.lines["count"], "x == 7")], placed

    assert_at(dbg.json("continue"), cart, "discount", reason="breakpoint")
    snap = ok(dbg.json("continue"))
    assert snap["location"]["function"] == "count_up", snap
    snap = dbg.json("continue")
    assert_at(snap, cart, "count", reason="breakpoint")
    assert value_of(snap["locals"], "x") == "7"
    assert ok(dbg.json("continue"))["exit_code"] == 0
    # The first run's output is kept, followed by the second's.
    assert output(dbg, "stdout").count("subtotal: 19.25") == 2


def test_kill_leaves_no_adapter_or_debuggee(dbg: Dbg, target: Any) -> None:
    spin = target("dap_spin.py")
    cart = target("dap_cart.py")
    assert_at(start(dbg, cart, "--break", cart.loc("loop"), "--run"), cart, "loop")
    snap = dbg.json("-s", "busy", "start", "--backend", "debugpy", str(spin.path))
    ok(snap)
    assert dbg.json("-s", "busy", "--timeout", "0.5", "continue")["state"] == "running"

    alive = processes_of(dbg.home, str(spin.path), str(cart.path))
    assert any("debugpy" in p and "adapter" in p for p in alive), alive
    assert sum(str(spin.path) in p for p in alive) >= 1, alive

    ok(dbg.json("kill"))
    ok(dbg.json("-s", "busy", "kill"))
    assert wait_until(lambda: not processes_of(dbg.home, str(spin.path), str(cart.path)), 5), \
        processes_of(dbg.home, str(spin.path), str(cart.path))
