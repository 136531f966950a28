"""Early spawn (dbgcore.start.prespawn): a daemon forked by the first client of a
`dbg start --backend NAME` spawns the debugger that backend spawned last time
while it imports (without --backend: the backend chosen last for the
program's suffix), and the backend adopts it only when it is exactly what it
would spawn; a refused start leaves no debugger behind."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import builds
import pytest

from dbgcore.shared import procutil
from dbgcore.start.prespawn import backend_of, program_key
from dbgcore.testing import Dbg, dbg_in


@pytest.mark.parametrize("words, backend", [
    (["start", "--backend", "gdb", "prog"], "gdb"),
    (["start", "-b", "lldb", "--run", "prog"], "lldb"),
    (["start", "--break", "f.c:3", "--backend=gdb", "prog"], "gdb"),
    (["start", "--run", "--break", "f.c:3", "-b", "gdb", "prog"], "gdb"),
    (["start", "prog", "--backend", "gdb"], None),  # the program's own words
    (["start", "--break=f.c:3", "prog", "-b", "gdb"], None),
    (["start", "--", "--backend", "gdb"], None),
    (["test", "--backend", "gdb", "t.py"], "gdb"),  # `dbg test` too
    (["test", "t.py", "--backend", "gdb"], None),  # the runner's words
    (["attach", "--backend", "gdb", "--pid", "1"], None),
    (["start", "--backend"], None),
])
def test_the_backend_is_read_from_the_start_options(words: list[str],
                                                    backend: str | None) -> None:
    assert backend_of(words) == backend


@pytest.fixture(scope="module")
def gdb_home(tmp_path_factory: pytest.TempPathFactory,
             backend_ready: Callable[[str], None]) -> Iterator[tuple[Dbg, Path, int]]:
    """A DBG_HOME where gdb started once (so its command line is known), and
    a built C program with the line to break at."""
    backend_ready("gdb")
    base = tmp_path_factory.mktemp("early")
    source = base / "cart.c"
    source.write_text((Path(__file__).parent / "targets" / "native" / "cart.c").read_text())
    line = next(n for n, text in enumerate(source.read_text().splitlines(), 1) if "@loop" in text)
    program = builds.build_c(source)
    with dbg_in(base) as dbg:
        assert dbg.json("-s", "first", "start", "--backend", "gdb", str(program))["ok"]
        dbg("-s", "first", "kill")
        yield dbg, program, line


def _log(dbg: Dbg, session: str) -> str:
    return (dbg.home / "sessions" / session / "daemon.log").read_text()


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while procutil.alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not procutil.alive(pid)


def test_the_start_adopts_the_debugger_spawned_early(gdb_home: tuple[Dbg, Path, int]) -> None:
    dbg, program, line = gdb_home
    assert "gdb" in json.loads((dbg.home / "adapters.json").read_text())
    stop = dbg.json("-s", "adopts", "start", "--backend", "gdb", "--break",
                    f"cart.c:{line}", "--run", str(program))
    assert (stop["ok"], stop["reason"], stop["location"]["line"]) == (True, "breakpoint", line)
    found = re.search(r"adopted the early adapter \(pid (\d+)", _log(dbg, "adopts"))
    assert found, _log(dbg, "adopts")
    status = json.loads((dbg.home / "sessions" / "adopts" / "status.json").read_text())
    assert int(found[1]) in [c["pid"] for c in status["children"] if c["role"] == "gdb"]
    assert dbg.json("-s", "adopts", "print", "i")["value"] == "0"
    dbg("-s", "adopts", "kill")
    assert _gone(int(found[1]))


@pytest.mark.parametrize("name, option, says", [
    ("float", ["--idle-timeout", "abc"], "Invalid value for '--idle-timeout'"),  # click's
    ("env", ["--env", "NOEQUALS"], "bad --env 'NOEQUALS'"),  # the daemon's own
])
def test_a_refused_start_leaves_no_debugger_behind(gdb_home: tuple[Dbg, Path, int], name: str,
                                                   option: list[str], says: str) -> None:
    dbg, program, _ = gdb_home
    # Refused once the backend is known: the early debugger is spawned by then.
    refused = dbg("-s", name, "start", "--backend", "gdb", *option, str(program))
    assert refused.code == 2 and refused.err.startswith(f"error: {says}"), refused
    assert len(refused.err.strip().splitlines()) == 1, refused
    ended = re.search(r"ended the early adapter \(pid (\d+)\): no backend adopted it",
                      _log(dbg, name))
    assert ended, _log(dbg, name)
    assert _gone(int(ended[1]))


def test_a_start_the_daemon_refuses_ends_its_early_debugger(
        gdb_home: tuple[Dbg, Path, int]) -> None:
    dbg, program, _ = gdb_home
    missing = program.with_name("no_such_program")
    refused = dbg("-s", "missing", "start", "--backend", "gdb", str(missing))
    assert refused.code != 0 and "no_such_program" in refused.err, refused
    ended = re.search(r"ended the early adapter \(pid (\d+)\)", _log(dbg, "missing"))
    assert ended, _log(dbg, "missing")
    assert _gone(int(ended[1]))
    assert dbg.json("-s", "missing", "status")["ok"] is False


def _command_lines(pids: list[int]) -> list[bytes]:
    lines = []
    for pid in pids:
        with contextlib.suppress(OSError):
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
    return lines


def test_a_killed_daemon_takes_its_early_process_with_it(gdb_home: tuple[Dbg, Path, int]) -> None:
    dbg, program, _ = gdb_home
    # An adapter that would not end at the end of its stdin (gdb does): only
    # the parent-death signal ends it.
    record = dbg.home / "adapters.json"
    known: dict[str, Any] = json.loads(record.read_text())
    record.write_text(json.dumps({**known, "sleeper": {"argv": ["sleep", "60"]}}))
    # A daemon forked as `dbg start` forks one, whose start never comes: it
    # waits for it with the early process running, and is killed outright.
    fork = ("import os, sys\n"
            "from dbgcore.start.daemonfork import fork_daemon\n"
            "fd = os.open(os.devnull, os.O_WRONLY)\n"
            "print(fork_daemon(['orphan'], fd, first_client=True,\n"
            "                  start_words=['start', '--backend', 'sleeper', sys.argv[1]]))\n")
    daemon = int(subprocess.run([sys.executable, "-c", fork, str(program)], env=dbg.env,
                                capture_output=True, text=True, check=True).stdout)
    dbg.sessions.add("orphan")
    sleep = b"sleep\x0060\x00"
    deadline = time.monotonic() + 10
    # Until its exec, the early process's command line is its daemon's.
    while _command_lines(early := procutil.descendants(daemon)) != [sleep] \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _command_lines(early) == [sleep], early
    os.kill(daemon, signal.SIGKILL)
    assert _gone(early[0])


def test_a_command_line_that_changed_is_not_adopted(gdb_home: tuple[Dbg, Path, int]) -> None:
    dbg, program, _ = gdb_home
    record = dbg.home / "adapters.json"
    known: dict[str, Any] = json.loads(record.read_text())
    record.write_text(json.dumps({**known, "gdb": {**known["gdb"], "argv": ["sleep", "30"]}}))
    stop = dbg.json("-s", "changed", "start", "--backend", "gdb", str(program))
    assert stop["ok"] and stop["state"] == "stopped", stop
    ended = re.search(r"ended the early adapter \(pid (\d+)\): not what the backend spawns now",
                      _log(dbg, "changed"))
    assert ended, _log(dbg, "changed")
    assert _gone(int(ended[1]))
    assert json.loads(record.read_text())["gdb"] == known["gdb"]
    dbg("-s", "changed", "kill")


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.decode().partition("=")[::2] for item in raw.split(b"\0") if item)


def test_a_debugpy_adapter_is_adopted_with_a_fresh_token_never_written_down(
        dbg: Dbg, target: Any, backend_ready: Callable[[str], None]) -> None:
    backend_ready("debugpy")
    cart = target("cart.py")
    tokens = []
    for name in ("one", "two"):
        stop = dbg.json("-s", name, "start", "--backend", "debugpy", "--break",
                        cart.loc("loop"), "--run", str(cart.path))
        assert stop["ok"] and stop["reason"] == "breakpoint", stop
        status = json.loads((dbg.home / "sessions" / name / "status.json").read_text())
        adapter = next(c["pid"] for c in status["children"] if c["role"] == "debugpy")
        tokens.append(_environ(adapter)["DBG_ADAPTER_TOKEN"])
    adopted = re.search(r"adopted the early adapter \(pid (\d+)", _log(dbg, "two"))
    assert adopted and int(adopted[1]) == adapter, _log(dbg, "two")
    assert len(set(tokens)) == 2 and all(len(t) == 64 for t in tokens)
    record = (dbg.home / "adapters.json").read_text()
    assert json.loads(record)["debugpy"]["secrets"] == ["DBG_ADAPTER_TOKEN"]
    assert not any(token in record for token in tokens)
    assert dbg.json("-s", "two", "next")["state"] == "stopped"


@pytest.mark.usefixtures("pdb_ready")
def test_an_early_process_the_start_did_not_adopt_ends_with_the_start(
        dbg: Dbg, target: Any) -> None:
    # A record of an adapter on pipes for a backend whose debugger runs on a
    # terminal (pdb): the session goes on, the early process not.
    dbg.home.mkdir(parents=True, exist_ok=True)
    (dbg.home / "adapters.json").write_text(json.dumps({"pdb": {"argv": ["sleep", "60"]}}))
    cart = target("cart.py")
    stop = dbg.json("start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                    str(cart.path))
    assert stop["ok"] and stop["reason"] == "breakpoint", stop
    # Ended before the start's answer went out.
    ended = re.search(r"ended the early adapter \(pid (\d+)\): not what the backend spawns now",
                      _log(dbg, "default"))
    assert ended, _log(dbg, "default")
    assert _gone(int(ended[1]))
    assert dbg.json("print", "item")["ok"]
    # What pdb spawns instead is kept: the launcher, waiting for its run.
    record = json.loads((dbg.home / "adapters.json").read_text())["pdb"]
    assert record["console"] is True and record["argv"][-1] == "--wait", record


def _launcher_pid(dbg: Dbg, session: str) -> int:
    status = json.loads((dbg.home / "sessions" / session / "status.json").read_text())
    return int(next(c["pid"] for c in status["children"] if c["role"] == "pdb"))


@pytest.mark.usefixtures("pdb_ready")
def test_pdb_adopts_its_launcher_spawned_early_in_a_terminal(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    for name in ("one", "two"):
        stop = dbg.json("-s", name, "start", "--backend", "pdb", "--break", cart.loc("loop"),
                        "--run", str(cart.path))
        assert stop["ok"] and stop["reason"] == "breakpoint", stop
    assert not re.search(r"adopted the early console", _log(dbg, "one")), _log(dbg, "one")
    adopted = re.search(r"adopted the early console \(pid (\d+)", _log(dbg, "two"))
    assert adopted and int(adopted[1]) == _launcher_pid(dbg, "two"), _log(dbg, "two")
    # The session is pdb's as ever: its program's output apart, its steps,
    # its end; the launcher took its run from a file it removed.
    assert dbg.json("-s", "two", "print", "item")["ok"]
    assert dbg.json("-s", "two", "next")["state"] == "stopped"
    assert not list((dbg.home / "sessions" / "two").glob("*-run.json"))
    dbg("-s", "two", "unbreak", cart.loc("loop"))
    end = dbg.json("-s", "two", "continue")
    assert end["state"] == "exited" and end["exit_code"] == 0, end
    assert "subtotal:" in dbg("-s", "two", "output").out


@pytest.mark.usefixtures("pdb_ready")
def test_pdb_spawns_anew_when_the_environment_or_folder_differ(
        dbg: Dbg, target: Any, tmp_path: Path) -> None:
    cart = target("cart.py")
    show = tmp_path / "show.py"
    show.write_text("import os\nprint(os.environ.get('CART_MODE'), os.getcwd())\n")
    assert dbg.json("-s", "first", "start", "--backend", "pdb", str(cart.path))["ok"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name, option in (("env", ["--env", "CART_MODE=fast"]),
                         ("cwd", ["--cwd", str(elsewhere)])):
        end = dbg.json("-s", name, "start", "--backend", "pdb", *option, "--run", str(show))
        assert end["ok"] and end["state"] == "exited", end
        assert not re.search(r"adopted the early console", _log(dbg, name)), _log(dbg, name)
        ended = re.search(r"ended the early console \(pid (\d+)\): not what the backend "
                          r"spawns now", _log(dbg, name))
        assert ended, _log(dbg, name)
        assert _gone(int(ended[1]))
    assert any(line.startswith("fast /") for line in dbg("-s", "env", "output").out.splitlines())
    assert f"None {elsewhere}" in dbg("-s", "cwd", "output").out.splitlines()


def test_a_start_through_dbg_mcp_adopts_the_debugger_its_fork_spawned(
        gdb_home: tuple[Dbg, Path, int]) -> None:
    from mcpclient import run_mcp

    dbg, program, line = gdb_home

    async def scenario(session: Any) -> None:
        # No backend named: the start's values name the one it found.
        started = await session.call_tool("dbg_start", {
            "session": "through-mcp", "program": str(program), "breaks": [f"cart.c:{line}"],
            "run": True})
        assert (started.structured_content or {}).get("reason") == "breakpoint", started
        await session.call_tool("dbg_kill", {"session": "through-mcp"})

    run_mcp(dbg, scenario)
    log = _log(dbg, "through-mcp")
    assert re.search(r"adopted the early adapter \(pid \d+", log), log


def test_the_program_key_is_the_suffix_of_the_first_file(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("prog.PY", "run", "in.txt"):
        (tmp_path / name).write_text("")
    assert program_key(["start", "--break", "prog.PY:3", "--run", "prog.PY", "a.js"]) == ".py"
    assert program_key(["start", "--stdin", "in.txt", "prog.PY"]) == ".txt"  # the same each time
    assert program_key(["start", "run"]) is None  # no suffix: gdb's, lldb's... no guess
    assert program_key(["start", "-m", "prog.PY"]) is None
    assert program_key(["start", "--", "prog.PY"]) is None
    assert program_key(["start", "missing.py"]) is None
    assert program_key(["test", "prog.PY"]) == program_key(["test"]) == "test"


def _early_spawned(dbg: Dbg, session: str) -> str:
    log = _log(dbg, session)
    found = re.search(r"adopted the early adapter \(pid (\d+)", log)
    return found[1] if found else ""


def test_a_start_without_a_backend_spawns_the_one_chosen_last_for_its_suffix(
        short_dbg: Dbg, target: Any, backend_ready: Callable[[str], None]) -> None:
    # Only the fast path's daemon reads the words itself (the full CLI
    # names the backend it chose), hence a DBG_HOME short enough for it.
    backend_ready("debugpy")
    dbg = short_dbg
    cart = target("cart.py")
    dbg.home.mkdir(parents=True, exist_ok=True)
    # A wrong guess first: a record that sends .py to another command.
    (dbg.home / "adapters.json").write_text(json.dumps({
        "_programs": {".py": "sleeper"}, "sleeper": {"argv": ["sleep", "60"]}}))
    for name in ("one", "two"):
        stop = dbg.json("-s", name, "start", "--break", cart.loc("loop"), "--run",
                        str(cart.path))
        assert stop["ok"] and stop["reason"] == "breakpoint", stop
        assert stop["via"]["tool"] == "debugpy", stop
        record = json.loads((dbg.home / "adapters.json").read_text())
        assert record["_programs"] == {".py": "debugpy"}, record
        assert "debugpy" in record
    ended = re.search(r"ended the early adapter \(pid (\d+)\)", _log(dbg, "one"))
    assert ended and not _early_spawned(dbg, "one"), _log(dbg, "one")
    assert _gone(int(ended[1]))
    assert _early_spawned(dbg, "two"), _log(dbg, "two")
    assert dbg.json("-s", "two", "next")["state"] == "stopped"


def test_a_test_run_spawns_the_backend_the_last_test_run_chose(
        short_dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("debugpy")
    dbg = short_dbg
    units = tmp_path / "units"
    shutil.copytree(Path(__file__).parent / "targets" / "pytests" / "units", units)
    for name, option in (("one", []), ("two", []), ("named", ["--backend", "debugpy"])):
        stop = dbg.json("-s", name, "test", *option, "--cwd", str(units), timeout=120)
        assert stop["ok"] and stop["reason"] == "exception", stop
        assert stop["via"]["tool"] == "debugpy", stop
        dbg("-s", name, "kill")
    record = json.loads((dbg.home / "adapters.json").read_text())
    assert record["_programs"] == {"test": "debugpy"}, record
    assert not _early_spawned(dbg, "one"), _log(dbg, "one")
    assert _early_spawned(dbg, "two"), _log(dbg, "two")
    assert _early_spawned(dbg, "named"), _log(dbg, "named")


def _sigint_ignored(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text()
    ignored = int(next(line.split()[1] for line in status.splitlines()
                       if line.startswith("SigIgn:")), 16)
    return bool(ignored & (1 << (signal.SIGINT - 1)))


@pytest.mark.usefixtures("pdb_ready")
def test_dbg_mcp_keeps_a_spare_daemon_with_the_last_backends_debugger(
        dbg: Dbg, target: Any) -> None:
    # A start spawns pdb once (so the record names it); then one `dbg mcp`:
    # its first start takes the spare forked at its start, the second takes
    # the spare forked after the first; both debuggers were spawned before
    # their start came, and neither ignores SIGINT as the fork server does.
    from mcpclient import run_mcp

    cart = target("cart.py")
    assert dbg.json("-s", "seed", "start", "--backend", "pdb", str(cart.path))["ok"]
    dbg("-s", "seed", "kill")
    assert json.loads((dbg.home / "adapters.json").read_text())["_last"] == {"backend": "pdb"}
    launchers: dict[str, int] = {}

    async def scenario(session: Any) -> None:
        for name in ("one", "two"):
            started = await session.call_tool("dbg_start", {
                "session": name, "program": str(cart.path), "backend": "pdb",
                "breaks": [cart.loc("loop")], "run": True})
            assert (started.structured_content or {}).get("reason") == "breakpoint", started
            launchers[name] = _launcher_pid(dbg, name)
            assert not _sigint_ignored(launchers[name])
        await session.call_tool("dbg_kill", {"session": "one"})
        await session.call_tool("dbg_kill", {"session": "two"})

    run_mcp(dbg, scenario)
    for name in ("one", "two"):
        log = _log(dbg, name)
        adopted = re.search(r"adopted the early console \(pid (\d+), spawned (\d+) ms", log)
        assert adopted and int(adopted[1]) == launchers[name], log
    # The third spare, forked after the second start, ended with `dbg mcp`,
    # and its launcher with it: no launcher of dbg's is left waiting here.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _waiting_launchers(dbg.cwd):
        time.sleep(0.05)
    assert not _waiting_launchers(dbg.cwd)


def _waiting_launchers(cwd: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                words = (entry / "cmdline").read_bytes().split(b"\0")
                if any(w.endswith(b"dbg_pdb/launch.py") for w in words) and b"--wait" in words \
                        and os.readlink(entry / "cwd") == str(cwd) \
                        and (entry / "stat").read_text().split()[2] != "Z":
                    found.append(int(entry.name))
    return found


@pytest.mark.parametrize("off", [False, True])
def test_the_mcp_spare_spawns_nothing_ends_with_dbg_mcp_and_is_off_without_early_spawn(
        dbg: Dbg, off: bool) -> None:
    # A record whose last backend spawns a sleeper: `dbg mcp`'s spare waits
    # without spawning it (a start's debugger is spawned once a start takes
    # the spare), and it ends with `dbg mcp`; with DBG_NO_EARLY_SPAWN there
    # is no spare.
    from mcpclient import run_mcp
    from test_successor import spares

    dbg.home.mkdir(parents=True, exist_ok=True)
    sleeper = ["sleep", f"61.{os.getpid()}{int(off)}"]
    (dbg.home / "adapters.json").write_text(json.dumps({
        "_last": {"backend": "sleeper"}, "sleeper": {"argv": sleeper}}))
    if off:
        dbg.env["DBG_NO_EARLY_SPAWN"] = "1"
    cmdline = "\0".join(sleeper).encode() + b"\0"

    def running() -> list[int]:
        pids = [int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()]
        return [pid for pid in pids if _command_lines([pid]) == [cmdline]]

    seen: list[int] = []
    waiting: set[int] = set()

    async def scenario(session: Any) -> None:
        await session.call_tool("dbg_sessions", {})
        deadline = time.monotonic() + (1 if off else 3)
        while time.monotonic() < deadline:
            seen.extend(running())
            waiting.update(spares(dbg.home))
            time.sleep(0.05)

    run_mcp(dbg, scenario)
    assert not seen
    assert bool(waiting) is not off
    for pid in waiting:
        assert _gone(pid)


@pytest.mark.usefixtures("pdb_ready")
def test_an_early_console_in_a_folder_that_is_not_leaves_no_second_daemon(
        short_dbg: Dbg, target: Any) -> None:
    # ptyprocess raises a failed chdir in its forked child: that child must
    # not go on as a second daemon of the session (it answered the next
    # command as a session with no program). The fast path (a short
    # DBG_HOME) forks the daemon before the start is read.
    dbg = short_dbg
    cart = target("cart.py")
    assert dbg.json("-s", "seed", "start", "--backend", "pdb", str(cart.path))["ok"]
    dbg("-s", "seed", "kill")
    refused = dbg("-s", "nowhere", "start", "--backend", "pdb", "--cwd", "no_such_dir",
                  str(cart.path))
    assert refused.code == 2, refused
    # Such a child took its time to listen (it imported the daemon): the
    # session must stay absent for a while, not only at once.
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        status = dbg.json("-s", "nowhere", "status")
        assert status["error"]["kind"] == "no_session", status
        time.sleep(0.1)


def _uptime() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


def _started_at(pid: int) -> float:
    """When ``pid`` started, in seconds since boot (as /proc/uptime counts)."""
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19])
    return ticks / os.sysconf("SC_CLK_TCK")


def test_dbg_mcp_forks_its_first_spare_for_a_backend_that_spawns_nothing_early(
        dbg: Dbg, target: Any) -> None:
    # dlv's adapter is reached over TCP, so no start of it is kept to be
    # spawned early; its start still names it the last backend, and the next
    # `dbg mcp`'s first start of it takes a daemon forked before it came.
    from mcpclient import run_mcp

    from dbgcore.testing import require_backend

    require_backend("dlv")
    package = builds.copy_tree("gocart", dbg.cwd)
    program = builds.build_go(package)
    assert dbg.json("-s", "seed", "start", "--backend", "dlv", str(program))["ok"]
    dbg("-s", "seed", "kill")
    record = json.loads((dbg.home / "adapters.json").read_text())
    assert record["_last"] == {"backend": "dlv"} and "dlv" not in record
    asked: list[float] = []

    async def scenario(session: Any) -> None:
        time.sleep(1)  # the helper forks its spare meanwhile
        asked.append(_uptime())
        started = await session.call_tool("dbg_start", {
            "session": "first", "program": str(program), "backend": "dlv"})
        assert (started.structured_content or {}).get("ok"), started
        asked.append(_started_at(json.loads((dbg.home / "sessions" / "first" / "status.json")
                                            .read_text())["pid"]))
        await session.call_tool("dbg_kill", {"session": "first"})

    run_mcp(dbg, scenario)
    # Clock ticks are 10 ms: the spare was forked a second before the start.
    assert asked[1] < asked[0] - 0.3, asked
