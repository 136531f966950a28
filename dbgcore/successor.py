"""A spare daemon for a session's next start through the CLI.

An agent reruns: `dbg test` again, `dbg start` again once the program has
exited. Each such start replaces the ended session with a new daemon, which
the client forks and which then imports dbg and loads the plugins (40-60 ms)
before it can listen, and spawns the debugger early only then. The fork
server of `dbg mcp` (:mod:`dbgcore.forkhelper`) keeps a spare daemon for the
next start; a CLI client lives for one command, so here the session's own
daemon keeps one instead:

- A daemon forked by the CLI for a start forks its spare (:func:`fork`)
  first, while it still has one thread and has imported nothing; the spare
  waits on a pipe and does nothing more yet.
- When the session's program has ended (the moment a start may replace
  it), the daemon tells the spare (:func:`ready`). The spare then does what
  a new daemon does before its start: spawns the debugger of the session's
  own start early (:mod:`dbgcore.prespawn`), imports the daemon and loads
  the plugins, and listens on ``spare.sock`` in the session's folder.
- The client of the next start of that session asks there first
  (:mod:`dbgcore.entry`), sending its environment, working folder, umask
  and resource limits. The spare takes the session only if they are its own (those of the
  client that started the daemon), since what it loaded and spawned hangs on
  them; otherwise it refuses and the client forks a daemon as before. Taken,
  it answers its pid and runs as the daemon that client would have forked.
- The spare lives no longer than the session: when the daemon ends
  (:func:`end`, or its death closes the pipe), the spare ends its early
  debugger and exits, and the daemon's end waits for that. A spare once
  taken is the new session's daemon and no longer the old one's.

``DBG_NO_SPARE`` (or ``DBG_NO_EARLY_SPAWN``) turns it off. Imports nothing at
its top but ``os``: the daemon forks the spare before its own imports.
"""

from __future__ import annotations

import os

#: The spare's socket, in the session's folder.
SPARE_NAME = "spare.sock"
#: The variable that turns spares off.
NO_SPARE = "DBG_NO_SPARE"
#: The longest request a spare reads (an environment of that size is refused).
_MAX_REQUEST = 1 << 20

#: In the daemon: the spare's control pipe (write end) and the read end of a
#: pipe that closes when the spare is taken or has ended; -1 when none.
_control = -1
_done = -1
_told = False


def fork(session: str, start_words: list[str], own: dict[str, object] | None = None,
         inherited: tuple[int, ...] = ()) -> None:
    """In a daemon the CLI forked for a start of ``start_words``, while it has
    one thread: fork its spare, which waits (see the module). ``own``: the
    terms the spare serves (:func:`terms`, default this process's);
    ``inherited``: descriptors of the caller's that the spare closes. Never
    raises."""
    global _control, _done
    if os.environ.get(NO_SPARE) or os.environ.get("DBG_NO_EARLY_SPAWN") or not start_words:
        return
    control_read, control_write = os.pipe()
    done_read, done_write = os.pipe()
    try:
        middle = os.fork()
    except OSError:
        for fd in (control_read, control_write, done_read, done_write):
            os.close(fd)
        return
    if middle == 0:  # pragma: no cover - runs in the child
        code = 0
        try:
            for fd in (control_write, done_read, *inherited):
                os.close(fd)
            # A session of its own, as the daemon's (dbgcore.daemonfork): it
            # outlives no one, but a taken spare must not be in the group of
            # the daemon it replaces, which ends.
            os.setsid()
            if os.fork():
                os._exit(0)
            code = _spare(session, list(start_words), control_read, done_write, own)
        except BaseException:
            code = 1
            try:
                import traceback

                traceback.print_exc()
            except Exception:  # nothing left to report it to
                pass
        finally:
            os._exit(code)
    os.close(control_read)
    os.close(done_write)
    try:
        os.waitpid(middle, 0)
    except ChildProcessError:
        pass
    _control, _done = control_write, done_read


def ready() -> None:
    """In the daemon: its program has ended, so its spare may get ready for
    the next start (once; nothing when there is no spare)."""
    global _told
    if _control < 0 or _told:
        return
    _told = True
    try:
        os.write(_control, b"g")
    except OSError:
        pass  # the spare is gone


def end(wait: float) -> None:
    """In the daemon, as it ends: its spare ends too (unless taken already);
    wait up to ``wait`` seconds for it and its early debugger to be gone."""
    global _control, _done
    control, done, _control, _done = _control, _done, -1, -1
    if control >= 0:
        os.close(control)
    if done >= 0:
        import select

        try:
            select.select([done], [], [], wait)
        finally:
            os.close(done)


#: What a spare must share with the client of the start it takes, and what
#: each is called in a refusal.
_TERMS = {"env": "environment", "cwd": "working folder", "umask": "umask",
          "limits": "resource limits"}


def terms() -> dict[str, object]:
    """This process's environment, working folder, umask and resource
    limits: a daemon, its debugger and its program inherit them."""
    import resource

    mask = os.umask(0)
    os.umask(mask)
    limits = {name: list(resource.getrlimit(getattr(resource, name)))
              for name in sorted(dir(resource)) if name.startswith("RLIMIT_")}
    return {"env": dict(os.environ), "cwd": os.getcwd(), "umask": mask, "limits": limits}


def request_line(folder: str, replacing_at: str | None, words: list[str]) -> dict[str, object]:
    """What a client sends the spare of the session in ``folder`` (for
    :mod:`dbgcore.entry`, which encodes it with what it has)."""
    return {**terms(), "replacing_at": replacing_at or "",
            "log": os.path.join(folder, "daemon.log"), "words": words}


# -- the spare's side --------------------------------------------------------------


def _spare(session: str, words: list[str], control: int, done: int,
           own: dict[str, object] | None) -> int:
    """The spare: wait for the word, get ready, wait for a start; run its
    daemon if one takes it. Its exit code."""
    if own is None:
        own = terms()
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
    from dbgcore import prespawn

    try:
        taken = _serve(session, words, control, done, own)
    finally:
        if _taken_by is None:
            prespawn.discard()
    if taken is None:
        end(1.0)  # its own spare too
        return 0
    os.close(control)
    os.close(done)  # the old daemon's end waits for this spare no longer
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write("dbg-daemon")
    except OSError:
        pass
    log = os.open(str(taken["log"]), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 2)
    os.close(log)
    start = taken.get("words")
    prespawn.retarget([str(w) for w in start] if isinstance(start, list) else [])
    import gc

    from dbgcore.daemon import main

    gc.freeze()
    gc.enable()
    return main([session], first_client=True, replacing_at=str(taken["replacing_at"]) or None)


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
           own: dict[str, object]) -> dict[str, object] | None:
    """Listen, spawn the debugger early, load what a daemon needs, and wait:
    the request of the start that takes this spare, or None once the
    session has ended. It listens first: a start that comes meanwhile waits
    for it to be ready rather than forking a daemon that would do the same
    work beside it."""
    global _taken_by, _loaded
    import contextlib
    import select
    import socket

    from dbgcore import prespawn
    from dbgcore.paths import session_dir

    path = str(session_dir(session) / SPARE_NAME)
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
        from dbgcore.forkhelper import preload

        preload()
        if _loaded is None:
            _loaded = _stamps()
        # This spare's own spare, for the start after the one that takes
        # this one: forked now, off any start's path, while this process has
        # one thread and no early debugger of its own to hand down.
        fork(session, words, own, (listener.fileno(), control, done))
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
    for key, what in _TERMS.items():
        if request.get(key) != own[key]:
            return f"the client's {what} is not the spare's"
    return ""
