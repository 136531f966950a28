"""Debuggers spawned before they were asked for, and the record of how.

A daemon forked for a start spawns the session's debugger before it imports
the rest of dbg (dbgcore.start.prespawn decides what, from the start's
words), so that the debugger's own start (gdb loading, lldb-dap, debugpy's
adapter: hundreds of milliseconds) runs beside those imports on the idle
second core. A daemon whose program stopped at a failure spawns the
debugger of its `dbg restart` ahead the same way (:meth:`EarlyProcesses.spawn_ahead`).
Either is held by :class:`EarlyProcesses`, which the daemon is handed and
hands on to the transport that would spawn that debugger
(:class:`dbgcore.transport.dap.adapter.AdapterProcess`,
:meth:`dbgcore.transport.ptydriver.PtyDriver.spawn`): the transport takes it
(:meth:`EarlyProcesses.adopt`) when it is exactly what it would have
spawned, the same argv, environment and working folder; anything else is
ended, and the transport spawns as before.

What to spawn is what the backend of that name spawned last time from this
DBG_HOME (:meth:`EarlyProcesses.remember`, in ``adapters.json``, a file of
the user's alone): its argv, and its environment as changes to the
daemon's, so dbgcore names no backend. A start that names no backend
spawns the backend the last such start chose for a program of the same
suffix (the record's ``_programs``; :meth:`EarlyProcesses.chosen` is told
which was chosen); a wrong guess is a process no backend adopts. A
variable that holds the daemon's pid gets the new daemon's; one that holds
a secret (debugpy's access token) is made by :meth:`EarlyProcesses.secret`,
never written down: the early process gets a fresh one, and the backend's
profile takes that one. A console debugger (pdb's launcher) is spawned in a
pseudo-terminal as the PTY driver spawns one, when its command line starts
it waiting for its run (the record says ``"console": true``).

No early process outlives its start: one the start did not adopt is ended
(:meth:`EarlyProcesses.discard`, by the daemon) before the start is
answered, refused or failed, and each was spawned with the same
parent-death signal as every adapter.

One :data:`THIS_PROCESS` a process: what a daemon's maker hands it, and
what dbgcore.start.prespawn spawns into. Imports nothing at its top but
``os`` and ``time``: a forked daemon spawns before it imports anything else
(logging, dataclasses, pathlib and typing cost such a start 10-20 ms more
before the debugger's spawn).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    from ptyprocess import PtyProcess

    from dbgcore.shared.jsontypes import JsonObject

#: The file of how each backend spawned its adapter last, by backend name.
RECORD = "adapters.json"
#: The record's map of a program's suffix to the backend chosen for it.
PROGRAMS = "_programs"
#: The record's key of the backend whose debugger a start spawned last.
LAST = "_last"
#: The terminal size every console debugger is spawned with, early or not.
CONSOLE_DIMENSIONS = (50, 4000)


class _Spawn:
    """How a backend spawns its adapter, as kept in RECORD: its argv, and its
    environment as changes to the daemon's. ``secrets``: variables a fresh
    secret goes into each time (never written down: see
    :meth:`EarlyProcesses.secret`); ``own_pid``: variables that hold the
    daemon's pid."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None,
                 unset: list[str] | None = None, secrets: list[str] | None = None,
                 own_pid: list[str] | None = None, console: bool = False) -> None:
        self.argv = argv
        self.env = env if env is not None else {}
        self.unset = unset if unset is not None else []
        self.secrets = secrets if secrets is not None else []
        self.own_pid = own_pid if own_pid is not None else []
        #: A console debugger's waiting start (see :meth:`EarlyProcesses.adopt_console`),
        #: spawned in a pseudo-terminal, not on pipes.
        self.console = console

    def record(self) -> JsonObject:
        """What RECORD keeps of it."""
        record: JsonObject = {"argv": self.argv, "env": self.env, "unset": self.unset,
                              "secrets": self.secrets, "own_pid": self.own_pid}
        if self.console:
            record["console"] = True
        return record

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in self.unset}
        env.update(self.env)
        env.update({name: str(os.getpid()) for name in self.own_pid})
        env.update({name: os.urandom(32).hex() for name in self.secrets})
        return env


class _Early:
    """The early process, and what it was spawned with: ``proc`` on pipes,
    or ``console`` in a pseudo-terminal."""

    def __init__(self, proc: subprocess.Popen[bytes] | None, argv: list[str],
                 env: dict[str, str], cwd: str, spawned: float,
                 console: PtyProcess | None = None) -> None:
        self.proc = proc
        self.console = console
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.spawned = spawned

    @property
    def pid(self) -> int:
        return self.console.pid if self.console is not None else self.proc.pid \
            if self.proc is not None else 0

    def running(self) -> bool:
        if self.console is not None:
            return bool(self.console.isalive())
        return self.proc is not None and self.proc.poll() is None


def _log(message: str, *args: object) -> None:
    import logging

    logging.getLogger("dbg.prespawn").info(message, *args)


class EarlyProcesses:
    """This process's debugger spawned early for its start, the one spawned
    ahead of a restart, and what of them is to be kept in the record."""

    def __init__(self) -> None:
        #: The early process, until adopted or discarded.
        self._early: _Early | None = None
        #: The process spawned ahead of a restart, until a restart adopts
        #: it or the session ends.
        self._ahead: _Early | None = None
        #: The backend named by the start this daemon was made for (what to remember).
        self._backend: str | None = None
        #: A start that names no backend: its program's suffix.
        self._program: str | None = None
        #: The backend whose adapter was spawned for such a start, guessed from it.
        self._guess: str | None = None
        #: The names :meth:`secret` was asked for in this process.
        self._secret_names: set[str] = set()

    # -- the start's ----------------------------------------------------------

    def expect(self, backend: str | None, program: str | None) -> str | None:
        """This daemon serves a start that names ``backend`` (None: none),
        or, naming none, a program of suffix ``program``: what
        :meth:`chosen` and :meth:`remember` keep is this start's. The
        backend whose debugger to spawn for it; None for none known."""
        self._backend = backend
        self._program = program if backend is None else None
        self._guess = None
        if self._backend is not None or self._program is None:
            return self._backend
        guess = _records().get(PROGRAMS, {}).get(self._program)
        self._guess = guess if isinstance(guess, str) else None
        return self._guess

    def spawn_for_start(self, backend: str, cwd: str) -> None:
        """Spawn what ``backend`` spawned last (the record's), in ``cwd``,
        for this daemon's start. Never raises: whatever goes wrong here,
        the backend spawns as before."""
        spawn = _spawn_of(_records().get(backend))
        if spawn is not None:
            self._early = _spawn(spawn, cwd)

    def chosen(self, backend: str) -> None:
        """The daemon chose ``backend`` for a start that named none: what
        :meth:`remember` keeps the program's suffix for (the next such start
        spawns its adapter early)."""
        if self._backend is None and self._program is not None:
            self._backend = backend
            if self._guess != backend:
                # Said at once: a backend that spawns no adapter (a debugger on
                # a terminal) never reaches remember, and the wrong
                # guess would be spawned at every such start.
                records = _records()
                records[PROGRAMS] = {**(records.get(PROGRAMS) or {}), self._program: backend}
                _write(records)

    def started(self, backend: str) -> None:
        """A session's debugger of ``backend`` is being started: the record's
        LAST from now on, whether or not the backend's spawn is one that is
        kept (a debugger reached over TCP is not)."""
        records = _records()
        if records.get(LAST) != {"backend": backend}:
            records[LAST] = {"backend": backend}
            _write(records)

    # -- a restart's ----------------------------------------------------------

    def spawn_ahead(self, backend: str, cwd: str) -> None:
        """In a session's daemon whose program stopped where a rerun is likely
        (at a failure): spawn ahead what ``backend`` spawned last (the record's),
        in ``cwd``, for `dbg restart`, whose spawn adopts it on the terms of
        :meth:`adopt` (a debugpy adapter's launcher then starts the program's
        interpreter ahead too). One at a time; it lives until a restart takes
        it or :meth:`end_ahead`. Never raises."""
        if (self._ahead is not None and self._ahead.running()) \
                or os.environ.get("DBG_NO_EARLY_SPAWN"):
            return
        self.end_ahead()
        spawn = _spawn_of(_records().get(backend))
        if spawn is not None:
            self._ahead = _spawn(spawn, cwd)

    def end_ahead(self) -> None:
        """End what :meth:`spawn_ahead` spawned, if no restart took it."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            _end(ahead, "no restart came for it")

    # -- what a transport asks ------------------------------------------------

    def secret(self, name: str) -> str:
        """A fresh secret (64 hex digits) for the adapter's environment variable
        ``name``, such as an access token: the one the early process (or the
        one spawned ahead of a restart) was given, while there is one, so that
        it can be adopted. Never written down."""
        self._secret_names.add(name)
        for early in (self._early, self._ahead):
            if early is not None and name in early.env:
                return early.env[name]
        return os.urandom(32).hex()

    def adopt(self, argv: list[str], env: dict[str, str] | None,
              cwd: str | None) -> subprocess.Popen[bytes] | None:
        """The early process, if it is what a backend spawning ``argv`` with
        ``env`` (None: the daemon's) in ``cwd`` (None: the daemon's) would have
        spawned, and still runs; None otherwise (and it is ended then). Either
        way this spawn is remembered for the next start of the backend."""
        early = self._take(argv, env, cwd, console=False)
        return early.proc if early is not None else None

    def adopt_console(self, argv: list[str], env: dict[str, str],
                      cwd: str | None) -> PtyProcess | None:
        """For a console debugger that can start before it knows its run: its
        early process, if it was spawned in a pseudo-terminal as ``argv`` with
        ``env`` in ``cwd`` and still runs; None otherwise (and it is ended then).
        Such a debugger's ``argv`` starts it waiting: it reads the rest of its
        command line from what the backend sends it once adopted (dbg's pdb
        launcher: a line naming a file). Either way this ``argv`` is remembered
        for the next start of the backend, to be spawned early in a terminal."""
        early = self._take(argv, env, cwd, console=True)
        return early.console if early is not None else None

    def _take(self, argv: list[str], env: dict[str, str] | None, cwd: str | None,
              console: bool) -> _Early | None:
        """The early process, if it is what the backend spawns now (see
        :meth:`adopt`); ended otherwise."""
        early, self._early = self._early, None
        if early is None:
            early, self._ahead = self._ahead, None
        wanted = dict(os.environ) if env is None else env
        self.remember(argv, wanted, console)
        if early is None:
            return None
        same = early.argv == argv and early.env == wanted \
            and (early.console is not None) == console \
            and os.path.realpath(early.cwd) == os.path.realpath(cwd or os.getcwd())
        if same and early.running():
            _log("adopted the early %s (pid %d, spawned %.0f ms before)",
                 "console" if console else "adapter", early.pid,
                 (time.monotonic() - early.spawned) * 1000)
            return early
        _end(early, "not what the backend spawns now")
        return None

    def remember(self, argv: list[str], env: dict[str, str], console: bool = False) -> None:
        """Keep how the backend spawned its adapter for its next start, and for
        a start that named no backend, which one was chosen for the program's
        suffix (only in a daemon made for a start, and only once)."""
        backend, self._backend = self._backend, None
        program, self._program = self._program, None
        if backend is None:
            return
        pid = str(os.getpid())
        own_pid = sorted(k for k, v in env.items() if v == pid and os.environ.get(k) != pid)
        secrets = sorted(k for k in self._secret_names if k in env)
        changed = {k: v for k, v in env.items()
                   if os.environ.get(k) != v and k not in secrets and k not in own_pid}
        spawn = _Spawn(argv, changed, sorted(k for k in os.environ if k not in env), secrets,
                       own_pid, console)
        records = _records()
        programs = dict(records.get(PROGRAMS) or {})
        if records.get(backend) == spawn.record() and records.get(LAST) == {"backend": backend} \
                and (program is None or programs.get(program) == backend):
            return
        records[backend] = spawn.record()
        records[LAST] = {"backend": backend}
        if program is not None:
            programs[program] = backend
            records[PROGRAMS] = programs
        _write(records)

    def discard(self) -> None:
        """End an early process no backend adopted (a start refused or failed
        before its adapter's spawn, a daemon that ends)."""
        early, self._early = self._early, None
        if early is not None:
            _end(early, "no backend adopted it")


#: This process's early processes (one start a daemon).
THIS_PROCESS = EarlyProcesses()


def _record_path() -> str:
    """RECORD in dbg's home."""
    from dbgcore.shared.sessionsocket import home

    return os.path.join(home(), RECORD)


def _records() -> dict[str, JsonObject]:
    """What RECORD keeps, from a file only this user could have written (its
    command lines are run as they are)."""
    import json

    from dbgcore.shared.homecheck import read_file

    try:
        data = json.loads(read_file(_record_path()))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} \
        if isinstance(data, dict) else {}


def _spawn_of(record: JsonObject | None) -> _Spawn | None:
    """The spawn a record keeps; None for none, or one not well formed."""
    if record is None:
        return None
    try:
        spawn = _Spawn(**record)
    except TypeError:
        return None
    strings = [*spawn.argv, *spawn.env, *spawn.env.values(), *spawn.unset, *spawn.secrets,
               *spawn.own_pid]
    return spawn if spawn.argv and all(isinstance(s, str) for s in strings) else None


def _spawn(spawn: _Spawn, cwd: str) -> _Early | None:
    """``spawn`` started in ``cwd``; None when it cannot be (a debugger
    gone since, a folder that is not: the backend says so)."""
    import subprocess

    from dbgcore.shared import procutil

    env = spawn.environment()
    if spawn.console:
        return _spawn_console(spawn.argv, env, cwd)
    try:
        # As AdapterProcess spawns an adapter that speaks DAP over its stdio:
        # its own process group, the parent-death signal.
        command, preexec = procutil.bound_to_parent(spawn.argv, env, cwd)
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd, start_new_session=True, preexec_fn=preexec, bufsize=0)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return _Early(proc, spawn.argv, env, cwd, time.monotonic())


def _spawn_console(argv: list[str], env: dict[str, str], cwd: str) -> _Early | None:
    """A console debugger's waiting start, in a pseudo-terminal, as
    dbgcore.transport.ptydriver.PtyDriver spawns one (echo off, its terminal size, its own
    session, the parent-death signal)."""
    from ptyprocess import PtyProcess

    from dbgcore.shared import procutil

    if not os.path.isdir(cwd):
        return None  # a folder that is not: the backend says so
    command, preexec = procutil.bound_to_parent(argv, env, cwd)
    parent = os.getpid()
    try:
        console = PtyProcess.spawn(command, cwd=cwd, env=env, echo=False, preexec_fn=preexec,
                                   dimensions=CONSOLE_DIMENSIONS)
    except Exception:  # OSError, and ptyprocess' own errors (an exec that failed)
        if os.getpid() != parent:
            # ptyprocess lets an error before its exec (a chdir) rise in
            # the forked child: it must not go on as a second daemon.
            os._exit(1)
        return None  # a debugger gone since: the backend says so
    return _Early(None, argv, env, cwd, time.monotonic(), console=console)


def _write(records: dict[str, JsonObject]) -> None:
    """RECORD as ``records`` (replaced whole; a failure leaves it as it was)."""
    import contextlib
    import json

    from dbgcore.shared.homecheck import make_folders, write_file

    path = _record_path()
    with contextlib.suppress(OSError):
        make_folders(os.path.dirname(path), tighten=False)
        write_file(path, json.dumps(records).encode("utf-8"), f"{path}.{os.getpid()}")


def _end(early: _Early, why: str) -> None:
    import contextlib
    import subprocess

    from dbgcore.shared import procutil

    pid = early.pid
    _log("ended the early %s (pid %d): %s", "adapter" if early.console is None else "console",
         pid, why)
    proc = early.proc
    if proc is not None:
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
    console = early.console
    if console is not None:
        # Closed as its close() would, without the 0.1 s sleep that follows
        # (and marked closed, so that its finalizer closes nothing later).
        with contextlib.suppress(OSError):
            console.fileobj.close()
        console.fd, console.closed = -1, True
    procutil.terminate_groups([pid], grace=0.5, reap=[pid], interrupt=False)
    if proc is not None:
        with contextlib.suppress(subprocess.TimeoutExpired, ChildProcessError):
            proc.wait(timeout=0.5)
