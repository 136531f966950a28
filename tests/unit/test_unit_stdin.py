"""StdinFeed and waiting_for_stdin on real processes: a reader blocked on
the feed's FIFO is waiting for input; one whose fd 0 is the FIFO but that
blocks reading another pipe (lldb-dap's launcher helper) is not."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from dbgcore.transport.streams import StdinFeed, waiting_for_stdin


def _settle(pid: int, feed: StdinFeed, want: bool) -> bool:
    """Whether waiting_for_stdin comes to say ``want`` within 5 s."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if waiting_for_stdin([pid], feed.path) == want:
            return True
        time.sleep(0.02)
    return False


def test_a_reader_of_the_feed_waits_until_a_line_comes(tmp_path: Path) -> None:
    feed = StdinFeed(tmp_path)
    with open(feed.path, "rb") as stdin:
        script = "import sys, time\nprint(input('name? '))\ntime.sleep(1)\nprint(sys.stdin.read())"
        proc = subprocess.Popen([sys.executable, "-c", script], stdin=stdin,
                                stdout=subprocess.PIPE, text=True)
    try:
        assert _settle(proc.pid, feed, True)
        feed.write(b"alice\n")
        assert _settle(proc.pid, feed, False)  # sleeping, not reading
        assert _settle(proc.pid, feed, True)  # reading again, to EOF
        feed.write(b"more\n")
        feed.close()
        out, _ = proc.communicate(timeout=10)
    finally:
        feed.remove()
    assert out == "name? alice\nmore\n\n"


def test_a_process_blocked_on_another_pipe_is_not_waiting_for_input(tmp_path: Path) -> None:
    feed = StdinFeed(tmp_path)
    other = tmp_path / "other.fifo"
    import os

    os.mkfifo(other)
    keep = os.open(other, os.O_RDWR)  # a writer, so the reader's open does not block
    with open(feed.path, "rb") as stdin:
        proc = subprocess.Popen([sys.executable, "-c",
                                 f"open({str(other)!r}, 'rb').read(1)"], stdin=stdin)
    try:
        time.sleep(0.5)
        assert not waiting_for_stdin([proc.pid], feed.path)
    finally:
        proc.kill()
        proc.wait()
        os.close(keep)
        feed.remove()
