"""Fixtures for the DAP fault tests: the fake adapter as a project backend.

`fake` writes ``.dbg/backends.yaml`` into the test's work folder, so the real
`dbg` (started there by the `dbg` fixture) finds a backend named ``fake``
that runs tests/dap/fake_adapter.py with the faults asked for. Each test's
adapter carries a unique ``--tag`` on its command line, which is how the
tests find its processes in /proc (and prove none is left behind).
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

FAKE_ADAPTER = Path(__file__).resolve().with_name("fake_adapter.py")

#: How long past its --timeout a command may take before it counts as hanging.
#: Generous: this bounds hangs, it does not measure speed.
HANG_MARGIN = 15.0


def processes_with(word: str) -> list[int]:
    """Pids of live (non-zombie) processes whose command line contains ``word``."""
    found = []
    needle = word.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read()
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        state = stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3]
        if needle in cmdline and state != b"Z":
            found.append(int(entry))
    return found


@dataclass
class Outcome:
    """One `dbg --json` run: its exit code, its JSON answer, stderr, and time taken."""

    code: int
    data: dict[str, Any]
    err: str
    seconds: float

    @property
    def error(self) -> dict[str, Any]:
        error: dict[str, Any] = self.data.get("error") or {}
        return error


@dataclass
class FakeAdapter:
    dbg: Any
    tag: str = field(default_factory=lambda: f"fake-{uuid.uuid4().hex[:12]}")

    @property
    def program(self) -> Path:
        path = Path(self.dbg.cwd) / "prog.py"
        if not path.exists():
            path.write_text("x = 42\nprint(x)\n", encoding="utf-8")
        return path

    def use(self, *modes: str) -> None:
        """(Re)write the project's backends.yaml: backend ``fake`` with ``modes``."""
        command = [sys.executable, str(FAKE_ADAPTER), "--tag", self.tag, *modes]
        config = {"backends": {"fake": {
            "plugin": "dap", "command": command,
            "options": {"profile": "generic", "tool": "fake"}}}}
        folder = Path(self.dbg.cwd) / ".dbg"
        folder.mkdir(exist_ok=True)
        # JSON is YAML; every string quoted, so "10" stays a string.
        (folder / "backends.yaml").write_text(json.dumps(config, indent=1), encoding="utf-8")

    def run(self, *args: str, timeout: float = 3.0) -> Outcome:
        """`dbg --json --timeout T ARGS`; fails the test if it runs past T + HANG_MARGIN."""
        started = time.monotonic()
        result = self.dbg("--json", "--timeout", str(timeout), *args,
                          timeout=timeout + HANG_MARGIN)
        seconds = time.monotonic() - started
        assert seconds < timeout + HANG_MARGIN, f"dbg {' '.join(args)} took {seconds:.1f}s"
        try:
            data: dict[str, Any] = json.loads(result.out)
        except json.JSONDecodeError as exc:
            raise AssertionError(f"not one JSON object: {result!r}") from exc
        return Outcome(result.code, data, result.err, seconds)

    def start(self, timeout: float = 10.0) -> Outcome:
        return self.run("start", "--backend", "fake", str(self.program), timeout=timeout)

    def pids(self) -> list[int]:
        return processes_with(self.tag)

    def wait_gone(self, within: float = 10.0) -> None:
        """Every process of this test's adapter ends within ``within`` seconds
        (a failed start is cleaned up just after its answer is sent)."""
        deadline = time.monotonic() + within
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not self.pids(), f"fake adapter still running: {self.pids()}"


@pytest.fixture
def fake(dbg: Any) -> Iterator[FakeAdapter]:
    adapter = FakeAdapter(dbg)
    adapter.use()
    yield adapter
    dbg.kill_all()
    # A test that failed half-way must not leave an adapter behind either.
    for pid in adapter.pids():
        try:
            os.kill(pid, 9)
        except OSError:
            pass
