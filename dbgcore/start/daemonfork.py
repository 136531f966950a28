"""Forking a session's daemon (:func:`fork_daemon`), with nothing but ``os``
and ``sys`` imported: the fast path's client (:mod:`dbgcore.entry`) forks a
new session's daemon before it imports anything, and whatever this module
imported would be imported before the daemon's early spawn
(:mod:`dbgcore.start.prespawn`), on the start's path, rather than beside the
debugger's own start.
"""

from __future__ import annotations

import os
import sys


def fork_daemon(argv: list[str], log_fd: int, first_client: bool = False,
                replacing_at: str | None = None, start_words: list[str] | None = None) -> int:
    """Run ``dbgcore.daemon.server.main(argv)`` in a grandchild in a new process
    session, stdio detached (stderr to ``log_fd``), no other inherited file
    descriptors; returns its pid. The middle child exits at once, so the
    daemon belongs to no client, and a long-lived caller collects no zombie.
    ``replacing_at``: see :func:`dbgcore.daemon.server.main`. ``start_words``: the
    command line of the start the daemon is forked for, whose debugger it
    spawns before its imports (:mod:`dbgcore.start.prespawn`). Raises
    :class:`dbgcore.shared.errors.DbgError` when the fork fails."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed stream has nothing to lose
            pass
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:  # pragma: no cover - runs in the child
        _daemon(read_end, write_end, argv, log_fd, first_client, replacing_at, start_words)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(middle, 0)
    if not data:
        from dbgcore.shared.errors import DbgError

        raise DbgError("could not start the session daemon (fork failed)")
    return int(data)


def _caught(signum: int, frame: object) -> None:
    """SIGINT in a daemon before its own handlers: nothing (see dbgcore.daemon.server)."""


def fork_spare(listening: tuple[int, str, int]) -> tuple[int, int, int]:
    """Fork a spare daemon (for a fork server, :mod:`dbgcore.start.forkhelper`):
    it serves the start it is to run at ``listening`` (a listening socket's
    descriptor, path and inode, which it inherits), as a session's spare
    does (:func:`dbgcore.start.sparedaemon.run_for_helper`), and spawns no
    debugger before that start takes it. Returns its pid, the control
    pipe's write end, and the read end of a pipe that closes when the spare
    is taken or has ended. A spare whose control pipe closes untaken exits."""
    control_read, control_write = os.pipe()
    done_read, done_write = os.pipe()
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:  # pragma: no cover - runs in the child
        os.close(control_write)
        os.close(done_read)
        _daemon(read_end, write_end, [], -1, False, None, None,
                spare=(control_read, done_write, listening))
    for fd in (write_end, control_read, done_write):
        os.close(fd)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(middle, 0)
    if not data:
        os.close(control_write)
        os.close(done_read)
        from dbgcore.shared.errors import DbgError

        raise DbgError("could not start a spare daemon (fork failed)")
    return int(data), control_write, done_read


def _daemon(read_end: int, write_end: int, argv: list[str], log_fd: int, first_client: bool,
            replacing_at: str | None, start_words: list[str] | None,
            spare: tuple[int, int, tuple[int, str, int]] | None = None) -> None:
    """The middle child: fork the daemon, say its pid, exit; the daemon runs
    to its end and exits here too. ``spare``: the control pipe's read end,
    the done pipe's write end and the listening socket of a spare
    (:func:`fork_spare`), whose start comes later."""
    code = 1
    try:
        os.close(read_end)
        os.setsid()
        daemon_pid = os.fork()
        if daemon_pid:
            os.write(write_end, str(daemon_pid).encode())
            os._exit(0)
        # Caught, not ignored (a fork server ignores SIGINT): a caught signal
        # is reset at an exec, so the debugger spawned early (and the program
        # it starts) gets SIGINT as a debugger the daemon spawns gets it.
        import _signal  # type: ignore[import-not-found]  # (signal.py imports enum: 3-9 ms)

        _signal.signal(_signal.SIGINT, _caught)
        try:
            with open("/proc/self/comm", "w") as comm:
                # What ps and top show, not the client's name.
                comm.write("dbg-spare" if spare is not None else "dbg-daemon")
        except OSError:
            pass
        devnull = os.open(os.devnull, os.O_RDWR)
        for target, source in ((0, devnull), (1, devnull), (2, log_fd if log_fd >= 0 else devnull)):
            os.dup2(source, target)
        keep = {devnull, *((spare[0], spare[1], spare[2][0]) if spare else ())}
        # Every inherited descriptor is let go (a harness waits for its
        # pipes to close), but its number stays taken, by /dev/null: the
        # caller's objects that held it (a file, a database) live on in
        # this copy, and one finalized later closes that number. Closed
        # here, it would be reused by the daemon's first files (the early
        # adapter's pipes, the store), and closed under them.
        for entry in os.listdir("/proc/self/fd"):
            if int(entry) > 2 and int(entry) not in keep:
                try:
                    os.dup2(devnull, int(entry))
                except OSError:
                    pass
        if devnull > 2:
            os.close(devnull)
        # The collector runs dozens of times over the objects the daemon's
        # imports make (none of them garbage), about 6% of those imports'
        # time; once they are made they are frozen, so that the daemon's
        # later collections pass over them too.
        import gc

        gc.disable()
        next_start = None
        if first_client and start_words:
            # Before anything else is imported or spawned (one thread, no
            # early debugger to inherit): the spare for this session's next
            # start through the CLI.
            from dbgcore.start import sparedaemon, successor

            next_start = successor.fork(argv[0], start_words, sparedaemon.run)
        if start_words:
            from dbgcore.start.prespawn import spawn_early

            spawn_early(start_words)
        if spare is not None:
            from dbgcore.start.sparedaemon import run_for_helper

            code = run_for_helper(spare[2], spare[0], spare[1])
            return
        from dbgcore.daemon.server import main
        from dbgcore.start.startup import Forked

        gc.freeze()
        gc.enable()
        code = main(argv, Forked(next_start), first_client=first_client,
                    replacing_at=replacing_at)
    except BaseException:
        from dbgcore.start.successor import print_exception

        print_exception()
    finally:
        os._exit(code)
