"""One way to start a session's daemon: :func:`start_daemon`, over the ways
a process can do it, one function each.

- :func:`take_spare`: the session's spare daemon, readied by the daemon of
  its ended last run (:mod:`dbgcore.start.successor`), takes the start if
  the client's environment, folder, umask and limits are its own (the
  spare protocol, :mod:`dbgcore.start.spare`).
- :func:`fork_before_import`: the CLI's fast path forks the daemon before it
  has imported anything (:mod:`dbgcore.entry`); the daemon spawns the
  debugger of the start's words first (:mod:`dbgcore.start.prespawn`) and
  forks the session's spare.
- :func:`fork_after_import`: a single-threaded client that has imported dbg
  (the click CLI, a test) forks the daemon, which has every module loaded.
- :func:`take_helper_spare`: a process with threads (`dbg mcp`) must not
  fork; its fork helper (:mod:`dbgcore.start.forkserver`) keeps a spare,
  asked as a session's spare is.
- :func:`ask_fork_helper`: else the fork helper forks the daemon.
- :func:`new_interpreter`: ``python -m dbgcore.daemon.server``, always
  possible (a parent session's daemon starting a child's).

Each answers the new daemon's pid, or None when it cannot start it here
(the next way is tried). :data:`BEFORE_IMPORT` and :data:`AFTER_IMPORT` are
the two orders the callers use. Imports nothing at its top but ``os`` and
:mod:`dbgcore.start.daemonfork`: the fast path's client imports it before
the fork.
"""

from __future__ import annotations

import os
import sys

from dbgcore.start.daemonfork import fork_daemon

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

#: How long a new daemon (or a spare taking a start) has to answer.
DAEMON_START_TIMEOUT = 15.0


class Launch:
    """What a daemon is started with: its session, its folder and log (as
    a descriptor, and as a path for a process that opens its own), the
    words of the start it is made for (its debugger is spawned early), its
    idle timeout; ``first_client``: it reads that start's words itself, from
    the client that started it (dbgcore.entry); ``replacing_at``: the path it
    listens at beside the ended session it replaces."""

    def __init__(self, session: str, folder: str, log_fd: int, log_path: str,
                 words: list[str] | None = None, idle_timeout: float | None = None,
                 first_client: bool = False, replacing_at: str | None = None) -> None:
        self.session = session
        self.folder = folder
        self.log_fd = log_fd
        self.log_path = log_path
        self.words = words
        self.idle_timeout = idle_timeout
        self.first_client = first_client
        self.replacing_at = replacing_at

    @property
    def argv(self) -> list[str]:
        """The daemon's command line (dbgcore.daemon.server.main's)."""
        return [self.session] if self.idle_timeout is None \
            else [self.session, str(self.idle_timeout)]


def start_daemon(launch: Launch, ways: Sequence[Callable[[Launch], int | None]]) -> int | None:
    """The pid of a daemon for ``launch``, started the first of ``ways``
    that can; None when none could."""
    for way in ways:
        pid = way(launch)
        if pid is not None:
            return pid
    return None


def take_spare(launch: Launch) -> int | None:
    """The pid of the session's spare daemon, readied by the daemon of its
    ended last run, once it has taken this start; None when there is none
    or it refused (:mod:`dbgcore.start.spare`)."""
    from dbgcore.start import spare

    if os.environ.get(spare.NO_SPARE) or not launch.words:
        return None
    return _ask_spare(os.path.join(launch.folder, spare.SPARE_NAME), launch, encode=True)


def take_helper_spare(launch: Launch) -> int | None:
    """The pid of the spare daemon of this process's fork helper (`dbg
    mcp`'s), once it has taken this start: the same request, answer and
    fallback as a session's spare (:func:`take_spare`); None when there is
    no helper or spare, or it refused (another start's words, terms)."""
    from dbgcore.start import forkserver, spare

    server = forkserver.current()
    if server is None or os.environ.get(spare.NO_SPARE) or not launch.words:
        return None
    server.wait_ready()
    path = server.spare_path
    return _ask_spare(path, launch) if path else None


def _ask_spare(path: str, launch: Launch, encode: bool = False) -> int | None:
    """The pid of the spare at ``path`` once it has taken ``launch``; None
    when none listens there (found before the request is made: most starts
    find none) or it refused."""
    from dbgcore.start import spare

    if not os.path.exists(path):
        return None
    return spare.ask(path, _request(launch), DAEMON_START_TIMEOUT, encode)


def _request(launch: Launch) -> dict[str, object]:
    """What a spare (or the fork helper) is asked for ``launch``."""
    from dbgcore.start import spare

    return spare.request(launch.argv, launch.log_path, launch.words, launch.replacing_at,
                         launch.first_client)


def fork_before_import(launch: Launch) -> int | None:
    """Fork the daemon off this client, which has imported nothing yet (the
    daemon imports what it needs beside its debugger's early start); None
    when the fork fails (the caller's full CLI tries again and says why)."""
    if not hasattr(os, "fork"):
        return None
    try:
        return fork_daemon(launch.argv, launch.log_fd, first_client=launch.first_client,
                           replacing_at=launch.replacing_at, start_words=launch.words)
    except Exception:  # a DbgError: the fork failed
        return None


def fork_after_import(launch: Launch) -> int | None:
    """Fork the daemon off a single-threaded client that has dbg loaded
    already: the modules, the configuration and the plugins the daemon
    needs, which a new interpreter would load again. None in a process with
    other threads (forking it could copy a lock another thread holds).
    Raises DbgError when the fork fails."""
    import threading

    if not hasattr(os, "fork") or threading.active_count() != 1:
        return None
    return fork_daemon(launch.argv, launch.log_fd, start_words=launch.words)


def ask_fork_helper(launch: Launch) -> int | None:
    """This process's fork helper (`dbg mcp`'s) forks the daemon; None when
    there is none, or it refuses (the terms of :mod:`dbgcore.start.spare`)."""
    from dbgcore.start import forkserver

    server = forkserver.current()
    return server.fork(_request(launch)) if server is not None else None


def new_interpreter(launch: Launch) -> int:
    """``python -m dbgcore.daemon.server``: a new process session and no
    inherited stdio (a harness that waits for a start's pipes to close must
    not wait for the daemon), its stderr the session's log."""
    import subprocess

    return subprocess.Popen(
        [sys.executable, "-m", "dbgcore.daemon.server", *launch.argv],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=launch.log_fd,
        start_new_session=True, close_fds=True).pid


#: The fast path's client, before it imports anything: the session's spare,
#: else a fork.
BEFORE_IMPORT = (take_spare, fork_before_import)
#: Any other start (the click CLI, `dbg mcp`, a parent session's daemon):
#: a fork, else the fork helper's spare, else the fork helper's fork, else a
#: new interpreter.
AFTER_IMPORT = (fork_after_import, take_helper_spare, ask_fork_helper, new_interpreter)
