"""The spare protocol: how a start reaches a spare daemon, whichever kind.

A spare is a daemon made before its start is known, with dbg loaded, that
waits on a Unix socket (0600) for the start it is to run. There are two
kinds, made by two makers, reached the same way:

- a session's spare (:mod:`dbgcore.start.successor` forks it, in the
  session's daemon), at ``spare.sock`` in the session's folder, for the
  session's next start through the CLI, once the session's program has
  ended: it spawns the session's debugger early, for a rerun;
- the fork helper's spare (:mod:`dbgcore.start.forkhelper` forks it), at
  :func:`helper_path`, for `dbg mcp`'s next start, whatever it starts: it
  holds no debugger while it waits (beside a session that has its own, a
  second one would double the session's memory), and spawns the start's
  debugger as it is taken, before the daemon's own start-up.

A start sends one JSON line, :func:`request`: the start (the daemon's
``argv``, its log, the start's words, the path to listen at beside an
ended session, whether it reads its first client's start itself) and the
client's terms (:func:`terms`). The spare checks them (:func:`mismatch`,
the one terms check; the fork helper asks it of its forks too) and answers
one line: its pid, once it has taken the start, or ``refused WHY``.
:func:`ask` is the client's side: a pid, or None when the spare refused or
is gone, and the start takes its next way (:mod:`dbgcore.start.launch`).
The spare's side is :mod:`dbgcore.start.sparedaemon`.

Imports nothing at its top but ``os``: the fast path's client asks a spare
before it imports anything.
"""

from __future__ import annotations

import os

#: A session's spare's socket, in the session's folder.
SPARE_NAME = "spare.sock"
#: The variable that turns spares off (both kinds).
NO_SPARE = "DBG_NO_SPARE"
#: What a spare must share with the client of the start it takes (what it
#: loaded and spawned hangs on them), and what each is called in a refusal.
TERMS = {"env": "environment", "cwd": "working folder", "umask": "umask",
         "limits": "resource limits"}


def terms() -> dict[str, object]:
    """This process's environment, working folder, umask and resource
    limits: a daemon, its debugger and its program inherit them."""
    import resource

    limits = {name: list(resource.getrlimit(getattr(resource, name)))
              for name in sorted(dir(resource)) if name.startswith("RLIMIT_")}
    return {"env": dict(os.environ), "cwd": os.getcwd(), "umask": _umask(), "limits": limits}


def _umask() -> int:
    """This process's umask, read without changing it where Linux says it:
    `dbg mcp` asks with threads running, and one that made a file while the
    umask was set to 0 to be read would make it open to all."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


def request(argv: list[str], log: str, words: list[str] | None,
            replacing_at: str | None = None, first_client: bool = False) -> dict[str, object]:
    """What a start sends a spare (or the fork helper): the daemon's
    ``argv`` (dbgcore.daemon.server.main's), its log's path, the start's
    ``words``, ``replacing_at`` and ``first_client`` as the daemon is given
    them, and this process's terms."""
    return {**terms(), "argv": argv, "log": log, "words": words or [],
            "replacing_at": replacing_at or "", "first_client": first_client}


def well_formed(found: object) -> dict[str, object] | None:
    """``found`` (a decoded request line) if it is a request a spare can
    run; None if it is not."""
    if not isinstance(found, dict):
        return None
    argv, words = found.get("argv"), found.get("words")
    if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)
            and isinstance(words, list) and all(isinstance(w, str) for w in words)
            and isinstance(found.get("log"), str) and isinstance(found.get("replacing_at"), str)
            and isinstance(found.get("first_client"), bool)):
        return None
    return found


def mismatch(start: dict[str, object], own: dict[str, object]) -> str:
    """Why a process made on the terms ``own`` (:func:`terms`) cannot be
    the daemon of ``start`` ("" if it can). ``own`` may hold the
    ``session`` it serves (a session's spare: its early debugger was
    spawned for that session's start, and is retargeted to the start that
    takes it)."""
    for key, what in TERMS.items():
        if start.get(key) != own[key]:
            return f"the client's {what} is not the spare's"
    argv = start.get("argv")
    if "session" in own and not (isinstance(argv, list) and argv[:1] == [own["session"]]):
        return "it is another session's"
    return ""


def ask(path: str, start: dict[str, object], timeout: float,
        encode: bool = False) -> int | None:
    """Send ``start`` (:func:`request`) to the spare at ``path``, which has
    ``timeout`` seconds to answer: its pid once it has taken the start;
    None when none listens there, it went meanwhile, or it refused.
    ``encode``: with the fast path's small JSON encoder
    (:func:`dbgcore.shared.sessionsocket.json_text`), for a client that has
    not imported :mod:`json`."""
    from dbgcore.shared.sessionsocket import ask as ask_socket

    try:
        if encode:
            from dbgcore.shared.sessionsocket import json_text

            line = json_text(start)
        else:
            import json

            line = json.dumps(start)
        reply = ask_socket(path, line.encode("utf-8") + b"\n", timeout)
    except (UnicodeEncodeError, OSError):
        return None  # bytes that are not UTF-8, a folder that is gone, no spare
    try:
        return int(reply)
    except ValueError:
        return None  # refused, or gone before it answered


def helper_path(helper_pid: int) -> str | None:
    """Where the spare of the fork helper ``helper_pid`` listens: in the
    user's private folder of short socket paths (a DBG_HOME may be too long
    for one), named for the helper, which has one spare at a time. None
    when that folder cannot be had (someone else's): then the helper keeps
    no spare, and each start is forked."""
    from dbgcore.shared.errors import DbgError
    from dbgcore.shared.paths import short_socket_dir

    try:
        return os.path.join(str(short_socket_dir()), f"helper-{helper_pid}.sock")
    except DbgError:
        return None
