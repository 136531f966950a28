"""Attaching to a program in a container, without a container engine: the
program runs under `unshare --pid --mount --fork`, in a folder that is a
tmpfs mounted inside its own mount namespace, so its binary and sources
exist only there, as a container's do. The pid the test gives is the
host's.

gdb, lldb and dlv attach by pid and dbg reads the binary and the sources
through /proc/PID/root (and says so); debugpy cannot attach by pid across a PID namespace and says
why at once, and reaches the same program as a debugpy server with
`attach --remote HOST:PORT --map REMOTE=LOCAL` (the way through `kubectl
port-forward`)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from builds import copy_target

from dbgcore.testing import require, require_backend

if TYPE_CHECKING:
    from dbgcore.testing import Dbg


def _unshare(pids: bool = True) -> list[str]:
    found = shutil.which("unshare")
    require(found is not None, "unshare (util-linux) makes the test's namespaces")
    assert found is not None
    # --mount-proc: a /proc of its own PID namespace, as a container has (delve
    # reads its program's /proc/PID by the pid it knows).
    argv = ([found, "--pid", "--mount", "--fork", "--propagation", "private", "--mount-proc"]
            if pids else [found, "--mount", "--fork", "--propagation", "private"])
    # Not root: a user namespace of our own gives the mount and the ptrace.
    return argv if os.geteuid() == 0 else [*argv, "--map-root-user"]


@contextmanager
def in_namespaces(inside: Path, setup: str, program: list[str],
                  log: Path, pids: bool = True) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``program`` in new PID and mount namespaces, after ``setup`` (a
    shell line) has filled ``inside``, a tmpfs only those namespaces see.
    Yields the unshare process; the program is its one child (the PID
    namespace's init, which only SIGKILL ends)."""
    inside.mkdir()
    script = (f"mount -t tmpfs dbg-test {shlex.quote(str(inside))} && {setup} && "
              f"exec {shlex.join(program)}")
    with log.open("wb") as sink:
        proc = subprocess.Popen([*_unshare(pids), "sh", "-c", script], stdout=sink,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        yield proc
    finally:
        for pid in _children(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.kill()
        proc.wait(10)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def program_pid(proc: subprocess.Popen[bytes], program: str, log: Path) -> int:
    """The host pid of the program unshare runs, once it runs ``program``."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for pid in _children(proc.pid):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if program.encode() in argv:
                return pid
        assert proc.poll() is None, log.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{program} did not start: {log.read_text()}")


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_attach_into_a_container_reads_its_sources_through_proc_root(
        backend: str, dbg: Dbg, target: Any, tmp_path: Path) -> None:
    require_backend(backend)
    gcc = shutil.which("gcc")
    require(gcc is not None, "gcc builds the target")
    staged = target("container/ticker.c")
    inside = tmp_path / "app"
    source, binary = inside / "ticker.c", inside / "ticker"
    # Built inside, so that the debug information names the namespace's path.
    setup = (f"cp {shlex.quote(str(staged.path))} {shlex.quote(str(source))} && "
             f"{gcc} -g -O0 {shlex.quote(str(source))} -o {shlex.quote(str(binary))}")
    log = tmp_path / "ns.log"
    with in_namespaces(inside, setup, [str(binary)], log) as proc:
        pid = program_pid(proc, str(binary), log)
        assert not source.exists() and not binary.exists(), "visible outside its namespace"
        root = f"/proc/{pid}/root"
        here = f"{root}{source}"

        snap = dbg.json("attach", "--backend", backend, "--pid", str(pid))
        assert snap["ok"] and snap["state"] == "stopped" and snap["reason"] == "attach", snap
        assert snap["note"] == f"in another mount namespace: sources read through {root}", snap
        assert snap["paths"] == [{"remote": "/", "local": root}], snap

        bump = staged.lines["bump"]
        bp = dbg.json("break", f"ticker.c:{bump}")["breakpoint"]
        assert (bp["file"], bp["line"], bp["verified"]) == (here, bump, True), bp
        stop = dbg.json("continue")
        assert stop["reason"] == "breakpoint" and stop["hit_breakpoints"] == [bp["id"]], stop
        assert stop["location"]["file"] == here and stop["location"]["line"] == bump, stop
        shown = {line["line"]: line["text"] for line in stop["source"]}
        assert "// @bump" in shown[bump], stop["source"]

        # The container's own path is a place too; the answer is the path here.
        call = staged.lines["call"]
        other = dbg.json("break", f"{source}:{call}")["breakpoint"]
        assert (other["file"], other["line"]) == (here, call), other
        stop = dbg.json("continue")
        assert stop["location"]["line"] == call and stop["location"]["file"] == here, stop

        listed = dbg.json("list")
        assert listed["file"] == here, listed
        assert any("// @call" in line["text"] for line in listed["lines"]), listed
        frames = dbg.json("stack")["frames"]
        assert frames[0]["file"] == here and frames[0]["function"] in ("main", "main()"), frames

        assert dbg.json("kill")["ok"]
        # Detached, not ended: a container's process is not dbg's.
        time.sleep(0.2)
        assert os.path.exists(f"/proc/{pid}") and proc.poll() is None


def test_dlv_attach_into_a_container_reads_its_sources_through_proc_root(
        dbg: Dbg, target: Any, tmp_path: Path) -> None:
    require_backend("dlv")
    go = shutil.which("go")
    require(go is not None, "go builds the target")
    assert go is not None
    prog = target("gostuck/main.go")
    copy_target("gostuck/go.mod", prog.path.parent.parent)
    inside = tmp_path / "app"
    q = shlex.quote
    setup = (f"cp {q(str(prog.path))} {q(str(prog.path.parent / 'go.mod'))} {q(str(inside))}/ "
             f"&& cd {q(str(inside))} && {q(go)} build -gcflags='all=-N -l' -o prog .")
    log = tmp_path / "ns.log"
    binary = str(inside / "prog")
    with in_namespaces(inside, setup, [binary], log) as proc:
        pid = program_pid(proc, binary, log)
        here = f"/proc/{pid}/root{inside}/main.go"
        snap = dbg.json("attach", "--backend", "dlv", "--pid", str(pid))
        assert snap["ok"] and snap["state"] == "stopped", snap.get("error")
        assert snap["note"] == f"in another mount namespace: sources read through /proc/{pid}/root"
        sleeps = prog.lines["main-sleeps"]
        bp = dbg.json("break", f"main.go:{sleeps}")["breakpoint"]
        assert (bp["file"], bp["line"]) == (here, sleeps), bp
        stop = dbg.json("continue")
        assert stop["location"]["file"] == here and stop["location"]["line"] == sleeps, stop
        assert any("@main-sleeps" in line["text"] for line in stop["source"]), stop
        assert dbg.json("kill")["ok"]


def test_the_attach_answer_says_where_the_sources_are_read(
        dbg: Dbg, target: Any, tmp_path: Path) -> None:
    require_backend("gdb")
    gcc = shutil.which("gcc")
    require(gcc is not None, "gcc builds the target")
    staged = target("container/ticker.c")
    inside = tmp_path / "app"
    binary = inside / "ticker"
    setup = f"{gcc} -g -O0 {shlex.quote(str(staged.path))} -o {shlex.quote(str(binary))}"
    log = tmp_path / "ns.log"
    with in_namespaces(inside, setup, [str(binary)], log) as proc:
        pid = program_pid(proc, str(binary), log)
        text = dbg("attach", "--backend", "gdb", "--pid", str(pid))
        assert text.code == 0, text
        assert f"note: in another mount namespace: sources read through /proc/{pid}/root" \
            in text.out, text.out
        assert dbg.json("kill")["ok"]


@contextmanager
def debugpy_in_namespaces(server: Any, tmp_path: Path) -> Iterator[tuple[int, int, Path]]:
    """tests/targets/dap_server.py run from a tmpfs in new namespaces, as a
    debugpy server on loopback (the network is shared): (pid, port, its
    folder there)."""
    inside = tmp_path / "app"
    setup = f"cp {shlex.quote(str(server.path))} {shlex.quote(str(inside))}/"
    log = tmp_path / "ns.log"
    running = inside / server.path.name
    with in_namespaces(inside, setup, [sys.executable, str(running), "0"], log) as proc:
        pid = program_pid(proc, str(running), log)
        deadline = time.monotonic() + 30
        while not (said := re.search(r"^listening (\d+)$", log.read_text(), re.M)):
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.05)
        yield pid, int(said[1]), inside


def test_debugpy_refuses_a_pid_in_another_pid_namespace_at_once(
        dbg: Dbg, target: Any, tmp_path: Path) -> None:
    require_backend("debugpy")
    with debugpy_in_namespaces(target("dap_server.py"), tmp_path) as (pid, _port, _inside):
        began = time.monotonic()
        refused = dbg("attach", "--backend", "debugpy", "--pid", str(pid))
        assert time.monotonic() - began < 10, refused
        assert refused.code == 3 and "Traceback" not in refused.err, refused
        assert "another PID namespace not supported by debugpy" in refused.err, refused.err
        assert "--remote" in refused.err and "pid 1 in its own namespace" in refused.err


def test_debugpy_attach_by_pid_into_another_mount_namespace(
        dbg: Dbg, target: Any, tmp_path: Path) -> None:
    """Only the mount namespace differs (the pid is the program's own): debugpy
    attaches, and a file name the program's modules name is found here."""
    require_backend("debugpy")
    spin = target("dap_spin.py")
    inside = tmp_path / "app"
    running = inside / spin.path.name
    setup = f"cp {shlex.quote(str(spin.path))} {shlex.quote(str(inside))}/"
    log = tmp_path / "ns.log"
    with in_namespaces(inside, setup, [sys.executable, str(running)], log, pids=False) as proc:
        pid = program_pid(proc, str(running), log)
        # The copy it was made from would be the file of that name here.
        spin.path.unlink()
        here = f"/proc/{pid}/root{running}"
        snap = dbg.json("attach", "--backend", "debugpy", "--pid", str(pid))
        assert snap["ok"] and snap["state"] == "stopped", snap.get("error")
        assert snap["location"]["file"] == here, snap
        work = spin.lines["work"]
        bp = dbg.json("break", f"{spin.path.name}:{work}")["breakpoint"]
        assert (bp["file"], bp["line"], bp["verified"]) == (here, work, True), bp
        stop = dbg.json("continue")
        assert stop["reason"] == "breakpoint" and stop["location"]["file"] == here, stop
        assert any("@work" in line["text"] for line in stop["source"]), stop
        assert dbg.json("kill")["ok"]


def test_debugpy_server_in_a_container_with_a_path_map(
        dbg: Dbg, target: Any, tmp_path: Path) -> None:
    require_backend("debugpy")
    server = target("dap_server.py")  # the checkout here; the container has its copy
    local = server.path.parent
    with debugpy_in_namespaces(server, tmp_path) as (_pid, port, inside):
        assert not (inside / server.path.name).exists()
        snap = dbg.json("attach", "--backend", "debugpy", "--remote", f"127.0.0.1:{port}",
                        "--map", f"{inside}={local}")
        assert snap["ok"] and snap["state"] == "stopped", snap
        assert snap["paths"] == [{"remote": str(inside), "local": str(local)}], snap
        assert snap["note"] == f"paths mapped: {inside} -> {local}", snap
        assert snap["location"]["file"] == str(server.path), snap

        tick = server.lines["tick"]
        bp = dbg.json("break", f"{server.path.name}:{tick}")["breakpoint"]
        assert bp["verified"] and bp["file"] == str(server.path), bp
        stop = dbg.json("continue")
        assert stop["reason"] == "breakpoint" and stop["location"]["line"] == tick, stop
        assert stop["location"]["file"] == str(server.path), stop
        assert any("@tick" in line["text"] for line in stop["source"]), stop
        assert int(dbg.json("print", "n")["value"]) > 0
        assert dbg.json("kill")["ok"]


def test_delve_server_in_a_container_with_a_path_map(
        dbg: Dbg, target: Any, tmp_path: Path) -> None:
    require_backend("dlv")
    go, dlv = shutil.which("go"), shutil.which("dlv")
    require(go is not None and dlv is not None, "go builds the target, dlv serves it")
    assert go is not None and dlv is not None
    prog = target("gocart/main.go")  # the checkout here
    copy_target("gocart/go.mod", prog.path.parent.parent)
    local = prog.path.parent
    inside = tmp_path / "app"
    q = shlex.quote
    # Built inside, so that the binary names the container's paths.
    setup = (f"cp {q(str(prog.path))} {q(str(local / 'go.mod'))} {q(str(inside))}/ && "
             f"cd {q(str(inside))} && {q(go)} build -gcflags='all=-N -l' -o prog .")
    log = tmp_path / "ns.log"
    server = [dlv, "exec", "--headless", "--listen=127.0.0.1:0", "--accept-multiclient",
              "--api-version=2", str(inside / "prog")]
    with in_namespaces(inside, setup, server, log) as proc:
        deadline = time.monotonic() + 120
        while not (said := re.search(r"listening at: 127\.0\.0\.1:(\d+)", log.read_text())):
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.1)
        assert not (inside / "main.go").exists()
        snap = dbg.json("attach", "--backend", "dlv", "--remote", f"127.0.0.1:{said[1]}",
                        "--map", f"{inside}={local}")
        assert snap["ok"] and snap["state"] == "stopped", snap.get("error")
        assert snap["note"] == f"paths mapped: {inside} -> {local}", snap
        loop = prog.lines["loop"]
        bp = dbg.json("break", f"main.go:{loop}")["breakpoint"]
        assert bp["verified"] and (bp["file"], bp["line"]) == (str(prog.path), loop), bp
        stop = dbg.json("continue")
        assert stop["reason"] == "breakpoint" and stop["location"]["line"] == loop, stop
        assert stop["location"]["file"] == str(prog.path), stop
        assert any("@loop" in line["text"] for line in stop["source"]), stop
        assert dbg.json("kill")["ok"]


def test_bad_remote_and_map_are_one_line(dbg: Dbg) -> None:
    for args, says in (
            (["--remote", "nowhere"], "bad --remote 'nowhere'"),
            (["--remote", "host:99999"], "bad --remote"),
            (["--remote", "127.0.0.1:5678", "--port", "5678"], "not both"),
            (["--port", "5678", "--map", "app"], "bad --map 'app'"),
            (["--port", "5678", "--map", "app=./src"], "must be absolute")):
        result = dbg("attach", "--backend", "debugpy", *args)
        assert result.code == 2 and says in result.err, (args, result)
        assert result.err.count("\n") == 1 and "Traceback" not in result.err, result.err


def test_a_backend_without_path_maps_refuses_one(dbg: Dbg) -> None:
    require_backend("jdb")
    result = dbg("attach", "--backend", "jdb", "--port", "5005", "--map", "/app=.")
    assert result.code == 3, result
    assert "path mapping (attach --map) not supported by jdb" in result.err, result.err
