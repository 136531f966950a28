"""Early spawn: a new session's debugger starts while its daemon imports.

A daemon forked by the first client of a `dbg start --backend NAME` (or of
a `dbg test`) spends
tens of milliseconds importing and setting up before its backend spawns the
debug adapter, which then takes its own hundreds of milliseconds to start
(gdb loading, lldb-dap, debugpy's adapter). That start needs only a command
line, and the second core is idle meanwhile: the forked daemon starts the
adapter first (:func:`spawn_early`, before it imports anything else), and
the backend's spawn adopts it (:func:`adopt`) when it is exactly what it
would have spawned: the same argv, the same environment and the same
working folder. Anything else ends the early process, and the backend
spawns as before.

What to spawn is what the backend of that name spawned last time from this
DBG_HOME (:func:`remember`, in ``adapters.json``, a file of the user's
alone): its argv, and its environment as changes to the daemon's, so
dbgcore names no backend. A start that names no backend (the words alone
cannot say which the daemon will choose) spawns the backend the last such
start chose for a program of the same suffix (the record's ``_programs``:
the suffix of the first word that names a file, ``.py``, to the backend's
name; :func:`chosen` tells it which was chosen; a `dbg test`, the backend
the last such test chose); a wrong guess is a process no backend adopts.
A variable that holds the daemon's pid gets the new daemon's; one that
holds a secret (debugpy's access token) is made with
:func:`adapter_secret`, which is never written down: the early process
gets a fresh one, and the backend's profile takes that one. The adapter
runs in the run's folder (``--cwd``, else the client's), as the backend
spawns it. A session's first start in a new DBG_HOME, an adapter reached
over TCP (its argv or its stdout carry a fresh address), and a
backend whose spawn changed (another gdb on PATH, a project's backends.yaml)
spawn as before, and so does every start with ``DBG_NO_EARLY_SPAWN`` set.

A console debugger (pdb's launcher) can be spawned early too, in a
pseudo-terminal as dbgcore.transport.ptydriver spawns one, when its command line starts it
waiting for its run: the backend's spawn adopts it (:func:`adopt_console`)
on the same terms and then tells it the run's details (the program, the
session's FIFOs); its record says ``"console": true``.

A session whose program stopped at a failure, where a rerun is likely,
spawns the same way ahead of its `dbg restart` (:func:`spawn_ahead`), which
adopts it on the same terms; it is ended when the session ends unrestarted
(:func:`end_ahead`).

No early process outlives its start: one the start did not adopt is ended
before the start is answered, refused or failed (:func:`discard`, by the
daemon), and it was spawned with the same parent-death signal as every
adapter, for a daemon that is killed. A fork server's spare daemon
(dbgcore.start.forkhelper) spawns one before its start is known, and ends it
when it ends unused.
"""

from __future__ import annotations

import os
import time

# Only what the early spawn needs is imported before it (json, subprocess,
# dbgcore.shared.procutil, in spawn_early): logging, dataclasses, pathlib and
# typing cost a start 10-20 ms more before the debugger's spawn, and the
# daemon imports them next, beside the debugger's own start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    from ptyprocess import PtyProcess

    from dbgcore.shared.jsontypes import JsonObject

#: The file of how each backend spawned its adapter last, by backend name.
RECORD = "adapters.json"


class _Spawn:
    """How a backend spawns its adapter, as kept in RECORD: its argv, and its
    environment as changes to the daemon's. ``secrets``: variables a fresh
    secret goes into each time (never written down: see :func:`adapter_secret`);
    ``own_pid``: variables that hold the daemon's pid."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None,
                 unset: list[str] | None = None, secrets: list[str] | None = None,
                 own_pid: list[str] | None = None, console: bool = False) -> None:
        self.argv = argv
        self.env = env if env is not None else {}
        self.unset = unset if unset is not None else []
        self.secrets = secrets if secrets is not None else []
        self.own_pid = own_pid if own_pid is not None else []
        #: A console debugger's waiting start (see :func:`adopt_console`),
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


#: The early process, until adopted or discarded.
_early: _Early | None = None
#: The process spawned ahead of a restart (:func:`spawn_ahead`), until a
#: restart adopts it or the session ends.
_ahead: _Early | None = None
#: The backend named by the start this daemon was forked for (what to remember).
_backend: str | None = None
#: The names :func:`adapter_secret` was asked for in this process.
_secret_names: set[str] = set()
#: A start that names no backend: its program's suffix (see :func:`program_key`).
_program: str | None = None
#: The backend whose adapter was spawned for such a start, guessed from it.
_guess: str | None = None
#: The record's map of a program's suffix to the backend chosen for it.
PROGRAMS = "_programs"
#: The record's key of the backend whose debugger a start spawned last.
LAST = "_last"


#: The ops whose daemon spawns the debugger early: `start`, and `test`
#: (whose backend runs the test runner as a program).
_OPS = ("start", "test")
#: The key of `dbg test` without --backend in the record's PROGRAMS (it names
#: no program: the runner's arguments are tests, folders, options).
TEST_KEY = "test"


def backend_of(words: list[str]) -> str | None:
    """The backend a start's (or `test`'s) words name with ``--backend`` /
    ``-b`` among its options (before the program or the runner's first
    argument), None for none. Read without the op table (15 ms of imports):
    a word after an option may be its value, and the program is a word after
    a word that is no option. A misread only spawns a process no backend
    adopts, and the daemon reads the words properly (dbgcore.vocab.opspec) before
    anything else happens."""
    return _option(words, ("--backend", "-b"))


def _option(words: list[str], names: tuple[str, ...]) -> str | None:
    """The value of the option called one of ``names`` (the first is its
    long name) among the options of a start's (or `test`'s) ``words``; None
    when it is not given there."""
    if not words or words[0] not in _OPS:
        return None
    after_option = False
    rest = iter(words[1:])
    for word in rest:
        if word == "--":
            return None
        if word in names:
            return next(rest, None)
        if word.startswith(names[0] + "="):
            return word.partition("=")[2]
        if not word.startswith("-") and not after_option:
            return None  # the program: what follows is its own
        after_option = word.startswith("-") and "=" not in word
    return None


def program_key(words: list[str]) -> str | None:
    """For a start's words that name no backend: the suffix of the first
    word among its options that names a file (``.py``), lower-cased; None
    for none, or a module's start (``-m``). Read without the op table, so an
    option's value (``--stdin in.txt``) may be taken for the program: the
    same words give the same key, and a wrong guess only spawns a process
    no backend adopts. `test`: :data:`TEST_KEY`, whatever it runs."""
    if words and words[0] == "test":
        return TEST_KEY
    if not words or words[0] != "start":
        return None
    for word in words[1:]:
        if word == "--" or word in ("-m", "--module"):
            return None
        if not word.startswith("-") and os.path.isfile(word):
            suffix = os.path.splitext(word)[1].lower()
            return suffix or None
    return None


def retarget(words: list[str]) -> None:
    """A spare daemon (dbgcore.start.successor), whose early process was spawned
    for the start of the session it was forked in, is taken by the start of
    ``words``: what :func:`chosen` and :func:`remember` keep is this
    start's, as in a daemon forked for it. Its early process is adopted only
    if it is what this start's backend spawns, as ever."""
    global _backend, _program, _guess
    _backend = backend_of(words)
    _program = program_key(words) if _backend is None else None
    _guess = None
    if _program is not None:
        guess = _records().get(PROGRAMS, {}).get(_program)
        _guess = guess if isinstance(guess, str) else None


def chosen(backend: str) -> None:
    """The daemon chose ``backend`` for a start that named none: what
    :func:`remember` keeps the program's suffix for (the next such start
    spawns its adapter early)."""
    global _backend
    if _backend is None and _program is not None:
        _backend = backend
        if _guess != backend:
            # Said at once: a backend that spawns no adapter (a debugger on
            # a terminal) never reaches :func:`remember`, and the wrong
            # guess would be spawned at every such start.
            records = _records()
            records[PROGRAMS] = {**(records.get(PROGRAMS) or {}), _program: backend}
            _write(records)


def _record_path() -> str:
    """RECORD in DBG_HOME (as dbgcore.shared.paths.dbg_home finds it, without pathlib)."""
    home = os.environ.get("DBG_HOME")
    if home:
        return os.path.join(os.path.abspath(os.path.expanduser(home)), RECORD)
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "dbg", RECORD)


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


def spawn_early(words: list[str]) -> None:
    """In a daemon just forked for ``words`` (a `start`), before it imports
    anything else: spawn the adapter its backend spawned last time, if any.
    Never raises: whatever goes wrong here, the backend spawns as before."""
    global _early, _backend, _program, _guess
    _backend = backend_of(words)
    _program = program_key(words) if _backend is None else None
    _guess = None
    if os.environ.get("DBG_NO_EARLY_SPAWN") or (_backend is None and _program is None):
        return
    records = _records()
    name = _backend
    if name is None and _program is not None:
        name = _guess = records.get(PROGRAMS, {}).get(_program)
    spawn = _spawn_of(records.get(name)) if isinstance(name, str) else None
    if spawn is None:
        return
    # A DAP backend spawns its adapter in the run's folder (`--cwd`, else here).
    _early = _spawn(spawn, os.path.abspath(_option(words, ("--cwd",)) or "."))


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


#: The terminal size every console debugger is spawned with (dbgcore.transport.ptydriver's).
CONSOLE_DIMENSIONS = (50, 4000)


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


def spawn_ahead(backend: str, cwd: str) -> None:
    """In a session's daemon whose program stopped where a rerun is likely
    (at a failure): spawn ahead what ``backend`` spawned last (the record's),
    in ``cwd``, for `dbg restart`, whose spawn adopts it on the terms of
    :func:`adopt` (a debugpy adapter's launcher then starts the program's
    interpreter ahead too). One at a time; it lives until a restart takes
    it or :func:`end_ahead`. Never raises."""
    global _ahead
    if (_ahead is not None and _ahead.running()) or os.environ.get("DBG_NO_EARLY_SPAWN"):
        return
    end_ahead()
    spawn = _spawn_of(_records().get(backend))
    if spawn is not None:
        _ahead = _spawn(spawn, cwd)


def end_ahead() -> None:
    """End what :func:`spawn_ahead` spawned, if no restart took it."""
    global _ahead
    ahead, _ahead = _ahead, None
    if ahead is not None:
        _end(ahead, "no restart came for it")


def adapter_secret(name: str) -> str:
    """A fresh secret (64 hex digits) for the adapter's environment variable
    ``name``, such as an access token: the one the early process (or the
    one spawned ahead of a restart) was given, while there is one, so that
    it can be adopted. Never written down."""
    _secret_names.add(name)
    for early in (_early, _ahead):
        if early is not None and name in early.env:
            return early.env[name]
    return os.urandom(32).hex()


def adopt(argv: list[str], env: dict[str, str] | None,
          cwd: str | None) -> subprocess.Popen[bytes] | None:
    """The early process, if it is what a backend spawning ``argv`` with
    ``env`` (None: the daemon's) in ``cwd`` (None: the daemon's) would have
    spawned, and still runs; None otherwise (and it is ended then). Either
    way this spawn is remembered for the next start of the backend."""
    early = _take(argv, env, cwd, console=False)
    return early.proc if early is not None else None


def adopt_console(argv: list[str], env: dict[str, str], cwd: str | None) -> PtyProcess | None:
    """For a console debugger that can start before it knows its run: its
    early process, if it was spawned in a pseudo-terminal as ``argv`` with
    ``env`` in ``cwd`` and still runs; None otherwise (and it is ended then).
    Such a debugger's ``argv`` starts it waiting: it reads the rest of its
    command line from what the backend sends it once adopted (dbg's pdb
    launcher: a line naming a file). Either way this ``argv`` is remembered
    for the next start of the backend, to be spawned early in a terminal."""
    early = _take(argv, env, cwd, console=True)
    return early.console if early is not None else None


def _take(argv: list[str], env: dict[str, str] | None, cwd: str | None,
          console: bool) -> _Early | None:
    """The early process, if it is what the backend spawns now (see
    :func:`adopt`); ended otherwise."""
    global _early, _ahead
    early, _early = _early, None
    if early is None:
        early, _ahead = _ahead, None
    wanted = dict(os.environ) if env is None else env
    remember(argv, wanted, console)
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


def remember(argv: list[str], env: dict[str, str], console: bool = False) -> None:
    """Keep how the backend spawned its adapter for its next start, and for
    a start that named no backend, which one was chosen for the program's
    suffix (only in a daemon forked for a start, and only once)."""
    global _backend, _program
    backend, _backend = _backend, None
    program, _program = _program, None
    if backend is None:
        return
    pid = str(os.getpid())
    own_pid = sorted(k for k, v in env.items() if v == pid and os.environ.get(k) != pid)
    secrets = sorted(k for k in _secret_names if k in env)
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


def started(backend: str) -> None:
    """A session's debugger of ``backend`` is being started: what
    :func:`last_backend` answers from now on, whether or not the backend's
    spawn is one that is kept (a debugger reached over TCP is not)."""
    records = _records()
    if records.get(LAST) != {"backend": backend}:
        records[LAST] = {"backend": backend}
        _write(records)


def last_backend() -> str | None:
    """The backend a session was last started with from this DBG_HOME (what
    a fork server's first spare daemon is forked for, and spawns the
    debugger of when its spawn is kept); None for none."""
    last = _records().get(LAST) or {}
    name = last.get("backend")
    return name if isinstance(name, str) and name else None


def _write(records: dict[str, JsonObject]) -> None:
    """RECORD as ``records`` (replaced whole; a failure leaves it as it was)."""
    import contextlib
    import json

    from dbgcore.shared.homecheck import make_folders, write_file

    path = _record_path()
    with contextlib.suppress(OSError):
        make_folders(os.path.dirname(path), tighten=False)
        write_file(path, json.dumps(records).encode("utf-8"), f"{path}.{os.getpid()}")


def discard() -> None:
    """End an early process no backend adopted (a start refused or failed
    before its adapter's spawn, a daemon that ends)."""
    global _early
    early, _early = _early, None
    if early is not None:
        _end(early, "no backend adopted it")


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
