"""The spare daemon's own side (see :mod:`dbgcore.start.successor`, which forks it
and whose daemon tells it when to get ready): it listens, loads dbg and the
plugins, spawns the session's debugger early, and waits for the start it is
to serve, on the terms of the client that started the session. Imports
nothing at its top but ``os`` and :mod:`dbgcore.start.successor`: the daemon
imports it before its own imports.
"""

from __future__ import annotations

import os

from dbgcore.start import successor

#: Seconds a spare waits, once told, before it gets ready (see _serve).
READY_PAUSE = 0.25
#: The longest request a spare reads (an environment of that size is refused).
_MAX_REQUEST = 1 << 20


def run(session: str, words: list[str], control: int, done: int,
        own: dict[str, object] | None) -> int:
    """The spare: wait for the word, get ready, wait for a start; run its
    daemon if one takes it. Its exit code."""
    if own is None:
        own = successor.terms()
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write("dbg-spare")
    except OSError:
        pass
    try:
        told = os.read(control, 1)
    except OSError:
        told = b""
    if not told:
        return 0  # the session ended first
    from dbgcore.start import prespawn
    from dbgcore.transport.early import THIS_PROCESS

    # This spare's own spare, once forked (for the start after the one
    # that takes this one).
    next_start: list[successor.Spare] = []
    try:
        taken = _serve(session, words, control, done, own, next_start)
    finally:
        if _taken_by is None:
            THIS_PROCESS.discard()
    if taken is None:
        for spare in next_start:
            spare.end(1.0)  # its own spare too
        return 0
    os.close(control)
    os.close(done)  # the old daemon's end waits for this spare no longer
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write("dbg-daemon")
    except OSError:
        pass
    from dbgcore.shared.homecheck import open_log

    log = open_log(str(taken["log"]))
    os.dup2(log, 2)
    os.close(log)
    start = taken.get("words")
    prespawn.retarget([str(w) for w in start] if isinstance(start, list) else [])
    import gc

    from dbgcore.daemon.server import main
    from dbgcore.start.startup import Forked

    gc.freeze()
    gc.enable()
    return main([session], Forked(next_start[0] if next_start else None), first_client=True,
                replacing_at=str(taken["replacing_at"]) or None)


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


def _serve(session: str, words: list[str], control: int, done: int,
           own: dict[str, object], next_start: list[successor.Spare]) -> dict[str, object] | None:
    """Listen, pause, load what a daemon needs, fork this spare's own spare
    (into ``next_start``), spawn the debugger early, and wait: the request of the start that takes
    this spare, or None once the session has ended (or what it loaded
    changed). It listens first: a start that comes meanwhile waits for it
    to be ready rather than forking a daemon that would do the same work
    beside it."""
    global _taken_by, _loaded
    import contextlib
    import select
    import socket

    from dbgcore.shared.paths import session_dir
    from dbgcore.start import prespawn

    path = str(session_dir(session) / successor.SPARE_NAME)
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
        while True:
            readable, _, _ = select.select([listener.fileno(), control], [], [])
            if control in readable and not os.read(control, 1):
                return None  # the session ended
            if listener.fileno() not in readable:
                continue
            conn, _ = listener.accept()
            with conn:
                request = _read_request(conn)
                if request is None:
                    continue
                why = _mismatch(request, own)
                stale = not why and _loaded is not None \
                    and _stamps([path for path, _, _ in _loaded]) != _loaded
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
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == inode:
                os.unlink(path)


def _read_request(conn: object) -> dict[str, object] | None:
    import json
    import socket

    assert isinstance(conn, socket.socket)
    conn.settimeout(5.0)
    data = b""
    try:
        while not data.endswith(b"\n") and len(data) < _MAX_REQUEST:
            part = conn.recv(65536)
            if not part:
                return None
            data += part
        request = json.loads(data)
    except (OSError, ValueError):
        return None
    if not isinstance(request, dict) or not isinstance(request.get("log"), str) \
            or not isinstance(request.get("replacing_at"), str):
        return None
    return request


def _mismatch(request: dict[str, object], own: dict[str, object]) -> str:
    """Why this spare cannot be the daemon of ``request``'s start ("" if it can)."""
    for key, what in successor.TERMS.items():
        if request.get(key) != own[key]:
            return f"the client's {what} is not the spare's"
    return ""
