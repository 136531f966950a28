"""`dbg attach --host --port` to the debug servers of gdb (gdbserver), lldb
(lldb-server gdbserver) and delve (a headless dlv), each started here on
loopback; breakpoints by file name as a person types them."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(backend: str, port: int, program: Path, args: list[str]) -> list[str]:
    address = f"127.0.0.1:{port}"
    if backend == "gdb":
        beside = Path(sys.executable).parent / "gdbserver"
        exe = str(beside) if beside.exists() else shutil.which("gdbserver")
        if exe is None:
            pytest.fail("gdbserver not found (it comes with the gdb scripts/install-debuggers puts "
                        "in .venv)")
        return [exe, address, str(program), *args]
    if backend == "lldb":
        found = shutil.which("lldb-server") or next(iter(sorted(
            glob.glob("/usr/bin/lldb-server-*"), reverse=True)), None)
        if found is None:
            pytest.fail("lldb-server not found (it comes with lldb)")
        return [found, "gdbserver", address, "--", str(program), *args]
    return ["dlv", "exec", "--headless", f"--listen={address}", "--accept-multiclient",
            "--api-version=2", str(program), "--", *args]


def listening(port: int, pid: int) -> bool:
    """Whether process ``pid`` listens on 127.0.0.1:PORT, read from /proc (a
    test connection would be the one connection lldb-server serves; another
    process's listener on that port is not the server's)."""
    sockets = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(target[len("socket:["):-1])
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1].endswith(f":{port:04X}") and fields[3] == "0A" and fields[9] in sockets:
                return True
    return False


@contextmanager
def debug_server(command: Callable[[int], list[str]]) -> Iterator[int]:
    """Run the server ``command(port)`` makes until it listens there; yields
    the port. A port picked free here may be taken before the server binds
    it (other tests run beside this one): the server then exits, and another
    port is tried."""
    for _ in range(5):
        port = free_port()
        argv = command(port)
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 20
            while proc.poll() is None and not listening(port, proc.pid):
                if time.monotonic() > deadline:
                    pytest.fail(f"{argv[0]} did not listen on {port}")
                time.sleep(0.05)
            if proc.poll() is None:
                yield port
                return
        finally:
            proc.kill()
            proc.wait()
    pytest.fail(f"{argv[0]} ended before it listened, five times")


@pytest.mark.parametrize("backend", ["gdb", "lldb", "dlv"])
def test_attach_to_a_debug_server_and_break_by_file_name(
        backend: str, dbg: Dbg, target: Any, tmp_path: Path,
        backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    if backend == "dlv":
        prog = target("gocart/main.go")
        builds.copy_target("gocart/go.mod", prog.path.parent.parent)
        program = builds.build_go(prog.path.parent)
        mark = "loop"
    else:
        prog = target("native/streams.c")
        program = builds.build_c(prog.path)
        mark = "arg"
    with debug_server(lambda port: server_command(backend, port, program, ["a b"])) as port:
        snap = dbg.json("attach", "--backend", backend, "--host", "127.0.0.1", "--port",
                        str(port), "--program", str(program))
        assert snap["ok"] and snap["state"] == "stopped", snap
        assert snap["reason"] == "attach", snap
        bp = dbg.json("break", f"{prog.path.name}:{prog.lines[mark]}")["breakpoint"]
        stop = dbg.json("continue")
        assert stop["reason"] == "breakpoint" and stop["hit_breakpoints"] == [bp["id"]], stop
        assert stop["location"]["line"] == prog.lines[mark], stop
        assert Path(stop["location"]["file"]).name == prog.path.name
        assert dbg.json("stack")["frames"], stop
        assert dbg("kill").code == 0
