"""The PTY layer (dbgcore.transport.ptydriver, dbgcore.backends.console) on a real console program:
prompts that change, answers owed by timed-out commands, ANSI stripping,
EOF and TIMEOUT as typed errors, and cleanup."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from dbgcore.backends.console import ConsoleBackend
from dbgcore.backends.contract import BackendSpec, SessionContext
from dbgcore.shared.errors import DebuggerTimeout, NotStopped, TargetExited
from dbgcore.transport.outputbuffer import OutputBuffer
from dbgcore.transport.ptydriver import PtyEOF, PtyTimeout
from dbgcore.transport.translog import TransLog
from dbgcore.vocab.model import StopEvent

TOY = str(Path(__file__).with_name("toy_console.py"))
PROMPT = re.compile(r"(?:\A|\n)(> |main\[\d+\] )$")
STOPPED = re.compile(r"(?:\A|\n)(main\[\d+\] )$")
STOP_RE = re.compile(r"Stopped at line (\d+)")
#: Each command's timeout, as an op would pass it.
TIMEOUT = 5.0


class ToyBackend(ConsoleBackend):
    """What a plugin for the toy console would be: launch, wait_stop, ops."""

    id = "toy"
    tool = "toy"

    def launch(self, request: Any, timeout: float) -> StopEvent:
        self.start_console([sys.executable, TOY], PROMPT)
        self.drv().expect([], 10)
        self.set_state("stopped")
        return StopEvent(state="stopped", reason="entry")

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        try:
            match = self.drv().expect([STOP_RE], wait, prompt=STOPPED)
        except PtyTimeout:
            return StopEvent(state="running")
        self.drv().expect([], timeout)
        self.set_state("stopped")
        return StopEvent(state="stopped", reason="step", description=match.groups[0])

    def cont(self, timeout: float) -> StopEvent:
        self.require_stopped("continue", timeout)
        self.drv().send_line("run")
        self.set_state("running")
        return self.wait_stop(timeout, timeout)


@pytest.fixture
def toy(tmp_path: Path) -> Any:
    log = tmp_path / "debugger.log"
    ctx = SessionContext(name="t", run_dir=tmp_path, output=OutputBuffer(), log=TransLog(log),
                         shutdown_grace=0.5)
    backend = ToyBackend(BackendSpec(name="toy", plugin="toy"), ctx)
    backend.launch(None, TIMEOUT)
    yield backend
    backend.terminate()


def test_one_command_at_a_time_and_ansi_stripped(toy: ToyBackend) -> None:
    assert toy.command("echo hello there", TIMEOUT).strip() == "hello there"
    assert toy.command("color", TIMEOUT).strip() == "red text"
    answer = toy.command("chatter 200", TIMEOUT)
    assert answer.count("program line") == 200 and answer.rstrip().endswith("chatter done")
    assert toy.command("echo after", TIMEOUT).strip() == "after"


def test_a_timed_out_answer_is_read_before_the_next_one(toy: ToyBackend) -> None:
    with pytest.raises(DebuggerTimeout, match=r"toy did not answer within 0\.3s"):
        toy.command("slow 0.8", timeout=0.3)
    # The late "slept 0.8" belongs to the timed-out command, not to this one.
    assert toy.command("echo next", TIMEOUT).strip() == "next"
    assert toy.command("echo and then", TIMEOUT).strip() == "and then"


def test_a_prompt_that_changes_with_the_state(toy: ToyBackend) -> None:
    event = toy.cont(5)
    assert (event.state, event.description) == ("stopped", "7")
    assert toy.command("echo stopped now", TIMEOUT).strip() == "stopped now"


def test_running_state_refuses_ops_and_poll_finds_the_stop(toy: ToyBackend) -> None:
    assert toy.cont(0.05).state == "running"
    with pytest.raises(NotStopped, match="toy cannot take 'locals' while the program runs"):
        toy.require_stopped("locals", TIMEOUT)
    event = toy.poll(5)
    assert event is not None and event.state == "stopped"
    assert toy.poll(0) is None  # stopped: nothing to wait for


def test_the_console_ending_is_a_typed_error_and_terminate_cleans_up(toy: ToyBackend) -> None:
    driver = toy.drv()
    driver.send_line("quit")
    with pytest.raises(PtyEOF) as info:
        driver.expect([], 5)
    assert "bye" in info.value.output
    toy.on_console_end(info.value.output)
    with pytest.raises(TargetExited):
        toy.require_stopped("print", TIMEOUT)
    pid = driver.pid
    toy.terminate()
    assert not Path(f"/proc/{pid}").exists()


def test_the_transcript_log_has_both_directions(toy: ToyBackend, tmp_path: Path) -> None:
    toy.command("echo logged", TIMEOUT)
    text = (tmp_path / "debugger.log").read_text()
    assert "--> echo logged" in text and "<-- logged" in text
