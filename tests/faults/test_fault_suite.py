"""The fault suite: what goes wrong around a session in real use, each bounded
in time. A hung adapter, a client killed mid-request, a program that forks,
closes its stdout or floods it, a store damaged or locked by someone else,
many sessions and clients at once, and start/kill cycles that must leave
nothing behind."""

from __future__ import annotations

import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.shared import procutil

if TYPE_CHECKING:
    from conftest import Dbg


def status(dbg: Dbg, name: str = "default") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (dbg.home / "sessions" / name / "status.json").read_text(encoding="utf-8"))
    return data


def session_pids(dbg: Dbg, name: str = "default") -> list[tuple[int, int | None]]:
    """The daemon and every process it recorded, with their start times."""
    data = status(dbg, name)
    return [(data["pid"], data.get("start_time")),
            *((c["pid"], c.get("start_time")) for c in data["children"])]


def wait_gone(pids: list[tuple[int, int | None]], within: float = 10) -> list[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        left = [pid for pid, started in pids if procutil.alive(pid, started)]
        if not left:
            return []
        time.sleep(0.05)
    return left


def one_error_line(result: Any) -> None:
    assert result.out == "" and result.err.startswith("error: "), result
    assert result.err.count("\n") == 1 and "Traceback" not in result.err, result


def test_a_hung_adapter_times_out_and_kill_still_ends_everything(
        dbg: Dbg, target: Any, backend_ready: Callable[[str], None]) -> None:
    backend_ready("debugpy")
    cart = target("cart.py")
    snap = dbg.json("start", "--backend", "debugpy", "--break", cart.loc("loop"), "--run",
                    str(cart.path))
    assert snap["ok"], snap
    everything = session_pids(dbg)
    adapter = next(c["pid"] for c in status(dbg)["children"] if c["role"] == "debugpy")
    os.kill(adapter, signal.SIGSTOP)
    began = time.monotonic()
    hung = dbg("--timeout", "2", "print", "total")
    assert hung.code == 1 and "did not answer evaluate within 2s" in hung.err, hung
    one_error_line(hung)
    assert time.monotonic() - began < 15
    assert dbg("kill", timeout=30).code == 0
    assert wait_gone(everything) == []


def test_a_client_killed_mid_request_leaves_the_daemon_serving(dbg: Dbg, target: Any,
                                                                pdb_ready: None) -> None:
    spin = target("spin.py")
    assert dbg.json("start", "--backend", "pdb", str(spin.path))["ok"]
    # `continue` blocks until a stop that never comes (for 3 s: then it says
    # the program runs); its client is killed while it waits.
    client = subprocess.Popen([sys.executable, "-m", "dbgcore", "--timeout", "3", "continue"],
                              cwd=dbg.cwd, env=dbg.env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    client.kill()
    client.wait()
    paused = dbg.json("pause")
    assert paused["ok"] and paused["state"] == "stopped", paused
    assert int(dbg.json("print", "count")["value"]) > 0
    assert dbg.json("status")["ok"]


def test_a_program_that_forks_and_execs_leaves_nothing_after_kill(
        dbg: Dbg, target: Any, pdb_ready: None) -> None:
    forker = target("forker.py")
    snap = dbg.json("start", "--backend", "pdb", "--break", forker.loc("ready"), "--run",
                    str(forker.path))
    assert snap["ok"], snap
    child = int(dbg.output("stdout").split()[1])
    started = procutil.start_time(child)
    assert procutil.alive(child, started)
    everything = session_pids(dbg)
    assert dbg("kill").code == 0
    assert wait_gone([*everything, (child, started)]) == []


def test_a_program_that_closes_its_stdout(dbg: Dbg, target: Any, pdb_ready: None) -> None:
    closer = target("closer.py")
    snap = dbg.json("start", "--backend", "pdb", "--break", closer.loc("after"), "--run",
                    str(closer.path))
    assert snap["ok"] and snap["location"]["line"] == closer.lines["after"], snap
    assert dbg.json("print", "1 + 1")["value"] == "2"
    done = dbg.json("continue")
    assert (done["state"], done["exit_code"]) == ("exited", 5), done
    assert dbg.output("stdout") == "before\n"


def test_a_flood_of_output_keeps_memory_bounded_and_pages(dbg: Dbg, target: Any,
                                                          pdb_ready: None) -> None:
    flooder = target("flooder.py")
    snap = dbg.json("start", "--backend", "pdb", "--break", flooder.loc("flooded"), "--run",
                    str(flooder.path), timeout=120)
    assert snap["ok"] and snap["location"]["line"] == flooder.lines["flooded"], snap
    # 100 MB went through; dbg holds a bounded tail (1 MB) and says it dropped some.
    rss_kb = int(next(line.split()[1] for line in
                      Path(f"/proc/{status(dbg)['pid']}/status").read_text().splitlines()
                      if line.startswith("VmRSS:")))
    assert rss_kb < 150_000, rss_kb
    page = dbg.json("output", "--since", "0")
    assert page["dropped"] is True and page["chunks"], {k: page[k] for k in ("dropped", "more")}
    held = dbg.output("stdout")
    assert 0 < len(held) <= (1 << 20) and set(held) <= {"x", "\n"}
    assert dbg.json("next")["ok"]  # still steps
    done = dbg.json("continue")
    assert done["exit_code"] == 0, done
    assert dbg.output("stdout").endswith("done\n")


def _start_pdb(dbg: Dbg, target: Any) -> dict[str, Any]:
    cart = target("cart.py")
    return dbg.json("start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                    str(cart.path))


def test_a_damaged_store_is_kept_aside_and_a_fresh_one_records(
        dbg: Dbg, target: Any, pdb_ready: None) -> None:
    assert _start_pdb(dbg, target)["ok"]
    assert dbg("kill").code == 0
    store = dbg.home / "store.sqlite3"
    for extra in ("-wal", "-shm"):
        Path(f"{store}{extra}").unlink(missing_ok=True)
    store.write_bytes(b"SQLite format 3\0" + b"\x00\xff" * 5000)
    snap = _start_pdb(dbg, target)
    assert snap["ok"], snap
    assert "could not be used" in snap["note"] and "damaged" in snap["note"], snap
    kept = [p for p in dbg.home.iterdir() if p.name.startswith("store.sqlite3.damaged-")]
    assert len(kept) == 1 and kept[0].read_bytes().startswith(b"SQLite format 3\0\x00\xff")
    assert dbg.json("hits")["hits"], "the fresh store records the new session"
    text = dbg("next")
    assert text.code == 0 and "note:" not in text.out  # said once, at the start


def test_a_store_locked_by_another_process(dbg: Dbg, target: Any, pdb_ready: None) -> None:
    assert _start_pdb(dbg, target)["ok"]
    assert dbg("kill").code == 0
    store = dbg.home / "store.sqlite3"
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        began = time.monotonic()
        snap = _start_pdb(dbg, target)
        assert snap["ok"], snap
        assert "locked" in snap["note"], snap
        assert time.monotonic() - began < 30
        assert dbg.json("hits")["hits"]
    finally:
        holder.close()


def test_ten_sessions_with_two_clients_each(dbg: Dbg, target: Any, pdb_ready: None) -> None:
    cart = target("cart.py")
    names = [f"s{i}" for i in range(10)]
    for name in names:
        snap = dbg.json("-s", name, "start", "--backend", "pdb", "--break", cart.loc("loop"),
                        "--run", str(cart.path))
        assert snap["ok"], snap
    failures: list[Any] = []

    def client(name: str) -> None:
        for _ in range(5):
            answer = dbg.json("-s", name, "print", "total")
            if not (answer["ok"] and answer["value"] == "0"):
                failures.append((name, answer))

    threads = [threading.Thread(target=client, args=(name,)) for name in names for _ in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    assert {s["name"] for s in dbg.json("sessions")["sessions"]} >= set(names)


#: Start/kill cycles per backend (the issue's 100; fewer only by choice, locally).
CYCLES = int(os.environ.get("DBG_FAULT_CYCLES", "100"))


@pytest.mark.first
def test_start_kill_cycles_on_every_backend_leave_no_process(
        dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    from behavior.twins import BACKENDS, TWINS, build_twin

    programs = {}
    for backend in BACKENDS:
        backend_ready(backend)
        language = TWINS[backend].language
        if language not in programs:
            programs[language] = build_twin(language, tmp_path / language)
    problems: list[str] = []

    def cycles(backend: str) -> None:
        program = str(programs[TWINS[backend].language])
        for i in range(CYCLES):
            snap = dbg.json("-s", f"cy-{backend}", "start", "--backend", backend, program,
                            timeout=120)
            if not snap["ok"]:
                problems.append(f"{backend} cycle {i}: {snap['error']}")
                return
            pids = session_pids(dbg, f"cy-{backend}")
            killed = dbg("-s", f"cy-{backend}", "kill", timeout=60)
            left = wait_gone(pids)
            if killed.code != 0 or left:
                problems.append(f"{backend} cycle {i}: kill {killed}, left {left}")
                return

    # Two at a time (six debuggers starting at once on two cores is a load
    # test, not this one), each thread taking the next backend as it is free,
    # the slowest to cycle first: jdb's cycles alone take as long as gdb's and
    # lldb's together, so fixed pairs left a core idle for minutes.
    slow = ("jdb", "gdb", "lldb", "debugpy")
    waiting: queue.SimpleQueue[str] = queue.SimpleQueue()
    for backend in sorted(BACKENDS, key=lambda b: slow.index(b) if b in slow else len(slow)):
        waiting.put(backend)

    def worker() -> None:
        while True:
            try:
                cycles(waiting.get_nowait())
            except queue.Empty:
                return

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []


def test_a_long_lived_daemon_does_not_gather_open_files(dbg: Dbg, target: Any,
                                                        pdb_ready: None) -> None:
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                    str(cart.path))["ok"]
    daemon = status(dbg)["pid"]

    def open_files() -> int:
        return len(os.listdir(f"/proc/{daemon}/fd"))

    for _ in range(3):  # warm up: the first restarts may open what stays open
        assert dbg.json("restart")["ok"]
    before = open_files()
    for _ in range(30):
        assert dbg.json("restart")["ok"]
        assert dbg.json("next")["ok"]
    assert open_files() <= before + 2, (before, open_files())


def test_a_store_that_cannot_grow_does_not_end_the_session(dbg: Dbg, target: Any,
                                                           pdb_ready: None) -> None:
    import resource

    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    assert dbg("kill").code == 0  # the store exists, and is small

    def small_files() -> None:  # the daemon forked from this client inherits it
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    started = subprocess.run(
        [sys.executable, "-m", "dbgcore", "--json", "start", "--backend", "pdb", "--break",
         cart.loc("loop"), "--run", str(cart.path)], cwd=dbg.cwd, env=dbg.env,
        capture_output=True, text=True, timeout=60, preexec_fn=small_files)
    notes = [json.loads(started.stdout).get("note", "")]
    assert started.returncode == 0 and "Traceback" not in started.stderr, started
    for _ in range(40):
        step = dbg.json("next")
        assert step["ok"], step
        notes.append(step.get("note", ""))
        if step["state"] == "exited":
            break
    told = [n for n in notes if "cannot be written" in n]
    assert len(told) == 1, notes  # said once, and the session went on to the end
