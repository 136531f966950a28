"""Fault injection through the real `dbg` CLI, with a fake adapter that speaks DAP.

Every fault must end in a clear one-line error of the right kind (``backend``
when the adapter died or broke the protocol, ``timeout`` when it stopped
answering, ``failed`` when it said no), a non-zero exit, no traceback, and no
hang past ``--timeout``. After each, `dbg kill` leaves no adapter process and
`dbg start` works again.
"""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

TIMEOUT = 2.0


def assert_error(outcome: Any, kind: str, *fragments: str) -> str:
    """A clean failure: non-zero exit, one JSON error of ``kind``, nothing on
    stderr; its message and hint (shown as `error: MESSAGE (HINT)` without
    --json) are one line and contain ``fragments``. Returns that line."""
    assert outcome.code != 0, outcome
    assert outcome.data.get("ok") is False, outcome
    error = outcome.error
    assert error.get("kind") == kind, outcome
    message = f"{error.get('message')} ({error.get('hint')})"
    assert "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert "Traceback" not in outcome.err and "traceback" not in error, outcome
    assert outcome.err == "", outcome.err
    return message


def assert_fresh_start_works(fake: Any) -> None:
    """The session is gone, its adapter too, and a healthy adapter starts."""
    fake.wait_gone()
    assert fake.run("status").error.get("kind") == "no_session"
    fake.use()
    started = fake.start()
    assert started.data.get("ok"), started
    assert started.data["state"] == "stopped"
    assert fake.run("kill").code == 0
    fake.wait_gone()


def test_healthy_fake_adapter_session(fake: Any) -> None:
    # The fake itself must be right before its faults mean anything.
    started = fake.start()
    assert started.code == 0, started
    assert started.data["via"]["tool"] == "fake"
    assert started.data["reason"] == "entry"
    assert started.data["location"]["line"] == 1
    assert {v["name"]: v["value"] for v in started.data["locals"]}["x"] == "42"
    assert fake.run("print", "x").data["value"] == "42"
    assert_error(fake.run("print", "nope"), "failed", "name 'nope' is not defined")
    stepped = fake.run("next")
    assert stepped.data["reason"] == "step" and stepped.data["location"]["line"] == 2
    assert [f["function"] for f in fake.run("stack").data["frames"]] == ["main", "<module>"]
    output = fake.run("output").data
    assert "hello from the fake program" in "".join(e["text"] for e in output["chunks"])
    ended = fake.run("continue")
    assert ended.data["state"] == "exited" and ended.data["exit_code"] == 0
    assert fake.pids()
    assert fake.run("kill").code == 0
    fake.wait_gone(within=0)


# -- the adapter crashes --------------------------------------------------------


def test_crash_mid_request_reports_exit_and_last_stderr_line(fake: Any) -> None:
    fake.use("crash-on", "evaluate")
    assert fake.start().code == 0
    crashed = fake.run("print", "x", timeout=TIMEOUT)
    assert_error(crashed, "backend", "fake (pid ", "exited with code 3",
                 "simulated crash while handling evaluate")
    # In text mode the same error is one line on stderr.
    later = fake.dbg("--timeout", str(TIMEOUT), "break", f"{fake.program}:2")
    assert later.code == 1 and later.out == ""
    assert later.err.startswith("error: ") and later.err.count("\n") == 1, later.err
    assert "exited with code 3" in later.err and "simulated crash" in later.err
    assert "Traceback" not in later.err
    assert fake.run("kill").code == 0
    assert_fresh_start_works(fake)


@pytest.mark.parametrize("request_name", ["initialize", "launch", "configurationDone"])
def test_crash_during_start(fake: Any, request_name: str) -> None:
    fake.use("crash-on", request_name)
    failed = fake.start(timeout=TIMEOUT)
    assert_error(failed, "backend", "exited with code 3",
                 f"simulated crash while handling {request_name}")
    assert_fresh_start_works(fake)


@pytest.mark.parametrize("op", ["next", "continue"])
def test_crash_while_the_program_runs_is_not_an_exit(fake: Any, op: str) -> None:
    # The adapter answers `next`/`continue`, then dies before any stop or exit
    # event: dbg must report the crash, not "the program exited".
    fake.use("crash-after", op)
    assert fake.start().code == 0
    assert_error(fake.run(op, timeout=TIMEOUT), "backend", "exited with code 3",
                 f"simulated crash after answering {op}")
    assert fake.run("kill").code == 0
    assert_fresh_start_works(fake)


def test_adapter_killed_while_the_program_runs_unwatched(fake: Any) -> None:
    # `continue` outlives its --timeout (the program runs on), then the
    # adapter is killed: waiting for the stop reports how the adapter ended.
    fake.use("continue-runs")
    assert fake.start().code == 0
    running = fake.run("continue", timeout=1)
    assert running.code == 0 and running.data["state"] == "running", running
    for pid in fake.pids():
        os.kill(pid, signal.SIGKILL)
    assert_error(fake.run("wait", timeout=TIMEOUT), "backend", "was killed by SIGKILL")
    assert fake.run("kill").code == 0
    assert_fresh_start_works(fake)


# -- the adapter stops answering ------------------------------------------------


@pytest.mark.parametrize(("request_name", "op", "after"), [
    ("evaluate", ["print", "x"], ["stack"]),
    ("threads", ["threads"], ["print", "x"]),
    # The target may be running after all: `pause` stops it again.
    ("next", ["next"], ["pause"]),
], ids=["evaluate", "threads", "next"])
def test_unanswered_request_times_out_and_names_it(
        fake: Any, request_name: str, op: list[str], after: list[str]) -> None:
    fake.use("hang-on", request_name)
    assert fake.start().code == 0
    hung = fake.run(*op, timeout=TIMEOUT)
    assert_error(hung, "timeout", f"fake did not answer {request_name} within {TIMEOUT:g}s")
    # Bounded by --timeout itself, not only by the client's own safety margin.
    assert hung.seconds < TIMEOUT + 5, hung.seconds
    # The adapter still answers everything else, and so does the session.
    assert fake.run(*after).code == 0
    if request_name != "evaluate":
        assert fake.run("print", "x").data["value"] == "42"
    assert fake.run("kill").code == 0
    fake.wait_gone(within=0)


@pytest.mark.parametrize(("modes", "fragment"), [
    (["hang-on", "initialize"], "did not answer initialize within 2s"),
    (["no-initialized"], "did not finish starting within 2s (no `initialized` event)"),
    # Slower than --timeout is the same as never answering launch.
    (["slow-launch", "30"], "(no `initialized` event and no answer to launch)"),
    (["hang-on", "configurationDone"], "did not answer configurationDone within"),
], ids=["initialize", "no-initialized", "slow-launch", "configurationDone"])
def test_start_that_never_finishes_times_out(fake: Any, modes: list[str], fragment: str) -> None:
    fake.use(*modes)
    failed = fake.start(timeout=TIMEOUT)
    assert_error(failed, "timeout", "fake", fragment)
    assert failed.seconds < TIMEOUT + 5, failed.seconds
    assert_fresh_start_works(fake)


def test_slow_launch_within_timeout_is_fine(fake: Any) -> None:
    fake.use("slow-launch", "1")
    started = fake.start(timeout=10)
    assert started.code == 0 and started.data["reason"] == "entry", started


def test_kill_when_disconnect_is_never_answered(fake: Any) -> None:
    fake.use("hang-on", "disconnect")
    assert fake.start().code == 0
    killed = fake.run("kill", timeout=TIMEOUT)
    assert killed.code == 0, killed
    fake.wait_gone()


# -- the adapter breaks the protocol ----------------------------------------------


def test_garbage_between_frames_is_skipped(fake: Any) -> None:
    fake.use("garbage")
    started = fake.start()
    assert started.code == 0, started
    assert started.data["reason"] == "entry"
    assert fake.run("print", "x").data["value"] == "42"
    assert len(fake.run("locals").data["variables"]) == 3
    assert fake.run("next").data["location"]["line"] == 2
    assert fake.run("vars", "items").data["variables"][1]["value"] == "2"
    output = "".join(e["text"] for e in fake.run("output").data["chunks"])
    assert "hello from the fake program" in output
    assert "stray print" not in output
    ended = fake.run("continue")
    assert ended.data["state"] == "exited" and ended.data["exit_code"] == 0
    log = (fake.dbg.home / "sessions" / "default" / "debugger.log").read_text()
    assert "skipped non-DAP bytes" in log and "stray print" in log
    assert fake.run("kill").code == 0
    fake.wait_gone(within=0)


def test_oversized_body_ends_the_session_naming_the_limit(fake: Any) -> None:
    fake.use("oversized", "evaluate")
    assert fake.start().code == 0
    broken = fake.run("print", "x", timeout=TIMEOUT)
    assert_error(broken, "backend", "fake broke the protocol", "2147483648-byte message",
                 f"the limit is {64 << 20} bytes")
    assert broken.seconds < TIMEOUT + 5
    # The session is over: nothing waits for the 2 GB that never come.
    after = fake.run("next", timeout=TIMEOUT)
    assert after.code != 0 and after.error.get("kind") in ("target_exited", "backend"), after
    assert fake.run("kill").code == 0
    assert_fresh_start_works(fake)


def test_oversized_answer_during_start(fake: Any) -> None:
    fake.use("oversized", "initialize")
    assert_error(fake.start(timeout=TIMEOUT), "backend", "2147483648-byte message",
                 "the limit is")
    assert_fresh_start_works(fake)


# -- the adapter says no ----------------------------------------------------------


def test_error_response_is_a_failed_op_with_the_formatted_message(fake: Any) -> None:
    fake.use("error-on", "evaluate")
    assert fake.start().code == 0
    message = assert_error(fake.run("print", "x", timeout=TIMEOUT), "failed",
                           "evaluate failed: cannot evaluate in the fake program "
                           "(injected fault)")
    assert "{" not in message
    # A refusal is not a fault: the session goes on.
    assert fake.run("next").data["location"]["line"] == 2
    assert fake.run("kill").code == 0
    fake.wait_gone(within=0)


def test_error_response_to_launch_fails_the_start(fake: Any) -> None:
    fake.use("error-on", "launch")
    assert_error(fake.start(timeout=TIMEOUT), "failed",
                 "launch failed: cannot launch in the fake program (injected fault)")
    assert_fresh_start_works(fake)
