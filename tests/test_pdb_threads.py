"""pdb and the program's threads (issue 41): a breakpoint stops in a thread
the program starts (a ThreadingHTTPServer's handler), the stop names the
thread, `threads` lists them, a pause stops in the program's frame and not
in the debugger's own; and `dbg exception` inside an except block names the
exception it handles, on pdb and on debugpy."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.shared import procutil
from dbgcore.testing import require

if TYPE_CHECKING:
    from conftest import Dbg, Target


def _port(dbg: Dbg) -> tuple[int, int]:
    """The port and pid the server printed (`listening PORT PID`)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = "".join(c["text"] for c in dbg.json("output")["chunks"])
        found = re.search(r"listening (\d+) (\d+)", text)
        if found:
            return int(found.group(1)), int(found.group(2))
        time.sleep(0.1)
    raise AssertionError("the server never said its port")


def _python(version: str) -> list[str]:
    """``--python`` for an interpreter of ``version`` ("3.12"): none for this
    one's own version, pyenv's else (a skip where there is none)."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return []
    found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python3"))
    require(bool(found), f"no Python {version} here (pyenv has none)")
    return ["--python", str(found[-1])]


def _request(port: int, answers: dict[str, object]) -> threading.Thread:
    """A client's GET in a thread of the test's (it waits while the server
    is stopped at the breakpoint)."""
    def get() -> None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/kiwi", timeout=60) as reply:
                answers["body"] = reply.read().decode()
        except Exception as exc:  # said by the test's assert
            answers["error"] = repr(exc)

    client = threading.Thread(target=get, daemon=True)
    client.start()
    return client


@pytest.mark.usefixtures("pdb_ready")
@pytest.mark.parametrize("version", ["3.11", "3.8", "3.13"])
def test_breakpoint_in_a_request_thread_stops_there_named(dbg: Dbg, target: Any,
                                                          version: str) -> None:
    server = target("threaded_http.py")
    started = dbg.json("--timeout", "3", "start", "--backend", "pdb", *_python(version), "--break",
                       server.loc("handle"), "--run", str(server.path))
    assert started["ok"] and started["state"] == "running", started
    port, pid = _port(dbg)
    answers: dict[str, object] = {}
    client = _request(port, answers)
    snap = dbg.json("--timeout", "30", "wait")
    assert snap["ok"] and snap["state"] == "stopped" and snap["reason"] == "breakpoint", snap
    loc = snap["location"]
    assert (loc["file"], loc["line"], loc["function"]) == (
        os.path.realpath(server.path), server.lines["handle"], "do_GET"), snap
    # The handler's thread, by its name and the system's id for it.
    # (Python 3.10+ adds the target's name: "Thread-1 (process_request_thread)".)
    assert snap["thread_name"].startswith("Thread-"), snap
    assert isinstance(snap["thread"], int) and snap["thread"] != pid, snap
    text = dbg("stack").out
    assert "do_GET" in text and "sigint_handler" not in text
    threads = dbg.json("threads")["threads"]
    assert threads[0]["name"] == "MainThread" and threads[0]["id"] == pid, threads
    assert threads[0]["current"] is False and threads[0]["function"] == "main", threads
    current = [t for t in threads if t["current"]]
    assert [(t["id"], t["function"]) for t in current] == [(snap["thread"], "do_GET")], threads
    # A thread that is not the stopped one cannot be shown: it runs on.
    refused = dbg("thread", str(pid))
    assert refused.code == 1 and "runs on" in refused.err and "Traceback" not in refused.err
    assert "body" not in answers  # the client still waits for the stopped handler
    # A step stays in the handler's thread.
    stepped = dbg.json("next")
    assert stepped["location"]["function"] == "do_GET", stepped
    assert stepped["thread"] == snap["thread"], stepped

    went_on = dbg.json("--timeout", "2", "continue")
    assert went_on["ok"] and went_on["state"] == "running", went_on
    client.join(30)
    assert answers == {"body": "hello from /kiwi"}, answers
    began = procutil.start_time(pid)
    assert dbg.json("kill")["ok"]
    deadline = time.monotonic() + 10
    while procutil.alive(pid, began) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not procutil.alive(pid, began)


@pytest.mark.usefixtures("pdb_ready")
def test_two_threads_at_one_breakpoint_stop_one_after_the_other(dbg: Dbg, target: Any) -> None:
    """A second request's thread that reaches the breakpoint while the first
    is stopped waits its turn: its stop is the next one."""
    server = target("threaded_http.py")
    dbg.json("--timeout", "3", "start", "--backend", "pdb", "--break", server.loc("handle"),
             "--run", str(server.path))
    port, _ = _port(dbg)
    answers: list[dict[str, object]] = [{}, {}]
    clients = [_request(port, answers[0])]
    first = dbg.json("--timeout", "30", "wait")
    assert first["reason"] == "breakpoint", first
    clients.append(_request(port, answers[1]))
    time.sleep(1.0)  # the second handler is at the breakpoint too, waiting
    second = dbg.json("--timeout", "30", "continue")
    assert second["state"] == "stopped" and second["reason"] == "breakpoint", second
    assert second["location"]["function"] == "do_GET"
    assert second["thread"] != first["thread"], (first, second)
    assert dbg.json("--timeout", "2", "continue")["state"] == "running"
    for client in clients:
        client.join(30)
    assert answers == [{"body": "hello from /kiwi"}] * 2, answers


@pytest.mark.usefixtures("pdb_ready")
def test_pause_stops_in_the_programs_frame_not_the_debuggers(dbg: Dbg, target: Any) -> None:
    """With a breakpoint set (so the program is traced), a pause while the
    server waits stops where its main thread is, not in pdb's SIGINT
    handler or the code it calls."""
    server = target("threaded_http.py")
    dbg.json("--timeout", "3", "start", "--backend", "pdb", "--break", server.loc("handle"),
             "--run", str(server.path))
    _port(dbg)
    for _ in range(2):
        paused = dbg.json("pause")
        assert paused["ok"] and paused["reason"] == "pause", paused
        where = paused["location"]["file"]
        assert os.path.basename(where) not in ("pdb.py", "bdb.py", "linecache.py"), paused
        assert "dbg_pdb" not in where, paused
        frames = dbg.json("stack", "--all")["frames"]
        assert not [f for f in frames if f["function"] == "sigint_handler"], frames
        assert ("main", os.path.realpath(server.path)) in [(f["function"], f["file"])
                                                            for f in frames], frames
        assert "thread_name" not in paused  # the main thread
        assert dbg.json("--timeout", "1", "continue")["state"] == "running"


@pytest.mark.usefixtures("pdb_ready")
@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_breakpoint_in_a_thread_running_before_it_was_set(dbg: Dbg, target: Any,
                                                          version: str) -> None:
    """From Python 3.12 a thread that ran untraced (no breakpoint then) is
    reached by a breakpoint set later (settrace_all_threads, f_trace)."""
    ticker = target("ticker.py")
    dbg.json("start", "--backend", "pdb", *_python(version), str(ticker.path))
    assert dbg.json("--timeout", "1", "continue")["state"] == "running"
    paused = dbg.json("pause")
    assert paused["reason"] == "pause" and "thread_name" not in paused, paused
    assert dbg.json("break", ticker.loc("tick"))["ok"]
    snap = dbg.json("--timeout", "20", "continue")
    assert snap["state"] == "stopped" and snap["reason"] == "breakpoint", snap
    assert snap["location"]["line"] == ticker.lines["tick"], snap
    assert snap["thread_name"] == "ticker", snap


def _at_handler(dbg: Dbg, backend: str, handled: Target) -> None:
    snap = dbg.json("start", "--backend", backend, "--break", handled.loc("handler"), "--run",
                    str(handled.path))
    assert snap["ok"] and snap["reason"] == "breakpoint", snap
    assert snap["location"]["line"] == handled.lines["handler"], snap


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_exception_inside_an_except_block_is_the_one_handled(
        dbg: Dbg, target: Any, backend: str, backend_ready: Any) -> None:
    backend_ready(backend)
    handled = target("handled.py")
    _at_handler(dbg, backend, handled)
    answer = dbg.json("exception")
    assert answer["ok"], answer
    assert answer["exception"] == "ValueError", answer
    assert "forty-two" in answer["description"] and answer["handled"] is True, answer
    # Its traceback: from the frame that handles it to the raise.
    stack = answer["stack"]
    assert f'line {handled.lines["raise"]}, in parse' in stack, stack
    assert "in main" in stack, stack
    text = dbg("exception").out
    assert "being handled" in text and "ValueError: invalid literal" in text, text
    # Past the except block there is none.
    after = dbg.json("break", handled.loc("after"))
    assert after["ok"], after
    assert dbg.json("continue")["location"]["line"] == handled.lines["after"]
    refused = dbg("exception")
    assert refused.code == 1 and "except block" in refused.err, refused
    assert "Traceback" not in refused.err
