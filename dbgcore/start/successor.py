"""A spare daemon for a session's next start through the CLI.

An agent reruns: `dbg test` again, `dbg start` again once the program has
exited. Each such start replaces the ended session with a new daemon, which
the client forks and which then imports dbg and loads the plugins (40-60 ms)
before it can listen, and spawns the debugger early only then. The fork
server of `dbg mcp` (:mod:`dbgcore.start.forkhelper`) keeps a spare daemon for the
next start; a CLI client lives for one command, so here the session's own
daemon keeps one instead:

- A daemon forked by the CLI for a start forks its spare (:func:`fork`)
  first, while it still has one thread and has imported nothing; the spare
  waits on a pipe and does nothing more yet.
- When the session's program has ended (the moment a start may replace
  it), the daemon tells the spare (:meth:`Spare.ready`). The spare listens on
  ``spare.sock`` in the session's folder and, after a short pause (a
  session killed right after its program ended wants no spare), does what
  a new daemon does before its start: imports the daemon and loads the
  plugins, and spawns the debugger of the session's own start early
  (:mod:`dbgcore.start.prespawn`).
- The client of the next start of that session asks there first
  (:mod:`dbgcore.entry`), sending its environment, working folder, umask
  and resource limits: the spare protocol of :mod:`dbgcore.start.spare`,
  which `dbg mcp`'s fork helper's spare speaks too. The spare takes the
  session only if they are its own (those of the client that started the
  daemon), since what it loaded
  and spawned hangs on them, and if no file of dbg's or a plugin's changed
  since it loaded them (nor a folder on the path: a package installed);
  otherwise it refuses and the client forks a daemon as before. Taken, it
  answers its pid and runs as the daemon that client would have forked,
  with a spare of its own, forked as it got ready.
- The spare's side is :mod:`dbgcore.start.sparedaemon`.
- The spare lives no longer than the session: when the daemon ends
  (:meth:`Spare.end`, or its death closes the pipe), the spare ends its early
  debugger and exits, and the daemon's end waits for that. A spare once
  taken is the new session's daemon and no longer the old one's.

``DBG_NO_SPARE`` (or ``DBG_NO_EARLY_SPAWN``) turns it off. Imports nothing at
its top but ``os`` and :mod:`dbgcore.start.spare` (``os`` only): the daemon
forks the spare before its own imports.
"""

from __future__ import annotations

import os

from dbgcore.start.spare import NO_SPARE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    #: A spare's life (dbgcore.start.sparedaemon.run): session, start words,
    #: control and done pipes, terms; its exit code.
    SpareLife = Callable[[str, list[str], int, int, "dict[str, object] | None"], int]


class Spare:
    """The daemon's side of its spare: the spare's control pipe (write end)
    and the read end of a pipe that closes when the spare is taken or has
    ended."""

    def __init__(self, control: int, done: int) -> None:
        self._control = control
        self._done = done
        self._told = False

    def ready(self) -> None:
        """The daemon's program has ended, so its spare may get ready for
        the next start (once)."""
        if self._control < 0 or self._told:
            return
        self._told = True
        try:
            os.write(self._control, b"g")
        except OSError:
            pass  # the spare is gone

    def end(self, wait: float) -> None:
        """As the daemon ends: its spare ends too (unless taken already);
        wait up to ``wait`` seconds for it and its early debugger to be gone."""
        control, done, self._control, self._done = self._control, self._done, -1, -1
        if control >= 0:
            os.close(control)
        if done >= 0:
            import select

            try:
                select.select([done], [], [], wait)
            finally:
                os.close(done)


def fork(session: str, start_words: list[str], run: SpareLife,
         own: dict[str, object] | None = None, inherited: tuple[int, ...] = ()) -> Spare | None:
    """In a daemon the CLI forked for a start of ``start_words``, while it has
    one thread: fork its spare, which waits (see the module) in ``run``
    (:func:`dbgcore.start.sparedaemon.run`, passed in: this module imports none of
    the daemon's). ``own``: the terms the spare serves (:func:`dbgcore.start.spare.terms`,
    default this process's); ``inherited``: descriptors of the caller's that
    the spare closes. The daemon's side of it, which the daemon is handed
    (dbgcore.start.startup.Forked); None for none. Never raises."""
    if os.environ.get(NO_SPARE) or os.environ.get("DBG_NO_EARLY_SPAWN") or not start_words:
        return None
    fds: list[int] = []
    try:
        fds += os.pipe()
        fds += os.pipe()
        middle = os.fork()
    except OSError:
        for fd in fds:
            os.close(fd)
        return None  # no spare: the next start forks its daemon, as before
    control_read, control_write, done_read, done_write = fds
    if middle == 0:  # pragma: no cover - runs in the child
        code = 0
        try:
            for fd in (control_write, done_read, *inherited):
                os.close(fd)
            # A session of its own, as the daemon's (dbgcore.start.daemonfork): it
            # outlives no one, but a taken spare must not be in the group of
            # the daemon it replaces, which ends.
            os.setsid()
            if os.fork():
                os._exit(0)
            code = run(session, list(start_words), control_read, done_write, own)
        except BaseException:
            code = 1
            print_exception()
        finally:
            os._exit(code)
    os.close(control_read)
    os.close(done_write)
    try:
        os.waitpid(middle, 0)
    except ChildProcessError:
        pass
    return Spare(control_write, done_read)


def print_exception() -> None:
    """The exception being handled, to stderr (a daemon's log), if anything
    can still print it."""
    try:
        import traceback

        traceback.print_exc()
    except Exception:  # nothing left to report it to
        pass
