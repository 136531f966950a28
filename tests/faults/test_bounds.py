"""Bounded everything: a "source" that never ends (/dev/zero), blocks (a
FIFO) or is a gigabyte of holes (a sparse file) is refused at once with the
daemon's memory unchanged; values and logs have a size bound; an expression
that runs past --timeout is interrupted in the program (pdb, debugpy, gdb)
and the next command answers at once."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from builds import build_c

from dbgcore.transport.translog import DEBUGGER_LOG_BYTES, TransLog

if TYPE_CHECKING:
    from conftest import Dbg

#: Huge values, and a function that never returns, in Python and C.
HUGE = Path(__file__).resolve().parents[1] / "targets" / "bounds"

#: The most a bounded answer may be (pdb's repr is cut at 4 KB).
ANSWER_BYTES = 8192


def here(source: Path) -> str:
    line = next(n for n, text in enumerate(source.read_text().splitlines(), 1)
                if "@here" in text)
    return f"{source.name}:{line}"


def daemon_rss_kb(dbg: Dbg, session: str = "default") -> int:
    status = json.loads((dbg.home / "sessions" / session / "status.json").read_text())
    text = Path(f"/proc/{status['pid']}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    assert match, text
    return int(match.group(1))


def one_error_line(result: Any) -> None:
    assert result.code != 0 and result.out == "" and result.err.startswith("error: "), result
    assert result.err.count("\n") == 1 and "Traceback" not in result.err, result


@pytest.fixture(scope="module")
def pdb_session(module_dbg: Dbg) -> Iterator[Path]:
    from dbgcore.testing import require_backend

    require_backend("pdb")
    source = module_dbg.cwd / "big.py"
    shutil.copy(HUGE / "huge.py", source)
    started = module_dbg("start", "--backend", "pdb", "--break", here(source), "--run",
                         str(source))
    assert started.code == 0, started
    yield source
    module_dbg("kill")


@pytest.fixture(scope="module")
def odd_sources(module_dbg: Dbg) -> dict[str, str]:
    """Paths that are not sources: a device that never ends, a FIFO nobody
    writes, a sparse file of 1 GB."""
    fifo = module_dbg.cwd / "ff.py"
    os.mkfifo(fifo)
    sparse = module_dbg.cwd / "sparse.py"
    with open(sparse, "wb") as fh:
        fh.truncate(1 << 30)
    return {"/dev/zero": "/dev/zero", "fifo": str(fifo), "sparse": str(sparse)}


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "sparse"])
@pytest.mark.parametrize("op", ["list", "break"])
def test_a_source_that_is_no_regular_file_is_refused_at_once(
        module_dbg: Dbg, pdb_session: Path, odd_sources: dict[str, str], kind: str,
        op: str) -> None:
    before = daemon_rss_kb(module_dbg)
    began = time.monotonic()
    answer = module_dbg("--timeout", "10", op, f"{odd_sources[kind]}:1", timeout=30)
    took = time.monotonic() - began
    one_error_line(answer)
    assert took < 10, (took, answer)
    if kind == "fifo":
        assert "FIFO, not a regular file" in answer.err, answer
    elif kind == "sparse":
        assert "1.0 GB, larger than" in answer.err, answer
    elif op == "list":
        assert "character device, not a regular file" in answer.err, answer
    # Nothing was read: the daemon did not grow (it grew 300 MB a second).
    assert daemon_rss_kb(module_dbg) - before < 50_000
    # And the session answers the next command at once.
    after = module_dbg("--timeout", "5", "print", "len(items)")
    assert after.out.splitlines()[-1] == "1000000 (int)", after


def test_pdb_prints_a_huge_value_in_a_few_kb(module_dbg: Dbg, pdb_session: Path) -> None:
    for expression, whole in (("items", "list of 1000000 items"),
                              ("text", "str of 10000000 characters")):
        began = time.monotonic()
        answer = module_dbg.json("print", expression)
        took = time.monotonic() - began
        assert answer["ok"], answer
        assert len(answer["value"].encode()) <= ANSWER_BYTES, len(answer["value"])
        assert answer["value"].endswith(f"({whole}; shown in part)"), answer["value"][-80:]
        print(f"pdb print {expression}: {took:.3f}s, {len(answer['value'])} chars")
    # A small value is whole, with no note.
    assert module_dbg.json("print", "items[:3]")["value"] == "[0, 1, 2]"
    # debugger.log keeps a bounded copy, not 10 MB a print.
    log = module_dbg.home / "sessions" / "default" / "debugger.log"
    assert log.stat().st_size < 2 * DEBUGGER_LOG_BYTES


def interrupts_runaways(dbg: Dbg, timeout: str) -> None:
    """A function that never returns and a ten-minute sleep, each printed
    with --timeout ``timeout``: interrupted, and the next command answered
    in its own short timeout (nothing waits for the runaway any more)."""
    for runaway in ("spin()", "__import__('time').sleep(600)"):
        began = time.monotonic()
        answer = dbg.json("--timeout", timeout, "print", runaway, timeout=30)
        assert (answer["_exit"], answer["error"]["kind"]) == (1, "timeout"), answer
        assert "interrupted" in answer["error"]["message"], answer
        assert time.monotonic() - began < 10
        after = dbg.json("--timeout", "2", "print", "len(items)")
        assert after.get("value") == "1000000", after


def test_a_runaway_pdb_expression_is_interrupted(module_dbg: Dbg, pdb_session: Path) -> None:
    interrupts_runaways(module_dbg, "1")
    # The program is stopped where it was, and goes on normally.
    stepped = module_dbg.json("next")
    assert stepped["ok"] and stepped["location"]["line"] == pdb_session.read_text() \
        .splitlines().index("    print(x)") + 1, stepped


def test_a_runaway_debugpy_expression_is_interrupted(
        dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("debugpy")
    source = tmp_path / "big.py"
    shutil.copy(HUGE / "huge.py", source)
    assert dbg("start", "--backend", "debugpy", "--break", here(source), "--run",
               str(source)).code == 0
    # debugpy answers 64 KB of a 10 MB string; dbg's answer is 4 KB of it.
    text = dbg.json("print", "text")
    assert len(text["value"]) <= ANSWER_BYTES, len(text["value"])
    assert text["value"].endswith("characters debugpy answered)"), text["value"][-80:]
    interrupts_runaways(dbg, "2")
    assert dbg.json("stack")["frames"][0]["function"].startswith("main")


@pytest.fixture(scope="module")
def gdb_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from dbgcore.testing import require_backend

    require_backend("gdb")
    source = tmp_path_factory.mktemp("c") / "arr.c"
    shutil.copy(HUGE / "huge.c", source)
    build_c(source)
    return source


def test_gdb_prints_a_huge_struct_array_asking_only_for_what_it_shows(
        dbg: Dbg, gdb_program: Path) -> None:
    assert dbg("start", "--backend", "gdb", "--break", here(gdb_program), "--run",
               str(gdb_program.with_suffix(""))).code == 0
    log = dbg.home / "sessions" / "default" / "debugger.log"
    mark = log.stat().st_size
    began = time.monotonic()
    answer = dbg.json("print", "items")
    took = time.monotonic() - began
    assert answer["ok"] and answer["value"].startswith("{0 = {...}, 1 = {...}"), answer
    assert answer["value"].endswith(", ...} (12 of 100000 shown; `dbg vars` pages the rest)"), \
        answer
    with open(log, encoding="utf-8") as fh:
        fh.seek(mark)
        sent = [json.loads(line.split(" --> ", 1)[1]) for line in fh
                if " --> " in line and '"command": "variables"' in line]
    # One page of the children, not 100,000 of them.
    assert sent and all(0 < s["arguments"].get("count", 0) <= 20 for s in sent), sent
    print(f"gdb print items: {took:.3f}s, {len(sent)} variables request(s)")


def test_a_runaway_gdb_call_is_interrupted(dbg: Dbg, gdb_program: Path) -> None:
    assert dbg("start", "--backend", "gdb", "--break", here(gdb_program), "--run",
               str(gdb_program.with_suffix(""))).code == 0
    began = time.monotonic()
    answer = dbg.json("--timeout", "2", "print", "spin()", timeout=30)
    assert (answer["_exit"], answer["error"]["kind"]) == (1, "timeout"), answer
    assert "interrupted" in answer["error"]["message"], answer
    assert time.monotonic() - began < 10
    after = dbg.json("--timeout", "2", "print", "items[3].id")
    assert after.get("value") == "3", after
    # The call was dropped: the program is in main, where it stopped.
    assert dbg.json("stack")["frames"][0]["function"] == "main"


def test_debugger_log_rotates_at_its_bound(tmp_path: Path) -> None:
    log = TransLog(tmp_path / "debugger.log", max_bytes=200_000)
    for n in range(5000):
        log.received(f"output {n} " + "x" * 100)
    log.received("y" * 5_000_000)  # one flood of a message
    log.close()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["debugger.log", "debugger.log.1"], names
    assert all(p.stat().st_size <= 200_000 for p in tmp_path.iterdir())
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in tmp_path.iterdir())
    last = (tmp_path / "debugger.log").read_text().splitlines()[-1]
    assert last.endswith("[cut: 5000000 chars in all]") and len(last) < 20_000, last[-80:]


def test_daemon_log_rotates_at_its_bound(tmp_path: Path) -> None:
    import logging

    from dbgcore.transport.translog import BoundedLogHandler

    handler = BoundedLogHandler(tmp_path / "daemon.log", max_bytes=50_000)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("dbg.test-bounds")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        for n in range(2000):
            logger.warning("op %d %s", n, "x" * 100)
        logger.warning("%s", "y" * 5_000_000)
    finally:
        logger.removeHandler(handler)
        handler.close()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["daemon.log", "daemon.log.1"], names
    assert all(p.stat().st_size <= 50_000 for p in tmp_path.iterdir())
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in tmp_path.iterdir())
    # No record lost at the rotation: the newer file goes on where the older ends.
    older = (tmp_path / "daemon.log.1").read_text().splitlines()
    newer = (tmp_path / "daemon.log").read_text().splitlines()
    assert int(newer[0].split()[3]) == int(older[-1].split()[3]) + 1, (older[-1], newer[0])
    assert newer[-2].startswith("WARNING dbg.test-bounds: op 1999 "), newer[-2][:60]
    assert newer[-1].endswith(" chars in all]") and len(newer[-1]) < 20_000  # its head, cut


def test_a_debugpy_output_flood_leaves_debugger_log_bounded(
        dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("debugpy")
    source = tmp_path / "flood.py"
    # 24 MB of output through debugpy's output events, in lines of 1 KB.
    source.write_text("import sys\nline = 'z' * 1023 + '\\n'\n"
                      "for _ in range(24 * 1024):\n    sys.stdout.write(line)\n"
                      "sys.stdout.flush()\n")
    assert dbg("start", "--backend", "debugpy", "--run", str(source), timeout=120).code == 0
    dbg("--timeout", "120", "wait", timeout=180)
    folder = dbg.home / "sessions" / "default"
    sizes = {p.name: p.stat().st_size for p in folder.iterdir() if "debugger.log" in p.name}
    # It did rotate (24 MB of events is more than one file holds), and kept two.
    assert set(sizes) == {"debugger.log", "debugger.log.1"}, sizes
    assert sum(sizes.values()) <= 2 * DEBUGGER_LOG_BYTES + 100_000, sizes
