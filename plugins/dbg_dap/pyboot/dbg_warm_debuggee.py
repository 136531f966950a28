"""A debugpy program's start, made before its launch: debugpy's warm
launcher (adapterboot/dbg_warm_launcher.py) runs this file with the
interpreter and options, the environment, the folder and the command line
(debugpy's folder, its options, the program and its arguments) that the
last launch of this DBG_HOME gave its program, less the adapter's address
and token, which each adapter has its own of. So the program's command
line shows in /proc and ``ps`` with this file's name before it. It
imports what ``python <debugpy> --connect ...`` imports before the program
runs (debugpy's server CLI and pydevd: 80-120 ms on this machine's 3.12),
says ``ready`` on the socket ``$DBG_WARM_ORDER_FD`` names, and waits there.

When a launch spawns that same command line in that folder with that
environment (but for ``$DBG_STDIN``, which names a FIFO of each run), the
launcher sends the whole command line, its ``$DBG_STDIN`` and the two pipes
its output goes to. This process answers ``stale`` and ends when a folder
on ``sys.path``, a ``.pth`` file or the user's sitecustomize changed since
it was spawned (a package installed, a file edited: its start may have
read the old one), and the launcher spawns the program as ever. Otherwise
it answers ``fresh``; the launcher puts what this process printed so far
into those pipes and says ``go``. This process then becomes the program:
the pipes on fds 1 and 2, the stdin dbg names (dbg_boot's
``stdin_from_dbg``), ``sys.argv`` and ``sys.orig_argv`` as the command line
makes them, and debugpy's CLI run as ``python <debugpy>`` runs it.

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
from typing import Any


def _stamps() -> dict[str, int | None]:
    """What the interpreter's start read that a later change would make
    stale: each folder on sys.path (a file added or removed there), each
    .pth file in them, and the sitecustomize and usercustomize loaded."""
    seen: dict[str, int | None] = {}
    for folder in sys.path:
        path = os.path.abspath(folder or ".")
        try:
            seen[path] = os.stat(path).st_mtime_ns
            names = os.listdir(path)
        except OSError:
            seen[path] = None
            continue
        for name in names:
            if name.endswith(".pth"):
                try:
                    seen[os.path.join(path, name)] = os.stat(os.path.join(path, name)).st_mtime_ns
                except OSError:
                    pass
    for name in ("sitecustomize", "usercustomize"):
        source = getattr(sys.modules.get(name), "__file__", None)
        if source:
            try:
                seen[source] = os.stat(source).st_mtime_ns
            except OSError:
                seen[source] = None
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


def _line(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(64)
        if not chunk:
            break
        data += chunk
    return data


def main() -> None:
    sock = socket.socket(fileno=int(os.environ.pop("DBG_WARM_ORDER_FD")))
    spawned = int(os.environ.pop("DBG_WARM_SPAWNED", "0"))
    before = _stamps()
    # Changed since this process was spawned: perhaps after its start read
    # it, so stale from the first.
    fresh = all(stamp is None or stamp < spawned for stamp in before.values())
    # What `python <debugpy> ...` has while it imports: sys.argv from
    # debugpy's folder on (its address and token placeholders until the
    # launch), and as debugpy's __main__.py does, the folder above debugpy's
    # first on the path for `import debugpy`, then taken out again.
    del sys.argv[0]
    root = os.environ.get("DBG_DEBUGPY_ROOT", "")
    sys.path[0] = os.path.join(root, os.pardir)
    import debugpy  # noqa: F401
    del sys.path[0]
    from debugpy.server import cli
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
    if _line(sock) != b"go\n":
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
    argv = order["argv"]
    sys.argv = argv[order["program_at"]:]
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = list(argv)
    cli.main()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
