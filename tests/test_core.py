"""Post-mortem of a core dump: `dbg start --core CORE PROGRAM` on gdb, lldb
and delve, with cores the tests make themselves (tests/targets/core/: a C
word counter that stores through a NULL pointer, and a Go one that does the
same and dies by GOTRACEBACK=crash's abort).

A core is made the way the kernel makes it for anyone: the program runs with
its core limit raised, and /proc/sys/kernel/core_pattern says where the core
goes; when the kernel pipes cores away (`|systemd-coredump`...), or none
appears (or DBG_TEST_CORES=gcore), gdb's `gcore` writes one of the program
stopped at its crash.
dbg then runs from another folder than the program's and the core's.

Each backend's session is opened once per module; `pytest -s` prints how
long opening the core took.
"""

from __future__ import annotations

import glob
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from builds import TARGETS, build_c, build_go

from dbgcore.shared import procutil
from dbgcore.testing import Dbg, marked_lines, require, require_backend

BACKENDS = ["gdb", "lldb", "dlv"]
#: The program each backend opens a core of.
LANGUAGE = {"gdb": "c", "lldb": "c", "dlv": "go"}


@dataclass
class Crash:
    program: Path
    core: Path
    source: Path
    #: How the core was made: "kernel" or "gcore".
    made_by: str

    @property
    def lines(self) -> dict[str, int]:
        return marked_lines(self.source)


def _raise_core_limit() -> None:
    # In the child, before exec: as much as the hard limit allows.
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))


def _core_glob(pattern: str, program: Path, pid: int, signo: int) -> str:
    """Where the kernel put a core by ``pattern`` (core(5)): the specifiers
    dbg's test can know are filled in, the others match anything."""
    known = {"p": str(pid), "e": program.name[:15], "s": str(signo), "u": str(os.getuid()),
             "g": str(os.getgid()), "h": socket.gethostname(), "%": "%"}
    out, at = "", 0
    while at < len(pattern):
        if pattern[at] == "%" and at + 1 < len(pattern):
            letter = pattern[at + 1]
            out += glob.escape(known[letter]) if letter in known else "*"
            at += 2
        else:
            out += glob.escape(pattern[at])
            at += 1
    uses_pid = Path("/proc/sys/kernel/core_uses_pid").read_text().strip() != "0"
    if uses_pid and "%p" not in pattern:
        out += f".{pid}"
    return out if os.path.isabs(out) else str(program.parent / out)


def _gdb() -> str:
    """The gdb dbg's tests run (the venv's, else the one on PATH)."""
    beside = Path(sys.executable).with_name("gdb")
    found = str(beside) if beside.exists() else shutil.which("gdb")
    require(bool(found), "no gdb to write a core with gcore")
    assert found
    return found


def gcore(program: Path, env: dict[str, str], out: Path,
          before: tuple[str, ...] = ()) -> Path:
    """A core of ``program`` written by gdb's gcore where it stops by a
    signal (``before``: gdb commands first, e.g. to let a signal through)."""
    commands = [*before, "run", f"gcore {out}", "kill"]
    argv = [_gdb(), "-nx", "-batch", *(a for c in commands for a in ("-ex", c)), str(program)]
    done = subprocess.run(argv, cwd=program.parent, env=env, capture_output=True, text=True,
                          timeout=120)
    assert out.is_file(), f"gcore wrote no core: {done.stdout}{done.stderr}"
    return out


def make_core(program: Path, env: dict[str, str],
              gdb_before: tuple[str, ...] = ()) -> tuple[Path, str]:
    """Crash ``program`` and return its core and who wrote it."""
    pattern = Path("/proc/sys/kernel/core_pattern").read_text().strip()
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    # DBG_TEST_CORES=gcore: the way round a kernel that keeps cores, tried here.
    forced = os.environ.get("DBG_TEST_CORES") == "gcore"
    if not pattern.startswith("|") and hard != 0 and not forced:
        proc = subprocess.Popen([str(program)], cwd=program.parent, env=env,
                                preexec_fn=_raise_core_limit, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        code = proc.wait(timeout=60)
        assert code < 0, f"{program.name} was to crash, and exited {code}"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # The kernel writes the core before the parent sees the death, but
            # a core_pattern on a slow disk may still be flushing.
            cores = glob.glob(_core_glob(pattern, program, proc.pid, -code))
            if cores:
                return Path(max(cores, key=os.path.getmtime)), "kernel"
            time.sleep(0.1)
        print(f"no core where {pattern!r} says ({_core_glob(pattern, program, proc.pid, -code)}):"
              " gcore instead")
    return gcore(program, env, program.parent / "core.gcore", gdb_before), "gcore"


def test_core_pattern_specifiers_find_the_core(tmp_path: Path) -> None:
    program = tmp_path / "a-long-program-name"
    by_pid = "" if Path("/proc/sys/kernel/core_uses_pid").read_text().strip() == "0" \
        else ".123"
    assert _core_glob("core", program, 123, 11) == f"{tmp_path}/core{by_pid}"
    assert _core_glob("core.%p", program, 123, 11) == f"{tmp_path}/core.123"
    assert _core_glob("/var/crash/core.%e.%p.%t", program, 123, 11) == \
        "/var/crash/core.a-long-program-.123.*"
    assert _core_glob("%%core-%s[%u]", program, 123, 11) == \
        f"{tmp_path}/%core-11[[]{os.getuid()}]{by_pid}"


@pytest.fixture(scope="module")
def crashes(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Crash]:
    """The C or Go crash, built and dumped once per module in a folder of its own."""
    made: dict[str, Crash] = {}
    env = {k: v for k, v in os.environ.items() if not k.startswith("GOTRACEBACK")}

    def get(language: str) -> Crash:
        if language not in made:
            folder = tmp_path_factory.mktemp(f"crash-{language}")
            if language == "c":
                source = folder / "wc.c"
                shutil.copy(TARGETS / "core" / "wc.c", source)
                program = build_c(source, folder / "wc")
                core, how = make_core(program, env)
            elif language == "cpp":
                # An uncaught exception: std::terminate's abort leaves the core.
                source = folder / "uncaught.cpp"
                shutil.copy(TARGETS / "native" / "uncaught.cpp", source)
                program = build_c(source, folder / "uncaught")
                core, how = make_core(program, env)
            else:
                shutil.copytree(TARGETS / "core" / "gowc", folder, dirs_exist_ok=True)
                source = folder / "main.go"
                program = build_go(folder, folder / "gowc")
                # Go handles the SIGSEGV itself, panics, and with
                # GOTRACEBACK=crash ends by an abort that leaves the core.
                core, how = make_core(program, {**env, "GOTRACEBACK": "crash"},
                                      gdb_before=("handle SIGSEGV nostop noprint pass",))
            made[language] = Crash(program, core, source, how)
        return made[language]

    return get


@dataclass
class Opened:
    crash: Crash
    session: str
    stop: dict[str, Any]
    seconds: float


@pytest.fixture(scope="module")
def opened(module_dbg: Dbg, crashes: Callable[[str], Crash]) -> Iterator[Callable[[str], Opened]]:
    """The backend's session on its crash's core, opened once by relative
    paths from a folder that is neither the program's nor the core's."""
    sessions: dict[str, Opened] = {}

    def get(backend: str) -> Opened:
        if backend not in sessions:
            require_backend(backend)
            crash = crashes(LANGUAGE[backend])
            here = module_dbg.cwd
            began = time.monotonic()
            stop = module_dbg.json("-s", backend, "start", "--backend", backend, "--core",
                                   os.path.relpath(crash.core, here),
                                   os.path.relpath(crash.program, here), timeout=120)
            seconds = time.monotonic() - began
            print(f"\n{backend}: opening a {crash.made_by} core of {crash.core.stat().st_size} "
                  f"bytes took {seconds:.2f} s")
            sessions[backend] = Opened(crash, backend, stop, seconds)
        return sessions[backend]

    yield get
    for name in sessions:
        module_dbg("-s", name, "kill", timeout=30)


def call(dbg: Dbg, session: str, *args: str) -> dict[str, Any]:
    return dbg.json("-s", session, *args, timeout=90)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_stop_is_post_mortem_and_says_how_the_program_died_and_where(
        opened: Callable[[str], Opened], backend: str) -> None:
    core = opened(backend)
    stop, lines = core.stop, core.crash.lines
    assert stop["_exit"] == 0 and stop["state"] == "stopped", stop
    assert stop["reason"] == "core", stop
    function = "wc_count" if LANGUAGE[backend] == "c" else "main.count"
    assert stop["location"]["function"] == function, stop
    assert stop["location"]["line"] == lines["crash"], stop
    assert stop["description"].startswith(
        f"post-mortem of {core.crash.core.name}: killed by "), stop
    assert f"in {function} at {core.crash.source.name}:{lines['crash']}" in stop["description"]
    if LANGUAGE[backend] == "c":
        # The store through NULL: the kernel's SIGSEGV, at the field's offset.
        assert stop["signal"] == "SIGSEGV", stop
        assert "address not mapped to object, fault address 0x8" in stop["description"], stop
    else:
        # The runtime's own abort; the panic is why.
        assert stop["signal"] == "SIGABRT", stop
        assert "panic: runtime error: invalid memory address or nil pointer dereference" \
            in stop["description"], stop


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_stack_is_the_crash_and_its_locals_read(
        module_dbg: Dbg, opened: Callable[[str], Opened], backend: str) -> None:
    core = opened(backend)
    go = LANGUAGE[backend] == "go"
    count, main = ("main.count", "main.main") if go else ("wc_count", "main")
    stack = call(module_dbg, backend, "stack")
    program = [f["function"] for f in stack["frames"] if not f.get("internal")]
    assert program == [count, main], stack
    current = next(f for f in stack["frames"] if f["current"])
    assert current["function"] == count and current["line"] == core.crash.lines["crash"]

    words = call(module_dbg, backend, "print", "words")
    assert words["_exit"] == 0 and words["value"] == "4", words
    pointer = call(module_dbg, backend, "print", "c")
    assert pointer["_exit"] == 0, pointer
    assert any(null in pointer["value"] for null in ("nil", "0x0", "NULL")), pointer
    # Through the NULL pointer: memory the core does not hold is no value
    # (lldb's expressions read it as zeros: "0" was answered).
    through = module_dbg("-s", backend, "print", "c.words" if go else "c->words", timeout=90)
    assert through.code == 1 and through.err.startswith("error: "), through
    assert not through.out.strip(), through
    assert call(module_dbg, backend, "status")["state"] == "stopped"
    names = {v["name"] for v in call(module_dbg, backend, "locals")["variables"]}
    assert {"words", "c"} <= names, names
    # How it died, and the stack down to the crash, as for a live death.
    info = call(module_dbg, backend, "exception")
    assert info["_exit"] == 0 and info["exception"] == core.stop["signal"], info
    assert info["description"] == core.stop["description"], info
    assert info["stack"].splitlines()[-1].endswith(
        f'line {core.crash.lines["crash"]}, in {count}'), info

    up = call(module_dbg, backend, "up")
    assert up["_exit"] == 0 and up["frame"]["function"] == main, up
    # The frame selected is not where it died: `exception` says the same.
    assert call(module_dbg, backend, "exception")["stack"] == info["stack"]
    assert up["frame"]["line"] == core.crash.lines["call"], up
    down = call(module_dbg, backend, "down")
    assert down["frame"]["function"] == count, down
    frame = call(module_dbg, backend, "frame", str(up["frame"]["index"]))
    assert frame["frame"]["function"] == main, frame
    assert "c" in {v["name"] for v in call(module_dbg, backend, "locals")["variables"]}
    assert call(module_dbg, backend, "frame", str(current["index"]))["frame"]["function"] == count


@pytest.mark.parametrize("backend", BACKENDS)
def test_threads_disasm_and_memory_look_at_the_snapshot(
        module_dbg: Dbg, opened: Callable[[str], Opened], backend: str) -> None:
    opened(backend)
    threads = call(module_dbg, backend, "threads")["threads"]
    assert threads and sum(bool(t["current"]) for t in threads) == 1, threads
    support = call(module_dbg, backend, "caps", "--backend", backend)["backends"][0]["ops"]
    assert support["core"] == "native", support
    if support["disasm"] != "none":
        disasm = call(module_dbg, backend, "disasm")
        assert disasm["_exit"] == 0 and len(disasm["instructions"]) >= 5, disasm
    if support["memory-read"] != "none":
        memory = call(module_dbg, backend, "memory", "read", "&words", "4")
        assert memory["_exit"] == 0, memory
        assert memory["hex"] == "04000000", memory  # words == 4, little-endian


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_would_run_the_program_is_refused_and_the_session_goes_on(
        module_dbg: Dbg, opened: Callable[[str], Opened], backend: str) -> None:
    core = opened(backend)
    for op in (["continue"], ["next"], ["step"], ["finish"], ["set", "words", "5"],
               ["break", f"{core.crash.source.name}:{core.crash.lines['call']}"]):
        refused = module_dbg("-s", backend, *op)
        assert refused.code == 1, (op, refused)
        assert refused.err.startswith(f"error: cannot {op[0]}: the program is a core dump"), \
            (op, refused)
        assert "`dbg start PROGRAM` runs it" in refused.err, refused
    status = call(module_dbg, backend, "status")
    assert status["state"] == "stopped" and status["core"] == str(core.crash.core), status
    assert "post mortem" in module_dbg("-s", backend, "status").out
    assert call(module_dbg, backend, "print", "words")["value"] == "4"


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_an_uncaught_cpp_exception_is_shown_where_it_was_thrown(
        module_dbg: Dbg, crashes: Callable[[str], Crash], backend: str) -> None:
    """Its core dies by std::terminate's abort, inside libc: the stop is
    at the program's frame that threw, and says it was an exception."""
    require_backend(backend)
    crash = crashes("cpp")
    session = f"cpp-{backend}"
    stop = call(module_dbg, session, "start", "--backend", backend, "--core", str(crash.core),
                str(crash.program))
    try:
        assert (stop["reason"], stop["signal"]) == ("core", "SIGABRT"), stop
        assert stop["location"]["line"] == crash.lines["throws"], stop
        assert stop["location"]["function"].startswith("price"), stop
        assert stop["description"].endswith("; uncaught C++ exception"), stop
        info = call(module_dbg, session, "exception")
        assert info["_exit"] == 0 and info["exception"] == "uncaught C++ exception", info
        lines = info["stack"].splitlines()
        assert f'line {crash.lines["call"]}, in main' in lines[0], lines
        assert f'line {crash.lines["throws"]}, in price' in lines[1], lines
        assert not any("abort" in line for line in lines), lines
    finally:
        module_dbg("-s", session, "kill")


def test_kill_leaves_no_process(module_dbg: Dbg, crashes: Callable[[str], Crash]) -> None:
    require_backend("gdb")
    crash = crashes("c")
    started = module_dbg.json("-s", "killed", "start", "--core", str(crash.core),
                              str(crash.program))
    assert started["reason"] == "core", started
    status = json.loads((module_dbg.home / "sessions" / "killed" / "status.json").read_text())
    pids = [(status["pid"], status.get("start_time")),
            *((c["pid"], c.get("start_time")) for c in status["children"])]
    assert module_dbg("-s", "killed", "kill").code == 0
    deadline = time.monotonic() + 10
    while any(procutil.alive(*p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if procutil.alive(*p)]


def test_a_core_written_by_gcore_opens_too(module_dbg: Dbg, crashes: Callable[[str], Crash],
                                            tmp_path: Path) -> None:
    # The way round a kernel that pipes cores away: gdb's own core of the crash.
    require_backend("gdb")
    crash = crashes("c")
    env = dict(os.environ)
    core = gcore(crash.program, env, tmp_path / "wc.gcore")
    stop = module_dbg.json("-s", "gcore", "start", "--core", str(core), str(crash.program))
    try:
        assert stop["reason"] == "core" and stop["signal"] == "SIGSEGV", stop
        assert stop["location"]["function"] == "wc_count", stop
    finally:
        module_dbg("-s", "gcore", "kill")


def test_a_core_cut_short_opens_with_a_note(module_dbg: Dbg, crashes: Callable[[str], Crash],
                                            tmp_path: Path) -> None:
    # A core size limit cuts a core at the limit; what it holds still reads.
    require_backend("gdb")
    crash = crashes("c")
    whole = crash.core.read_bytes()
    cut = tmp_path / "cut.core"
    cut.write_bytes(whole[:len(whole) // 3])
    stop = module_dbg.json("-s", "cut", "start", "--core", str(cut), str(crash.program))
    try:
        assert stop["reason"] == "core" and stop["signal"] == "SIGSEGV", stop
        assert f"cut.core is cut short ({len(whole) // 3} of {len(whole)} bytes" \
            in stop["note"], stop
    finally:
        module_dbg("-s", "cut", "kill")


@pytest.mark.parametrize("backend", ["pdb", "debugpy", "jdb", "node", "perl"])
def test_a_backend_without_cores_refuses_with_a_hint(
        module_dbg: Dbg, crashes: Callable[[str], Crash], backend: str) -> None:
    require_backend(backend)
    program = {"pdb": "p.py", "debugpy": "p.py", "jdb": "P.java", "node": "p.js",
               "perl": "p.pl"}[backend]
    (module_dbg.cwd / program).write_text("")
    refused = module_dbg("-s", f"no-{backend}", "start", "--backend", backend, "--core",
                         str(crashes("c").core), program)
    assert refused.code == 3, refused
    tool = module_dbg.json("caps", "--backend", backend)["backends"][0]["tool"]
    assert f"core files not supported by {tool}" in refused.err, refused
    assert "row core" in refused.err, refused


def test_what_is_not_a_core_or_cannot_go_with_one_is_refused(
        module_dbg: Dbg, crashes: Callable[[str], Crash]) -> None:
    crash = crashes("c")
    cases = {
        ("--core", str(crash.program), str(crash.program)): "not a core file (a program",
        ("--core", "nothere", str(crash.program)): "--core nothere: no such file",
        ("--core", str(crash.program.parent), str(crash.program)): "not a regular file",
        ("--core", str(crash.core), "--break", "main", str(crash.program)): "--break cannot go",
        ("--core", str(crash.core), str(crash.program), "an-argument"):
            "PROGRAM's arguments cannot go",
    }
    for argv, message in cases.items():
        result = module_dbg("-s", "bad", "start", *argv)
        assert result.code == 2 and message in result.err, (argv, result)
        assert result.err.count("\n") == 1, result


def test_a_go_core_needs_the_binary_not_its_source(
        module_dbg: Dbg, crashes: Callable[[str], Crash]) -> None:
    require_backend("dlv")
    crash = crashes("go")
    result = module_dbg("-s", "gosource", "start", "--core", str(crash.core), str(crash.source))
    assert result.code == 2 and "a core opens with the binary that crashed" in result.err, result


def test_the_core_of_another_program_is_opened_with_a_note(
        module_dbg: Dbg, crashes: Callable[[str], Crash]) -> None:
    require_backend("gdb")
    c, go = crashes("c"), crashes("go")
    result = module_dbg("-s", "other", "start", "--core", str(go.core), str(c.program))
    try:
        assert "is a core of a program named 'gowc'" in result.err + result.out, result
    finally:
        module_dbg("-s", "other", "kill")

