"""A debugpy program's start, made before its launch. debugpy's warm
launcher (adapterboot/dbg_warm_launcher.py) starts the command line the
last launch of this DBG_HOME started its program with (the interpreter and
its options, debugpy's folder and options, the program and its arguments)
in the same folder with the same environment, but with ``-`` for the
adapter's address and token, which each adapter has its own of: so it shows
in /proc and ``ps``. ``$DBG_WARM_ORDER_FD`` tells dbg's start code
(dbg_boot), once the interpreter's start is done (the .pth files, the
user's sitecustomize), to call :func:`wait_for_launch`: it imports what
debugpy's __main__.py imports before the program runs (debugpy's server
CLI and pydevd: 80-120 ms on this machine's 3.12), says ``ready`` on that
socket, and waits there.

When a launch spawns that same command line in that folder with that
environment (but for ``$DBG_STDIN``, which names a FIFO of each run, and
``$DBG_EXIT_MARK``, each session's: read again here, dbg_boot's
``mark_normal_end``), the
launcher sends the whole command line, its ``$DBG_STDIN`` and the two pipes
its output goes to. This process answers ``stale`` and ends when a folder
on ``sys.path``, a ``.pth`` file or the user's sitecustomize changed since
it was spawned (a package installed, a file edited: its start may have
read the old one), and the launcher spawns the program as ever. Otherwise
it answers ``fresh``; the launcher puts what this process printed so far
into those pipes and says ``go``. This process then takes on the launch:
the pipes on fds 1 and 2, the stdin dbg names (dbg_boot's
``stdin_from_dbg``), ``sys.argv`` and ``sys.orig_argv`` with the launch's
address and token; and the interpreter goes on to run debugpy's
__main__.py, as for a program started at its launch: the same frames
under the program's, the same path.

Ended unused: the socket closes (the launcher ended, or spawned another
program), and it exits without running anything more.

Written for the debuggee's Python: nothing newer than Python 3.8, the
standard library only.
"""

from __future__ import annotations

import array
import json
import os
import socket
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

#: Nanoseconds a file's modification time may lag the clock the spawn was
#: timed with (two ticks at the lowest common HZ, 100).
MTIME_SLACK = 20_000_000


def _stamps() -> dict[str, int | None]:
    """What the interpreter's start read that a later change would make
    stale: the interpreter itself and its venv's pyvenv.cfg, each folder on
    sys.path (a file added or removed there), each .pth file in them, and
    the sitecustomize and usercustomize loaded."""
    seen: dict[str, int | None] = {}

    def stamp(path: str) -> None:
        try:
            seen[path] = os.stat(path).st_mtime_ns
        except OSError:
            seen[path] = None

    for path in (sys.executable, os.path.realpath(sys.executable),
                 os.path.join(sys.prefix, "pyvenv.cfg")):
        stamp(path)
    for folder in sys.path:
        path = os.path.abspath(folder or ".")
        stamp(path)
        try:
            names = os.listdir(path)
        except OSError:
            continue
        for name in names:
            if name.endswith(".pth"):
                stamp(os.path.join(path, name))
    for name in ("sitecustomize", "usercustomize"):
        source = getattr(sys.modules.get(name), "__file__", None)
        if source:
            stamp(source)
    return seen


def _receive(sock: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    """The launcher's order (one JSON object) and the fds that came with it;
    (None, []) when the socket closed with nothing on it."""
    fds = array.array("i")
    data = b""
    while not data.endswith(b"\n"):
        chunk, ancillary, _flags, _address = sock.recvmsg(
            65536, socket.CMSG_LEN(2 * fds.itemsize))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
        if not chunk:
            return None, list(fds)
        data += chunk
    return json.loads(data.decode("utf-8", "surrogateescape")), list(fds)


def read_line(sock: socket.socket) -> bytes:
    """One line from ``sock``, with its newline; what came when it closed
    first (both sides of the socket pair read with this)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(64)
        if not chunk:
            break
        data += chunk
    return data


class _Same:
    """A one-shot importer of ``debugpy`` that gives back the module already
    loaded: debugpy's __main__.py imports it again when it is not in
    sys.modules, which is what makes it take its folder out of sys.path."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.spec = module.__spec__

    def find_spec(self, fullname: str, path: object, target: object = None) -> ModuleSpec | None:
        if fullname != "debugpy":
            return None
        sys.meta_path.remove(self)
        return ModuleSpec("debugpy", self, is_package=True)  # type: ignore[arg-type]

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.spec  # the import put this importer's there


def wait_for_launch() -> None:
    """Called by dbg's start code (dbg_boot) as the interpreter's start ends:
    the imports, the wait, and the launch's program taken on (see the
    module's docstring). Returns to let the interpreter run debugpy's
    __main__.py, as it would have; ends the process when it is not taken."""
    sock = socket.socket(fileno=int(os.environ.pop("DBG_WARM_ORDER_FD")))
    spawned = int(os.environ.pop("DBG_WARM_SPAWNED", "0"))
    before = _stamps()
    # Changed since this process was spawned: perhaps after its start read
    # it, so stale from the first. A file's time is the kernel's coarse clock
    # (a tick, up to 10 ms, behind time.time_ns()): an edit just after the
    # spawn can bear a time just before it, so one within MTIME_SLACK counts.
    fresh = all(stamp is None or stamp < spawned - MTIME_SLACK for stamp in before.values())
    # What debugpy's __main__.py imports, with the folder above debugpy's
    # on the path for `import debugpy` alone, as it does.
    root = os.environ.get("DBG_DEBUGPY_ROOT", "")
    sys.path.insert(0, os.path.join(root, os.pardir))
    import debugpy
    del sys.path[0]
    from debugpy.server import cli  # noqa: F401 (pydevd with it)
    sys.stdout.flush()
    sys.stderr.flush()
    sock.sendall(b"ready\n")
    order, fds = _receive(sock)
    if order is None or len(fds) != 2 or not fresh or _stamps() != before:
        if order is not None:
            try:
                sock.sendall(b"stale\n")
            except OSError:
                pass
        os._exit(0)
    # The launcher passes on what this printed so far, then says go.
    sock.sendall(b"fresh\n")
    if read_line(sock) != b"go\n":
        os._exit(0)
    sock.close()
    for target, fd in ((1, fds[0]), (2, fds[1])):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.update(order["env"])
    boot = sys.modules.get("dbg_boot")
    stdin_from_dbg = getattr(boot, "stdin_from_dbg", None)
    if stdin_from_dbg is not None:
        stdin_from_dbg()
    mark_normal_end = getattr(boot, "mark_normal_end", None)
    if mark_normal_end is not None:
        mark_normal_end()
    # The launch's address and token in place of the placeholders.
    argv = order["argv"]
    sys.argv[:] = argv[order["program_at"]:]
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = list(argv)
    # debugpy's __main__.py, run next by the interpreter, finds no debugpy
    # loaded and so takes its folder (which the interpreter puts first on the
    # path) out of the path again, as it imports debugpy: this one.
    del sys.modules["debugpy"]
    sys.meta_path.insert(0, _Same(debugpy))
