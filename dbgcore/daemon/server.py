"""The session daemon: one detached process per session that holds the debugger.

Started by ``dbg start`` as ``python -m dbgcore.daemon.server NAME`` in a new process
session with stdio detached. It listens on a private Unix socket; each client
connection carries one request. Ops run one at a time on a single long-lived
worker thread (debuggers are not thread-safe, and children started with a
parent-death signal must have a parent thread that lives as long as the
session). ``kill`` and ``ping`` are answered at once, even while an op runs.
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
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from dbgcore.backends.pluginhost import PluginHost
from dbgcore.backends.registry import Front
from dbgcore.daemon.session import Session
from dbgcore.daemon.startup import NewInterpreter, StartUp
from dbgcore.ops.call import call_op
from dbgcore.ops.table import front
from dbgcore.shared import client, procutil
from dbgcore.shared.diskspace import disk_errno, refused
from dbgcore.shared.ended import ENDED_STATES, noted, replace_ended
from dbgcore.shared.errors import (
    DbgError,
    InternalError,
    NoSession,
    NotStopped,
    SessionExists,
    UsageError,
)
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import CHILD_SESSION_ROLE, dbg_home, private_dir, session_dir, socket_path
from dbgcore.shared.status import read_status, remove_status, status_file, write_status
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT, timeout_problem
from dbgcore.shared.wire import encode_message, recv_message
from dbgcore.store.db import Store
from dbgcore.transport.translog import BoundedLogHandler, LogHealth
from dbgcore.vocab.location import BreakLoc
from dbgcore.vocab.model import StopSnapshot

log = logging.getLogger("dbg.daemon")

DEFAULT_IDLE_TIMEOUT = 30 * 60.0

_Job = tuple[str, JsonObject, float, "Future[JsonObject]"]


#: How long a second caller of shutdown() waits for the first to finish.
SHUTDOWN_WAIT = 30.0
#: How long a child session has to end its process at the parent's kill.
CHILD_END_WAIT = 10.0
#: Threads kept waiting for the next connection (see _Connections).
KEEP_THREADS = 4

#: How often a client waiting for the program looks whether it waits for input.
INPUT_CHECK = 0.2

#: How long a daemon waits for a child session's daemon to answer.
CHILD_PING_TIMEOUT = 2.0
# How often a child session still attaching is asked again.
CHILD_ATTACH_POLL = 0.05
#: How long a child process's session stays after the child ended (a program
#: that runs a Python child in a loop would otherwise gather daemons); its
#: stops stay in the store (`dbg hits`).
CHILD_LINGER = 60.0
#: How long a daemon forked by the first client of its session (dbgcore.entry)
#: waits for that client's `start` before it ends.
FIRST_CLIENT_WAIT = 30.0
#: How long a daemon's end waits for its spare (dbgcore.start.successor) to end
#: its early debugger and exit.
SPARE_END_WAIT = 3.0

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
        self.sock_path = Path(replacing_at) if replacing_at else socket_path(name)
        self.store = Store()
        # The one plugin host and op table of this daemon (a forked client
        # has the plugins' modules imported already).
        self.front = prepared_front or front(PluginHost)
        self.table = self.front.table
        self.children: list[JsonObject] = []
        self._children_ended: set[str] = set()
        self._status_lock = threading.Lock()
        #: When this child process's session saw its child end.
        self._child_ended_at: float | None = None
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
        self._shutdown_lock = threading.Lock()
        self._shut_down = False
        #: A start failed and the daemon is ending: later ops get no_session,
        #: not a debugger that is being closed under them.
        self._failed_start = False
        self._shutdown_done = threading.Event()
        self._sock_inode = -1
        self.listener: socket.socket | None = None
        self.connections = _Connections(self._serve_conn)
        #: Forked by the client that starts the session before it read its
        #: command line (dbgcore.entry): that command line, a `start`, comes
        #: as the first `argv` request, and this daemon ends if it fails.
        self._first_start_until = time.monotonic() + FIRST_CLIENT_WAIT if first_client else None
        self._first_lock = threading.Lock()

    # -- status ----------------------------------------------------------------

    def status_data(self) -> JsonObject:
        return {
            "pid": os.getpid(),
            "start_time": procutil.start_time(os.getpid()),
            "socket": str(self.sock_path),
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
            self._end_child_sessions()

    # -- serving ---------------------------------------------------------------

    def serve(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.sock_path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(str(self.sock_path))
        finally:
            os.umask(old_umask)
        os.chmod(self.sock_path, 0o600)
        self._sock_inode = os.stat(self.sock_path).st_ino
        listener.listen(16)
        listener.settimeout(0.5)
        self.listener = listener
        if not self._replacing:  # the status file is still the ended session's
            self._write_status(required=True)
        worker = threading.Thread(target=self._work, name="dbg-worker", daemon=True)
        worker.start()
        log.info("daemon %s listening on %s (pid %d)", self.name, self.sock_path, os.getpid())
        while not self.stopping.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                if not self.busy and time.monotonic() - self.last_activity > self.idle_timeout:
                    log.info("idle for %.0fs: ending session", self.idle_timeout)
                    self.shutdown()
                elif self._first_start_until is not None \
                        and time.monotonic() > self._first_start_until:
                    log.info("no start came from the client that forked this daemon: ending")
                    self.shutdown()
                elif not self.busy and self._child_ended_long_ago():
                    log.info("the child process ended %.0fs ago: ending session", CHILD_LINGER)
                    self.shutdown()
                elif not self._reachable():
                    log.info("%s is gone: no client can reach this session; ending it",
                             self.sock_path)
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
            return os.stat(self.sock_path).st_ino == self._sock_inode \
                and status_file(self.name).exists()
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
                self._reply(conn, {"ok": False, "error": NoSession(
                    f"no session named {self.name!r} (its start failed)",
                    "start one with `dbg start PROGRAM`").to_wire(), "via": self.session.via()})
                return
            problem = timeout_problem(timeout)
            if problem is not None:
                # Only a client other than dbg's own sends one: they check first.
                self._reply(conn, {"ok": False, "error": UsageError(problem).to_wire(),
                                   "via": self.session.via()})
                return
            timeout = float(timeout)
            if op == "argv":
                self._serve_argv(conn, args, timeout)
                return
            response = self._dispatch(op, args, timeout)
            self._reply(conn, response)

    def _dispatch(self, op: str, args: JsonObject, timeout: float) -> JsonObject:
        """Run one op: ``kill`` and ``ping`` at once; while another op waits
        for the program, the ops that must not wait for it beside it; the
        rest in turn on the worker thread."""
        if op == "kill":
            via = self.session.via()
            program = self._program_after_kill()
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
            return self._beside(op, args, timeout, *busy)
        self.jobs.put((op, args, timeout, future))
        response = self._follow(future, None) if waits else future.result()
        self.last_activity = time.monotonic()
        return response

    def _program_after_kill(self) -> str:
        """What `kill` does to the program: a process dbg attached to (not a
        child process of a program dbg started) is detached from and left
        running with its children; anything dbg started ends, children too."""
        attached = self.session.attach_request
        if attached is None or self.session.backend is None or (
                attached.options.get("child") and not attached.options.get("attached")):
            return "ended"
        try:
            gone = self.session.backend.state() == "exited"
        except Exception:  # a debugger in trouble: what it attached to is not ours
            gone = False
        return "ended" if gone else "detached, still running"

    def _waits_for_program(self, op: str) -> bool:
        """Ops that may block until the program stops: those that stop it
        (`continue`, `start`...), `raw` (whose command may run it) and
        `input` (which waits for the next stop of a running program)."""
        spec = self.table.find(op)
        return spec is not None and spec.waits

    def _follow(self, future: Future[JsonObject], timeout: float | None) -> JsonObject:
        """The answer of the op behind ``future`` (within ``timeout``, else
        `running`); or, when the program blocks reading the stdin dbg feeds
        it, at once a `running` answer that says it waits for input (the op
        goes on waiting for the stop, which `dbg input` or `dbg wait` then
        collects)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        # A child stopped already is not news; one that stops now is.
        children_before = set(self._stopped_children())
        while True:
            wait = INPUT_CHECK if deadline is None else max(
                0.0, min(INPUT_CHECK, deadline - time.monotonic()))
            try:
                return future.result(wait)
            except FutureTimeout:
                pass
            if deadline is not None and time.monotonic() >= deadline:
                return self._answer(StopSnapshot(state="running").to_dict())
            try:
                waiting = self.session.waiting_for_input()
            except Exception:  # /proc went away under us: just keep waiting
                waiting = False
            if waiting:
                return self._answer({**StopSnapshot(state="running").to_dict(),
                                     "waiting_for_input": True,
                                     "prompt": self.session.prompt()})
            stopped = [name for name in self._stopped_children() if name not in children_before]
            if stopped:
                return self._answer({**StopSnapshot(state="running").to_dict(),
                                     "children_stopped": [self._child_stop(n) for n in stopped]})

    # -- child processes' sessions -------------------------------------------------

    def _child_ended_long_ago(self) -> bool:
        """This is a child process's session, and the child ended more than
        CHILD_LINGER seconds ago (and nothing was asked of it since)."""
        attached = self.session.attach_request
        backend = self.session.backend
        if attached is None or not attached.options.get("child") or backend is None:
            return False
        try:
            ended = backend.state() == "exited"
        except Exception:
            ended = False
        if not ended:
            self._child_ended_at = None
            return False
        if self._child_ended_at is None:
            self._child_ended_at = time.monotonic()
        return time.monotonic() - max(self._child_ended_at, self.last_activity) > CHILD_LINGER

    def _end_child_sessions(self) -> None:
        """`dbg kill` of each child session not told yet (one that ended
        already is no error)."""
        for name in self._child_sessions():
            with self._status_lock:
                if name in self._children_ended:
                    continue
                self._children_ended.add(name)
            with contextlib.suppress(DbgError):
                client.call(name, "kill", {}, CHILD_END_WAIT)

    def _child_sessions(self) -> list[str]:
        return [str(c["role"])[len(CHILD_SESSION_ROLE):] for c in self.children
                if str(c.get("role", "")).startswith(CHILD_SESSION_ROLE)]

    def _stopped_children(self) -> list[str]:
        """The child sessions stopped now (a program waiting for its pool's
        children may be waiting for one stopped at a breakpoint)."""
        stopped = []
        for name in self._child_sessions():
            try:
                answer = client.call(name, "ping", {}, CHILD_PING_TIMEOUT)
            except DbgError:
                continue
            if ((answer.get("result") or {}).get("session") or {}).get("state") == "stopped":
                stopped.append(name)
        return stopped

    def _child_stop(self, name: str) -> JsonObject:
        """Where child session ``name`` stopped (its `wait` collects the stop)."""
        try:
            answer = client.call(name, "wait", {}, CHILD_PING_TIMEOUT)
        except DbgError:
            return {"session": name}
        stop = answer.get("result") or {}
        return {"session": name, "reason": stop.get("reason"), "location": stop.get("location"),
                "hit_breakpoints": stop.get("hit_breakpoints") or []}

    def _answer(self, result: JsonObject) -> JsonObject:
        return {"ok": True, "result": result, "via": self.session.via()}

    def _beside(self, op: str, args: JsonObject, timeout: float, busy: str,
                future: Future[JsonObject]) -> JsonObject:
        """An op that arrives while ``busy`` (another client's) waits for the
        program, answered as its declaration's ``beside`` says: at once
        (`status`, `output`), or with the stop the busy op gets (`pause`
        interrupts the program first); an op without one is refused at once.
        Such an op must not wait for the program, and touch nothing the busy
        op uses."""
        session = self.session
        spec = self.table.find(op)
        try:
            if spec is None or spec.beside is None:
                raise NotStopped(
                    f"{op} needs the program stopped, and another call's `{busy}` is waiting "
                    "for it to stop", "`dbg pause` interrupts it; `dbg wait` waits for the stop")
            now, extra = spec.beside(session, args, timeout, busy)
            if now is not None:
                return self._answer(now)
        except DbgError as exc:
            return {"ok": False, "error": exc.to_wire(), "via": session.via()}
        response = self._follow(future, timeout)
        if response.get("ok"):
            result = dict(response.get("result") or {})
            if "state" not in result and session.last is not None:
                # The busy op was no stopping op (`raw`): the stop it left.
                result = session.last.to_dict()
            result.update(extra)
            response = {**response, "result": result}
        return response

    def _serve_argv(self, conn: socket.socket, args: JsonObject, timeout: float) -> None:
        """A fast-path client (dbgcore.entry) sent its command line: read it
        with the op table, run it, and send back ``CODE STREAM\n`` and the
        bytes to print; ``fallback`` when the click CLI must read it."""
        words = [str(w) for w in args.get("words") or []]
        found = self.table.read_words(words)
        first = False
        if found is None and args.get("first"):
            with self._first_lock:
                first = self._first_start_until is not None
                self._first_start_until = None
            found = self.table.read_start_words(words) if first else None
        if found is None:
            if not first and self._program_ended() \
                    and self.table.read_start_words(words) is not None:
                # A start on this session, whose program has ended: the
                # client replaces it (dbgcore.entry), and need not ask.
                self._send(conn, b"ended\n")
                return
            self._send(conn, b"fallback\n")
            return
        op, values = found
        answer = call_op(op, values, self.name, timeout, self.front, cwd=args.get("cwd"),
                         send=self._dispatch, start=self._start_here if first else None)
        text, err = answer.output(bool(args.get("json")))
        encodings = args.get("encoding") or []
        encoding = str(encodings[1 if err else 0]) if len(encodings) == 2 else "utf-8"
        try:
            body = (text + "\n").encode(encoding, "backslashreplace") if text else b""
        except LookupError:
            body = (text + "\n").encode("utf-8", "backslashreplace")
        refused = first and not answer.ok
        if refused:
            # Before the refusal is answered, so that when the client returns
            # nothing of this start runs and no session of its name is seen
            # or reached (a next call went on to find this daemon still
            # listening, with no program).
            self.startup.early.discard()
            remove_status(self.name, os.getpid())
            self._close_door()
        self._send(conn, b"%d %d\n" % (answer.exit_code, 2 if err else 1) + body)
        if refused:
            # Refused before it reached the debugger (a usage error): this
            # session never began, and must not linger.
            threading.Thread(target=self.shutdown, daemon=True).start()

    def _start_here(self, name: str, op: str, args: JsonObject, timeout: float,
                    idle_timeout: float | None) -> JsonObject:
        """The first client's `start`, run by this daemon it forked; read and
        checked already, so the ended session this one replaces ends now."""
        if idle_timeout is not None:
            self.idle_timeout = float(idle_timeout)
        replaced = self._take_name() if self._replacing else ""
        return noted(self._dispatch(op, args, timeout), replaced)

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
        # The listening socket moves with its file: clients reach it there.
        path = socket_path(self.name)
        os.replace(self.sock_path, path)
        self.sock_path = path
        self._write_status()
        self._replacing = False
        return replaced

    def _reply(self, conn: socket.socket, response: JsonObject) -> None:
        self._send(conn, encode_message(response))

    def _send(self, conn: socket.socket, data: bytes) -> None:
        try:
            conn.sendall(data)
        except OSError as exc:
            # The client gave up (e.g. Ctrl-C); the op's effect stands.
            log.info("client went away before the answer: %s", exc)

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            op, args, timeout, future = job
            self.busy = True
            try:
                result = self._run_op(op, args, timeout)
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
            if self._program_ended():
                # The program is over: the next start may replace this
                # session, and its spare gets ready for it.
                self.startup.spare_ready()
            elif not self.stopping.is_set():
                self.session.restart_ahead()

    def _program_ended(self) -> bool:
        """Whether the session's program has ended (a start may replace it)."""
        return self.session.backend is not None and self.session.state() in ENDED_STATES

    def _run_op(self, op: str, args: JsonObject, timeout: float) -> JsonObject:
        log.info("op %s %s", op, args)
        spec = self.table.find(op)
        starts = spec is not None and spec.send == "start"
        try:
            result = self.session.handle(op, args, timeout)
        except DbgError as exc:
            return self._failed_op(op, args, exc, starts)
        except Exception as exc:
            tb = traceback.format_exc()
            log.error("internal error in %s:\n%s", op, tb)
            # A write of dbg's own that the disk refused is not a bug.
            failure = refused(exc, dbg_home(), f"{op} failed") or InternalError(
                f"internal error in dbg while running {op}: {type(exc).__name__}: {exc}",
                f"this is a bug in dbg; the traceback is in {self.run_dir / 'daemon.log'}",
                traceback=tb,
            )
            return self._failed_op(op, args, failure, starts)
        self.session.record_command(op, args, True, result)
        if spec is not None and spec.new_debugger:
            self._write_status()
        if spec is not None and spec.children and not args.get("instruction"):
            told = self._tell_children(op, args, result, timeout)
            if told:
                result = {**result, "children": told}
        return {"ok": True, "result": result, "via": self.session.via()}

    def _failed_op(self, op: str, args: JsonObject, exc: DbgError, starts: bool) -> JsonObject:
        error = exc.to_wire()
        # Its record is not worth its answer, nor a failed start's end.
        with contextlib.suppress(Exception):
            self.session.record_command(op, args, False, {"error": error})
        if starts:
            # A session that failed to start must not linger.
            self._failed_start = True
            threading.Thread(target=self.shutdown, daemon=True).start()
        return {"ok": False, "error": error, "via": self.session.via()}

    def _tell_children(self, op: str, args: JsonObject, result: JsonObject,
                       timeout: float) -> list[JsonObject]:
        """A breakpoint set or removed in the parent is set or removed in its
        live child sessions too (a new child gets the parent's breakpoints
        when it starts); what each child answered. An unbreak by id goes to
        the children by location, since their ids are their own."""
        children = self._child_sessions()
        if not children:
            return []
        if op == "break":
            calls = [args]
        else:
            calls = [{"location": BreakLoc(file=b.get("file"), line=b.get("requested_line")
                                           or b.get("line")).to_wire()
                      if b.get("kind") == "source" and b.get("file")
                      else BreakLoc(function=b.get("function")).to_wire()}
                     for b in result.get("removed") or [] if b.get("file") or b.get("function")]
        told = []
        for name in children:
            for call in calls:
                try:
                    answer = self._call_child(name, op, call, min(timeout, CHILD_PING_TIMEOUT * 4))
                except DbgError as exc:
                    told.append({"session": name, "ok": False, "error": exc.message})
                    continue
                error = answer.get("error") or {}
                told.append({"session": name, "ok": bool(answer.get("ok")),
                             **({"error": error.get("message", "")} if error else {})})
        return told

    def _call_child(self, name: str, op: str, args: JsonObject, timeout: float) -> JsonObject:
        """Child session ``name``'s answer to ``op``. A child still attaching
        (its daemon's `attach`, sent by this session when the child began, has
        not answered yet) refuses ops that need it settled; it is waited for
        (within ``timeout``), or a breakpoint set meanwhile would miss it."""
        deadline = time.monotonic() + timeout
        while True:
            answer = client.call(name, op, args, max(0.1, deadline - time.monotonic()))
            if (answer.get("error") or {}).get("kind") != NotStopped.kind \
                    or time.monotonic() >= deadline:
                return answer
            ping = client.call(name, "ping", {}, CHILD_PING_TIMEOUT)
            if (ping.get("result") or {}).get("busy") != "attach":
                return answer
            time.sleep(CHILD_ATTACH_POLL)

    # -- ending ----------------------------------------------------------------

    def shutdown(self) -> None:
        """End debuggee, debugger and daemon. The status file goes first, so no
        client is sent to a daemon that is on its way out."""
        with self._shutdown_lock:
            already, self._shut_down = self._shut_down, True
        if already:
            # Another thread is ending it (`dbg kill`): wait for it to finish,
            # or the process would exit with the debugger half ended and the
            # kill unanswered.
            self._shutdown_done.wait(SHUTDOWN_WAIT)
            return
        try:
            self._end()
        finally:
            self._shutdown_done.set()

    def _close_door(self) -> None:
        """No client reaches this daemon any more: the listener closed (the
        accept loop then ends it), the socket's path gone."""
        if self.listener is not None:
            with contextlib.suppress(OSError):
                self.listener.close()
        with contextlib.suppress(OSError):
            # Only our own socket: a new daemon of this name may have bound
            # the path already (after a failed start, this one ends late).
            if os.stat(self.sock_path).st_ino == self._sock_inode:
                os.unlink(self.sock_path)

    def _end(self) -> None:
        with self._status_lock:  # no status written after it is removed
            self.stopping.set()
            remove_status(self.name, os.getpid())
        # Closed before the debugger is ended (which takes a while): a client
        # that connects meanwhile is refused (no session) instead of waiting
        # in the backlog for an accept that never comes and then reading EOF.
        self._close_door()
        # Looked up before anything ends: once their parents are gone they
        # are no one's (a process of the program that left its group).
        strays = procutil.tree_of(c["pid"] for c in self.children
                                  if not str(c.get("role", "")).startswith(CHILD_SESSION_ROLE)
                                  and procutil.alive(c["pid"], c.get("start_time")))
        # Child sessions first, each ending its own process (through the
        # adapter), while the parent's debugger still holds them.
        self._end_child_sessions()
        try:
            self.session.shutdown()
        except Exception:
            log.exception("error while ending the debugger")
        # And any whose start was under way meanwhile.
        self._end_child_sessions()
        # A debugger spawned for a start that never got to adopt it, or
        # ahead of a restart that never came.
        self.startup.early.discard()
        self.startup.early.end_ahead()
        # The spare for the next start ends with the session.
        self.startup.end_spare(SPARE_END_WAIT)
        groups = {g for c in self.children
                  if procutil.alive(c["pid"], c.get("start_time"))
                  and (g := procutil.pgid_of(c["pid"])) is not None}
        procutil.terminate_groups(groups, grace=0.5)
        if procutil.end_strays(strays):
            log.info("ended processes of the program outside its process group")
        self.jobs.put(None)
        log.info("daemon %s ended", self.name)


class _Connections:
    """The threads that serve the daemon's connections, one each at a time.
    One that is done waits for the next connection (up to KEEP_THREADS of
    them wait) rather than ending: handing a connection to a waiting thread
    costs less than starting one (0.3-4 ms, median about 1, measured in a
    session's daemon between the accept and the thread's first line), on
    every command's path."""

    def __init__(self, serve: Callable[[socket.socket], None]) -> None:
        self._serve = serve
        self._lock = threading.Lock()
        #: Threads waiting for a connection; each takes one put in _handed.
        self._idle = 0
        self._handed: queue.SimpleQueue[tuple[socket.socket, threading.Event]] = \
            queue.SimpleQueue()
        #: One event per connection being served, set when it is done.
        self._serving: set[threading.Event] = set()

    def serve(self, conn: socket.socket) -> None:
        """Serve ``conn`` on a thread of its own, a waiting one if there is one."""
        done = threading.Event()
        with self._lock:
            self._serving.add(done)
            if self._idle:
                self._idle -= 1
                self._handed.put((conn, done))
                return
        threading.Thread(target=self._run, args=(conn, done), daemon=True,
                         name="dbg-connection").start()

    def _run(self, conn: socket.socket, done: threading.Event) -> None:
        while True:
            try:
                self._serve(conn)
            except Exception:
                log.exception("error while serving a connection")
            finally:
                done.set()
                with self._lock:
                    self._serving.discard(done)
                    keep = self._idle < KEEP_THREADS
                    if keep:
                        self._idle += 1
            if not keep:
                return
            conn, done = self._handed.get()

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for each connection being served."""
        with self._lock:
            serving = list(self._serving)
        for done in serving:
            done.wait(timeout)


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
