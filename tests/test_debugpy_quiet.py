"""What round three of the speed work took out of a debugpy session, with
nothing lost (plugins/dbg_dap/pyboot/dbg_boot.py, dbg_debugpy_quiet.py):

- a step reads its stop's facts from the `stopped` event: no `evaluate` per
  `next` (the answers themselves are tested with the exceptions a step goes
  through, in tests/test_python_tests.py);
- debugpy's startup reports are built only for a log: without one, the
  program finds `importlib.metadata` unloaded and imports the usual module;
  with `DEBUGPY_LOG_DIR` every process still writes its report, with the
  installed packages;
- debugpy's log asks `platform.platform()` (a `uname -p` child, the
  interpreter's binary read) only for a log that keeps the line: the program
  finds it unasked, and its own call answers as usual.

The speed itself is measured by bench/s1.py and bench/tests.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dbgcore.testing import Dbg, marked_lines, require_backend


@pytest.fixture
def program(target: Any) -> Path:
    require_backend("debugpy")
    return Path(target("metadata_probe.py").path)


def session_log(dbg: Dbg) -> str:
    return (dbg.home / "sessions" / "default" / "debugger.log").read_text()


def test_steps_ask_no_evaluate_and_the_program_imports_its_own_metadata(
        dbg: Dbg, program: Path) -> None:
    line = marked_lines(program)["loop"]
    snap = dbg.json("start", "--backend", "debugpy", "--break", f"{program}:{line}", "--run",
                    str(program), timeout=120)
    assert snap["ok"] and snap["reason"] == "breakpoint", snap
    before = session_log(dbg).count('"type": "request", "command": "evaluate"')
    for _ in range(3):
        snap = dbg.json("next")
        # The loop's one line holds the breakpoint: a step there says so.
        assert snap["ok"] and snap["state"] == "stopped", snap
        assert snap["reason"] in ("step", "breakpoint"), snap
    log = session_log(dbg)
    assert log.count('"type": "request", "command": "next"') == 3, log[-2000:]
    assert log.count('"type": "request", "command": "evaluate"') == before, log[-4000:]
    assert '"dbgStopFacts"' in log
    end = dbg.json("continue", timeout=60)
    while end.get("state") == "stopped":  # the loop's breakpoint, each time round
        end = dbg.json("continue", timeout=60)
    assert end["ok"] and (end["state"], end["exit_code"]) == ("exited", 0), end
    out = dbg.output("stdout")
    assert "first NoneType" in out and "now module True" in out, out
    assert "found True" in out and "total 10" in out, out
    assert "platform asked False" in out and "platform Linux" in out, out


def test_debugpy_logs_still_have_their_reports(dbg: Dbg, program: Path,
                                               tmp_path: Path) -> None:
    logs = tmp_path / "debugpy-logs"
    logs.mkdir()
    end = dbg.json("start", "--backend", "debugpy", "--run", str(program), timeout=120,
                   env={"DEBUGPY_LOG_DIR": str(logs)})
    assert end["ok"] and (end["state"], end["exit_code"]) == ("exited", 0), end
    out = dbg.output("stdout")
    assert "found True" in out and "platform Linux" in out, out
    reports = {}
    for path in logs.glob("debugpy.*.log"):
        text = path.read_text(errors="replace")
        reports[path.name.split(".")[1].split("-")[0]] = text
        assert "Error while enumerating" not in text, text[:3000]
    assert {"adapter", "launcher", "server"} <= set(reports), sorted(reports)
    for name in ("adapter", "launcher", "server"):
        assert "Installed packages:" in reports[name], reports[name][:3000]
        # Some package with its version (each process's sys.path has its own).
        assert re.search(r"Installed packages:\n\s+\S+==", reports[name]), reports[name][:3000]
        # The platform line, asked for the log that keeps it.
        assert re.search(r"^I\+\S+: Linux-\S+ \w+\n", reports[name], re.M), reports[name][:500]
