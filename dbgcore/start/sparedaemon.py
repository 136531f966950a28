"""A spare daemon's own side, for both kinds (:mod:`dbgcore.start.spare`):
it listens at its socket, waits for the start it is to serve, checks that
start's terms, and, taken, hands itself over to it as that start's daemon.

- :func:`run`: a session's spare (forked by :mod:`dbgcore.start.successor`,
  whose daemon tells it when to get ready): it listens, loads dbg and the
  plugins, forks its own spare, spawns the session's debugger early, and
  serves a start on the terms of the client that started the session.
- :func:`run_for_helper`: the fork helper's spare (forked by
  :func:`dbgcore.start.daemonfork.fork_spare`, with dbg loaded): it serves
  any start on the helper's terms, and spawns that start's debugger only
  once taken.

Imports nothing at its top but ``os`` and :mod:`dbgcore.start.successor`:
the daemon imports it before its own imports.
"""

from __future__ import annotations

import os

from dbgcore.start import spare as protocol
from dbgcore.start import successor

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket

#: Seconds a session's spare waits, once told, before it gets ready (see _serve).
READY_PAUSE = 0.25
#: The longest request a spare reads (an environment of that size is refused).
_MAX_REQUEST = 1 << 20


def run(session: str, words: list[str], control: int, done: int,
        own: dict[str, object] | None) -> int:
    """A session's spare: wait for the word, get ready, wait for a start;
    run its daemon if one takes it. Its exit code."""
    if own is None:
        own = protocol.terms()
    _name_process("dbg-spare")
    try:
        told = os.read(control, 1)
    except OSError:
        told = b""
    if not told:
        return 0  # the session ended first
    from dbgcore.transport.early import THIS_PROCESS

    # This spare's own spare, once forked (for the start after the one
    # that takes this one).
    next_start: list[successor.Spare] = []
    try:
        taken = _serve(session, words, control, done, {**own, "session": session}, next_start)
    finally:
        if _taken_by is None:
            THIS_PROCESS.discard()
    if taken is None:
        for spare in next_start:
            spare.end(1.0)  # its own spare too
        return 0
    return hand_over(taken, control, done, next_start[0] if next_start else None)


def run_for_helper(listening: tuple[int, str, int], control: int, done: int) -> int:
    """The fork helper's spare, forked with dbg loaded: serve a start on
    the helper's terms (its environment, folder, umask and limits are the
    helper's) at ``listening``, the socket the helper made for it
    (:func:`listen`: its descriptor, path and inode); end when the
    helper's ``control`` pipe closes first. Its exit code.

    It holds no debugger while it waits: `dbg mcp`'s session beside it has
    one already, and a second, idle, cost as much memory again (debugpy's
    adapter, launcher and warm interpreter 62 MB, lldb-dap 120). Taken, it
    spawns the start's own debugger at once (:func:`dbgcore.start.prespawn.spawn_early`),
    before the daemon's start-up, which runs beside the debugger's, as in
    a daemon forked for its start; what it keeps ready is dbg's alone: the
    daemon's modules, the plugins and the op table (the helper's, shared
    with it), and the modules that spawn runs on."""
    import socket

    from dbgcore.start import prespawn

    _name_process("dbg-spare")
    _spawn_modules()
    fd, path, inode = listening
    listener = socket.socket(fileno=fd)
    try:
        taken = _wait_for_start(listener, control, protocol.terms())
    finally:
        unlisten(listener, path, inode)
    if taken is None:
        return 0
    start = taken["words"]
    prespawn.spawn_early([str(w) for w in start] if isinstance(start, list) else [])
    return hand_over(taken, control, done, None)


def _spawn_modules() -> None:
    """Import what the early spawn of a taken spare runs on, while it waits
    (each is dbg's or the standard library's, and most were imported
    already by the helper's preload: then this costs nothing)."""
    import contextlib
    import json  # noqa: F401
    import subprocess  # noqa: F401

    from dbgcore.shared import homecheck, procutil  # noqa: F401

    with contextlib.suppress(ImportError):
        import ptyprocess  # noqa: F401  (a console debugger's early spawn)


def hand_over(taken: dict[str, object], control: int, done: int,
              next_start: successor.Spare | None) -> int:
    """The spare, taken by the start ``taken``: it lets its maker go (the
    ``done`` pipe closes: a session's end, or the fork helper, waits for it
    no longer), and runs as that start's daemon, with ``next_start`` for
    the spare of its own next start. Its exit code."""
    os.close(control)
    os.close(done)
    _name_process("dbg-daemon")
    from dbgcore.shared.homecheck import open_log
    from dbgcore.start import prespawn

    log = open_log(str(taken["log"]))
    os.dup2(log, 2)
    os.close(log)
    start = taken["words"]
    prespawn.retarget([str(w) for w in start] if isinstance(start, list) else [])
    import gc

    from dbgcore.daemon.server import main
    from dbgcore.start.startup import Forked

    argv = taken["argv"]
    gc.freeze()
    gc.enable()
    return main([str(a) for a in argv] if isinstance(argv, list) else [], Forked(next_start),
                first_client=taken["first_client"] is True,
                replacing_at=str(taken["replacing_at"]) or None)


def _name_process(name: str) -> None:
    """What ps and top show for this process."""
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write(name)
    except OSError:
        pass


#: The request of the start that took the spare.
_taken_by: dict[str, object] | None = None
#: The files of dbg's and the plugins' modules as the spare loaded them
#: (:func:`_stamps`); a spare's own spare inherits them with the modules.
_loaded: list[tuple[str, int, int]] | None = None


def _stamps(paths: list[str] | None = None) -> list[tuple[str, int, int]]:
    """The time and size of each of ``paths`` (default: every loaded
    module's file but the standard library's, and each folder on the path,
    which installing or removing a package, a plugin among them, changes);
    -1 for one that is gone."""
    import sys

    if paths is None:
        stdlib = os.path.dirname(os.__file__) + os.sep
        named = [getattr(m, "__file__", None) for m in list(sys.modules.values())]
        paths = sorted({p for p in [*named, *sys.path] if isinstance(p, str)
                        and not (p.startswith(stdlib) and "-packages" not in p)})
    found = []
    for path in paths:
        try:
            stat = os.stat(path or ".")
            found.append((path, stat.st_mtime_ns, stat.st_size))
        except OSError:
            found.append((path, -1, -1))
    return found


def listen(path: str) -> tuple[socket.socket, int]:
    """A socket listening at ``path`` (0600), and its inode (so that only
    this spare's own socket file is removed at its end). Made before the
    spare is ready, by the spare or by its maker: a start that comes
    meanwhile waits in its backlog rather than finding none."""
    import contextlib
    import socket

    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old_mask)
    inode = os.stat(path).st_ino
    listener.listen(4)
    return listener, inode


def unlisten(listener: socket.socket, path: str, inode: int) -> None:
    """Close ``listener`` and remove its socket file, if it is still its own."""
    import contextlib

    listener.close()
    with contextlib.suppress(OSError):
        if os.stat(path).st_ino == inode:
            os.unlink(path)


def _serve(session: str, words: list[str], control: int, done: int,
           own: dict[str, object], next_start: list[successor.Spare]) -> dict[str, object] | None:
    """A session's spare: listen, pause, load what a daemon needs, fork this
    spare's own spare (into ``next_start``), spawn the debugger early, and
    wait: the request of the start that takes this spare, or None once the
    session has ended (or what it loaded changed). It listens first: a
    start that comes meanwhile waits for it to be ready rather than forking
    a daemon that would do the same work beside it."""
    global _loaded
    import select

    from dbgcore.shared.paths import session_dir
    from dbgcore.start import prespawn

    path = str(session_dir(session) / protocol.SPARE_NAME)
    listener, inode = listen(path)
    try:
        # A pause first: a session ended right after its program (a
        # script's clean-up, `dbg kill`) wants no spare, and the work is not
        # done for nothing beside whatever comes next. A start that comes
        # meanwhile ends the pause.
        readable, _, _ = select.select([listener.fileno(), control], [], [], READY_PAUSE)
        if control in readable and not os.read(control, 1):
            return None  # the session ended
        from dbgcore.daemon.server import preload

        preload()
        if _loaded is None:
            _loaded = _stamps()
        # This spare's own spare, for the start after the one that takes
        # this one: forked now, off any start's path, while this process has
        # one thread and no early debugger of its own to hand down.
        spare = successor.fork(session, words, run, own, (listener.fileno(), control, done))
        if spare is not None:
            next_start.append(spare)
        prespawn.spawn_early(words)
        # A session's spare checks its files too: the start it refuses loads
        # them afresh. (The fork helper's spare does not: the helper's own
        # fork, its fallback, is made of what the helper loaded.)
        return _wait_for_start(listener, control, own, _loaded)
    finally:
        unlisten(listener, path, inode)


def _wait_for_start(listener: socket.socket, control: int, own: dict[str, object],
                    loaded: list[tuple[str, int, int]] | None = None) -> dict[str, object] | None:
    """Answer each start that asks at ``listener`` until one this spare can
    serve takes it (:func:`dbgcore.start.spare.mismatch` on ``own``): that
    start's request; None once ``control`` closes (the maker ended), or
    once a file of ``loaded`` changed (of no use to any start)."""
    global _taken_by
    import contextlib
    import select

    while True:
        readable, _, _ = select.select([listener.fileno(), control], [], [])
        if control in readable and not os.read(control, 1):
            return None  # the session, or the helper, ended
        if listener.fileno() not in readable:
            continue
        conn, _ = listener.accept()
        with conn:
            request = _read_request(conn)
            if request is None:
                continue
            why = protocol.mismatch(request, own)
            stale = not why and loaded is not None \
                and _stamps([path for path, _, _ in loaded]) != loaded
            if stale:
                # What it loaded is not what a new daemon would load
                # (dbg or a plugin changed): of no use to any start.
                why = "dbg's or a plugin's files changed since it loaded them"
            if why:
                with contextlib.suppress(OSError):
                    conn.sendall(f"refused {why}\n".encode())
                if stale:
                    return None
                continue
            _taken_by = request
            try:
                conn.sendall(b"%d\n" % os.getpid())
            except OSError:
                _taken_by = None
                continue
            return request


def _read_request(conn: socket.socket) -> dict[str, object] | None:
    import json

    conn.settimeout(5.0)
    data = b""
    try:
        while not data.endswith(b"\n") and len(data) < _MAX_REQUEST:
            part = conn.recv(65536)
            if not part:
                return None
            data += part
        return protocol.well_formed(json.loads(data))
    except (OSError, ValueError):
        return None
