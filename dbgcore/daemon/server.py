"""The session daemon: one detached process per session that holds the debugger.

Started by ``dbg start`` as ``python -m dbgcore.daemon.server NAME`` in a new process
session with stdio detached. It listens on a private Unix socket; each client
connection carries one request. Ops run one at a time on a single long-lived
worker thread (debuggers are not thread-safe, and children started with a
parent-death signal must have a parent thread that lives as long as the
session). ``kill`` and ``ping`` are answered at once, even while an op runs.

This module is the daemon's core: its state, the accept loop, each request's
way to the worker, and the worker itself. What it hands to others, each in a
module of its own: the socket and its connection threads
(:mod:`~dbgcore.daemon.listener`), the ops answered beside one that waits for
the program (:mod:`~dbgcore.daemon.beside`), the child processes' sessions
(:mod:`~dbgcore.daemon.children`), the fast path's command lines
(:mod:`~dbgcore.daemon.fastpath`) and the end (:mod:`~dbgcore.daemon.shutdown`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import socket
import sys
import threading
import time
import traceback
from concurrent.futures import Future
from pathlib import Path

from dbgcore.backends.pluginhost import PluginHost
from dbgcore.backends.registry import Front
from dbgcore.daemon.beside import answer_beside, follow
from dbgcore.daemon.children import CHILD_LINGER, ChildLinger, ChildSessions
from dbgcore.daemon.fastpath import FirstStart, serve_argv
from dbgcore.daemon.listener import Connections, Door, reply
from dbgcore.daemon.session import Session
from dbgcore.daemon.shutdown import Shutdown, program_after_kill
from dbgcore.daemon.startup import NewInterpreter, StartUp
from dbgcore.ops.table import front
from dbgcore.shared import procutil
from dbgcore.shared.diskspace import disk_errno, refused
from dbgcore.shared.ended import ENDED_STATES, noted, replace_ended
from dbgcore.shared.errors import (
    DbgError,
    InternalError,
    NoSession,
    SessionExists,
    UsageError,
)
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import CHILD_SESSION_ROLE, dbg_home, private_dir, session_dir, socket_path
from dbgcore.shared.status import read_status, status_file, write_status
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT, timeout_problem
from dbgcore.shared.wire import recv_message
from dbgcore.store.db import Store
from dbgcore.transport.translog import BoundedLogHandler, LogHealth

log = logging.getLogger("dbg.daemon")

DEFAULT_IDLE_TIMEOUT = 30 * 60.0

#: An op, its args and timeout, its answer to come, and who sent it (the
#: wire's ``by``: None for the CLI and MCP).
_Job = tuple[str, JsonObject, float, "Future[JsonObject]", str | None]

#: The plugin host and op table made once (:func:`preload`) by a process that
#: forks daemons or becomes one (:mod:`dbgcore.start.forkhelper`,
#: :mod:`dbgcore.start.sparedaemon`): the daemon takes it instead of loading the
#: plugins' hooks again (4-15 ms of a start).
prepared_front: Front | None = None


def preload() -> None:
    """What every daemon needs before it can take its first op, loaded
    before its session is known, by a process that forks daemons: the
    daemon's modules, and the plugins: their host, with every backend class
    registered, and the op table, made once and copied into each daemon
    forked from there (:data:`prepared_front`), which made its own in 4-15
    ms of its start. Done by `dbg mcp`'s fork server (dbgcore.start.forkhelper)
    and by a session's spare (dbgcore.start.sparedaemon); each serves only a
    start with its own environment and folder, so a host made now is the one
    the daemon would make."""
    global prepared_front
    prepared = front(PluginHost)
    prepared.backends.classes()
    _ = prepared.table
    prepared_front = prepared
    # A console debugger's spawn needs libc's prctl: found once here, it is
    # found for every daemon forked from here.
    procutil.death_pact()


class Daemon:
    def __init__(self, name: str, idle_timeout: float, first_client: bool = False,
                 replacing_at: str | None = None, log_health: LogHealth | None = None,
                 startup: StartUp | None = None) -> None:
        """``startup``: what whoever made this daemon leaves it to look
        after (its early debugger, its spare); None: a daemon started as a
        new interpreter has neither."""
        self.name = name
        self.startup = startup or NewInterpreter()
        self.run_dir = private_dir(session_dir(name))
        self.idle_timeout = idle_timeout
        #: Where it listens until it takes the name (main's replacing_at).
        self._replacing = replacing_at is not None
        self.door = Door(Path(replacing_at) if replacing_at else socket_path(name))
        self.store = Store()
        # The one plugin host and op table of this daemon (a forked client
        # has the plugins' modules imported already).
        self.front = prepared_front or front(PluginHost)
        self.table = self.front.table
        self.children: list[JsonObject] = []
        self._status_lock = threading.Lock()
        self.child_sessions = ChildSessions(self.children, self._status_lock)
        self._child_linger = ChildLinger()
        self.session = Session(name, self.run_dir, self.front, self.store, self.track_process,
                               self.startup.early, log_health or LogHealth(dbg_home()))
        self.jobs: queue.Queue[_Job | None] = queue.Queue()
        self.busy = False
        #: The op that waits for the program (queued or running), and the
        #: future its caller waits on: ops that arrive meanwhile go beside it.
        self.waiting: tuple[str, Future[JsonObject]] | None = None
        self._waiting_lock = threading.Lock()
        self.last_activity = time.monotonic()
        self.stopping = threading.Event()
        self._shutdown = Shutdown(name, self.session, self.startup, self.door, self.children,
                                  self.child_sessions, self._status_lock, self.stopping,
                                  lambda: self.jobs.put(None))
        #: A start failed and the daemon is ending: later ops get no_session,
        #: not a debugger that is being closed under them.
        self._failed_start = False
        self.connections = Connections(self._serve_conn)
        #: Forked by the client that starts the session before it read its
        #: command line (dbgcore.entry): that command line, a `start`, comes
        #: as the first `argv` request, and this daemon ends if it fails.
        self.first_start = FirstStart(first_client)

    # -- status ----------------------------------------------------------------

    def status_data(self) -> JsonObject:
        return {
            "pid": os.getpid(),
            "start_time": procutil.start_time(os.getpid()),
            "socket": str(self.door.path),
            "session": self.name,
            "children": self.children,
            "started_at": time.time(),
            **{k: v for k, v in self.session.describe().items() if k in ("backend", "program")},
        }

    def _write_status(self, required: bool = False) -> None:
        """``required``: the first, without which no client finds the
        daemon; a later one that the disk refuses leaves the file as it was
        (the daemon holds what it would add) and the answer says so."""
        # One writer at a time: a child process's session is tracked from
        # another thread than the op's, and both write the same file.
        with self._status_lock:
            if self.stopping.is_set():
                # Removed by the end: the name may be a new session's already.
                return
            try:
                write_status(self.name, self.status_data())
            except OSError as exc:
                if required or disk_errno(exc) is None:
                    raise
                log.warning("status.json not written: %s", exc)
                self.session.log_health.failed(status_file(self.name), exc)
                return
            self.session.log_health.recovered(status_file(self.name))

    def track_process(self, pid: int, role: str) -> None:
        self.children.append({"pid": pid, "start_time": procutil.start_time(pid),
                              "pgid": procutil.pgid_of(pid), "role": role})
        self._write_status()
        if self.stopping.is_set() and role.startswith(CHILD_SESSION_ROLE):
            # Started while this session ends (a pool's next worker): the
            # end's own pass over the child sessions may have been before it.
            self.child_sessions.end_all()

    # -- serving ---------------------------------------------------------------

    def serve(self) -> None:
        listener = self.door.open()
        if not self._replacing:  # the status file is still the ended session's
            self._write_status(required=True)
        worker = threading.Thread(target=self._work, name="dbg-worker", daemon=True)
        worker.start()
        log.info("daemon %s listening on %s (pid %d)", self.name, self.door.path, os.getpid())
        while not self.stopping.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                if not self.busy and time.monotonic() - self.last_activity > self.idle_timeout:
                    log.info("idle for %.0fs: ending session", self.idle_timeout)
                    self.shutdown()
                elif self.first_start.overdue():
                    log.info("no start came from the client that forked this daemon: ending")
                    self.shutdown()
                elif not self.busy and self._child_linger.over(self.session, self.last_activity):
                    log.info("the child process ended %.0fs ago: ending session", CHILD_LINGER)
                    self.shutdown()
                elif not self._reachable():
                    log.info("%s is gone: no client can reach this session; ending it",
                             self.door.path)
                    self.shutdown()
                continue
            except OSError:
                break
            self.connections.serve(conn)
        self.shutdown()
        # Let answers already being written (e.g. a failed start) reach their clients.
        self.connections.join(2.0)

    def _reachable(self) -> bool:
        """Whether clients can still find us: our socket where it was, and the
        status file that leads them to it. A session folder someone deleted
        (a test's temporary DBG_HOME, `rm -r`) leaves a daemon nobody can
        reach or kill, so it ends itself; the socket alone does not tell when
        a long DBG_HOME put it in /tmp (dbgcore.shared.paths.socket_path)."""
        if self._replacing:
            # Beside an ended session, until _take_name moves the socket and
            # writes the status file (it ends if no start comes, or it fails).
            return True
        try:
            return self.door.still_ours() and status_file(self.name).exists()
        except OSError:
            return False

    def _serve_conn(self, conn: socket.socket) -> None:
        with conn:
            try:
                request = recv_message(conn)
            except (DbgError, OSError) as exc:
                log.warning("bad request: %s", exc)
                return
            if request is None:
                return
            op = str(request.get("op", ""))
            args = request.get("args") or {}
            timeout = request.get("timeout") or DEFAULT_TIMEOUT
            self.last_activity = time.monotonic()
            if self._failed_start and op not in ("kill", "ping"):
                reply(conn, {"ok": False, "error": NoSession(
                    f"no session named {self.name!r} (its start failed)",
                    "start one with `dbg start PROGRAM`").to_wire(), "via": self.session.via()})
                return
            problem = timeout_problem(timeout)
            if problem is not None:
                # Only a client other than dbg's own sends one: they check first.
                reply(conn, {"ok": False, "error": UsageError(problem).to_wire(),
                             "via": self.session.via()})
                return
            timeout = float(timeout)
            if op == "argv":
                serve_argv(self, conn, args, timeout)
                return
            by = request.get("by")
            response = self.dispatch(op, args, timeout,
                                     by=str(by)[:200] if isinstance(by, str) and by else None)
            reply(conn, response)

    def dispatch(self, op: str, args: JsonObject, timeout: float,
                 by: str | None = None) -> JsonObject:
        """Run one op: ``kill`` and ``ping`` at once; while another op waits
        for the program, the ops that must not wait for it beside it; the
        rest in turn on the worker thread."""
        if op == "kill":
            via = self.session.via()
            program = program_after_kill(self.session)
            self.shutdown()
            return {"ok": True, "result": {"killed": self.name, "program": program},
                    "via": via}
        if op == "ping":
            waiting = self.waiting
            return {"ok": True, "result": {"pid": os.getpid(),
                                           "session": self.session.describe(),
                                           "busy": waiting[0] if waiting else None},
                    "via": self.session.via()}
        future: Future[JsonObject] = Future()
        waits = self._waits_for_program(op)
        with self._waiting_lock:
            # Registered before the op is queued: one that arrives while it
            # waits in the queue goes beside it too, not after it.
            busy = self.waiting
            if busy is None and waits:
                self.waiting = (op, future)
        if busy is not None:
            return answer_beside(op, args, timeout, *busy, self.session, self.table,
                                 self.child_sessions)
        children_before = set(self.child_sessions.stopped()) if waits else set()
        self.jobs.put((op, args, timeout, future, by))
        response = follow(future, None, self.session, self.child_sessions,
                          children_before) if waits else future.result()
        self.last_activity = time.monotonic()
        return response

    def _waits_for_program(self, op: str) -> bool:
        """Ops that may block until the program stops: those that stop it
        (`continue`, `start`...), `raw` (whose command may run it) and
        `input` (which waits for the next stop of a running program)."""
        spec = self.table.find(op)
        return spec is not None and spec.waits

    def start_here(self, name: str, op: str, args: JsonObject, timeout: float,
                   idle_timeout: float | None) -> JsonObject:
        """The first client's `start`, run by this daemon it forked; read and
        checked already, so the ended session this one replaces ends now."""
        if idle_timeout is not None:
            self.idle_timeout = float(idle_timeout)
        replaced = self._take_name() if self._replacing else ""
        return noted(self.dispatch(op, args, timeout), replaced)

    def _take_name(self) -> str:
        """End the session whose program ended (as dbgcore.start.spawn does for
        the click CLI), and listen where clients look for this session; what
        was replaced."""
        replaced = replace_ended(self.name)
        # Not client.live_status: without a status file it tidies the
        # folder's sockets away, this daemon's own among them.
        if read_status(self.name) is not None:
            # Started again meanwhile (`dbg restart`): the name is not free.
            raise SessionExists.taken(self.name)
        self.door.move_to(socket_path(self.name))
        self._write_status()
        self._replacing = False
        return replaced

    # -- the worker --------------------------------------------------------------

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            op, args, timeout, future, by = job
            self.busy = True
            try:
                result = self._run_op(op, args, timeout, by)
            except Exception as exc:
                # After the op (a record, the status file): its caller still
                # gets an answer, and the next op a worker.
                log.exception("error after %s", op)
                result = {"ok": False, "error": InternalError(
                    f"internal error in dbg after {op}: {type(exc).__name__}: {exc}",
                    f"this is a bug in dbg; the traceback is in {self.run_dir / 'daemon.log'}",
                ).to_wire(), "via": self.session.via()}
            finally:
                with self._waiting_lock:
                    if self.waiting is not None and self.waiting[1] is future:
                        self.waiting = None
                self.busy = False
                # An early debugger that the session's start did not adopt
                # lives no longer than that start, however it came: ended
                # before the start is answered.
                self.startup.early.discard()
            future.set_result(result)
            if self.program_ended():
                # The program is over: the next start may replace this
                # session, and its spare gets ready for it.
                self.startup.spare_ready()
            elif not self.stopping.is_set():
                self.session.restart_ahead()

    def program_ended(self) -> bool:
        """Whether the session's program has ended (a start may replace it)."""
        return self.session.backend is not None and self.session.state() in ENDED_STATES

    def _run_op(self, op: str, args: JsonObject, timeout: float,
                by: str | None = None) -> JsonObject:
        log.info("op %s %s", op, args)
        spec = self.table.find(op)
        starts = spec is not None and spec.send == "start"
        try:
            result = self.session.handle(op, args, timeout)
        except DbgError as exc:
            return self._failed_op(op, args, exc, starts, by)
        except Exception as exc:
            tb = traceback.format_exc()
            log.error("internal error in %s:\n%s", op, tb)
            # A write of dbg's own that the disk refused is not a bug.
            failure = refused(exc, dbg_home(), f"{op} failed") or InternalError(
                f"internal error in dbg while running {op}: {type(exc).__name__}: {exc}",
                f"this is a bug in dbg; the traceback is in {self.run_dir / 'daemon.log'}",
                traceback=tb,
            )
            return self._failed_op(op, args, failure, starts, by)
        self.session.record_command(op, args, True, result, by)
        if spec is not None and spec.new_debugger:
            self._write_status()
        if spec is not None and spec.children and not args.get("instruction"):
            told = self.child_sessions.tell(op, args, result, timeout)
            if told:
                result = {**result, "children": told}
        return {"ok": True, "result": result, "via": self.session.via()}

    def _failed_op(self, op: str, args: JsonObject, exc: DbgError, starts: bool,
                   by: str | None = None) -> JsonObject:
        error = exc.to_wire()
        # Its record is not worth its answer, nor a failed start's end.
        with contextlib.suppress(Exception):
            self.session.record_command(op, args, False, {"error": error}, by)
        if starts:
            # A session that failed to start must not linger.
            self._failed_start = True
            threading.Thread(target=self.shutdown, daemon=True).start()
        return {"ok": False, "error": error, "via": self.session.via()}

    # -- ending ----------------------------------------------------------------

    def shutdown(self) -> None:
        """End debuggee, debugger and daemon (:class:`~dbgcore.daemon.shutdown.Shutdown`):
        once, whichever thread asks first."""
        self._shutdown.run()


def _setup_logging(run_dir: Path, health: LogHealth) -> None:
    path = run_dir / "daemon.log"
    try:
        # The client opened daemon.log as our fd 2: it follows the rotations.
        owns_stderr = os.path.samestat(os.fstat(2), os.stat(path))
    except OSError:
        owns_stderr = False
    handler = BoundedLogHandler(path, owns_stderr=owns_stderr, health=health)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _ignore_signal(signum: int, frame: object) -> None:
    """A SIGINT (a terminal's Ctrl-C) does not end the daemon."""


def main(argv: list[str] | None = None, startup: StartUp | None = None,
         first_client: bool = False, replacing_at: str | None = None) -> int:
    """``startup``: what the daemon's maker leaves it (dbgcore.start's);
    None for a daemon started as a new interpreter. ``replacing_at``: the
    session's name is still held by a daemon whose program has ended;
    listen at this path (the first client's `start` comes there), and take
    the name only once that start was read and checked."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m dbgcore.daemon.server SESSION [IDLE_TIMEOUT]", file=sys.stderr)
        return 2
    name = args[0]
    idle = float(args[1]) if len(args) > 1 else DEFAULT_IDLE_TIMEOUT
    run_dir = private_dir(session_dir(name))
    health = LogHealth(dbg_home())
    _setup_logging(run_dir, health)
    daemon = Daemon(name, idle, first_client, replacing_at, health, startup)

    def on_signal(signum: int, frame: object) -> None:
        log.info("signal %d: ending session", signum)
        daemon.stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    # Caught, not SIG_IGN: an ignored SIGINT is inherited across exec by every
    # adapter and program the daemon starts (a debugpy program could then
    # not be interrupted, nor see KeyboardInterrupt); a caught one is reset.
    signal.signal(signal.SIGINT, _ignore_signal)
    try:
        daemon.serve()
    except Exception:
        log.exception("daemon crashed")
        daemon.shutdown()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
