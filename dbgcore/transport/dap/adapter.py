"""Byte pipes to a debug adapter: a child's stdio, or a loopback TCP socket.

:class:`AdapterProcess` owns the adapter's process: its own process group (so
shutdown can reach everything it started), a parent-death signal, and a thread
that keeps the last lines of its stderr for error messages. Three ways to
connect, chosen per backend in backends.yaml (``options.transport``):

- ``stdio``: DAP over the adapter's stdin/stdout.
- ``tcp-listen``: the adapter listens and prints its address on stdout; we
  connect to it. Its stdout keeps being drained afterwards (some adapters,
  like delve, print the debuggee's output there).
- ``tcp-dial``: we listen on loopback and the adapter connects to us; its
  argv gets the address through the ``{address}`` placeholder. Any local
  user can connect to a loopback port, so the listener takes only a
  connection from the adapter's own process (or one it started), checked in
  /proc (:mod:`dbgcore.transport.peers`) before a byte is read, and stops listening
  once it has it. It is the way that leaves no door open: ``tcp-listen``
  leaves the adapter's port to whoever connects first.

Only loopback addresses are ever listened on or connected to.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Protocol

from dbgcore.shared import procutil
from dbgcore.shared.errors import BackendError, DebuggerLost
from dbgcore.transport import peers
from dbgcore.vocab.model import signal_name

if TYPE_CHECKING:
    from dbgcore.transport.early import EarlyProcesses

LISTENING_RE = re.compile(rb"listening (?:at|on):?\s*(?:\[?([\w.:-]+?)\]?):(\d+)", re.I)


class Transport(Protocol):
    def read(self) -> bytes:
        """Block until some bytes arrive; b"" once the other side is gone."""
        ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


def _utf8_boundary(data: bytes) -> int:
    """The length of ``data`` without a UTF-8 character its end cuts short."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # not a continuation byte: where a character starts
            length = 1 if byte < 0x80 else 2 if byte >= 0xC0 and byte < 0xE0 else \
                3 if byte < 0xF0 else 4
            return len(data) if back >= length else len(data) - back
    return len(data)


class AdapterProcess:
    """A running debug adapter, and what it said on stderr."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None,
                 cwd: str | None = None, name: str = "adapter", stdio: bool = True,
                 on_stdout_line: Callable[[bytes], None] | None = None,
                 stdin: str | None = None,
                 announces: re.Pattern[bytes] | None = None,
                 on_stderr_line: Callable[[str], None] | None = None,
                 early: EarlyProcesses | None = None) -> None:
        """``stdin``: without ``stdio``, a file the adapter reads as its
        standard input instead of a pipe of ours (for an adapter whose
        program inherits it). ``announces``: a line the adapter prints
        before anything else (where it listens), never passed on as the
        program's, even when it comes before anyone waits for it.
        ``on_stderr_line``: hears each line the adapter writes on stderr.
        ``early``: where an adapter spawned before it was asked for is
        taken from, when it is the one this would spawn (a daemon forked
        for a start spawns it while it imports)."""
        self.name = name
        self._on_stderr_line = on_stderr_line
        self.argv = argv
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._stdout_waiters: list[Callable[[bytes], bool]] = []
        #: Lines of stdout no waiter wanted yet: a waiter that comes late
        #: (the adapter can print before we ask) still finds its line.
        self._stdout_seen: collections.deque[bytes] = collections.deque(maxlen=50)
        self._stdout_lock = threading.Lock()
        self._on_stdout_line = on_stdout_line
        if announces is not None:
            def announced(line: bytes) -> bool:
                if announces.search(line) is None:
                    return False
                self._stdout_seen.append(line)  # for wait_stdout, however late
                return True

            self._stdout_waiters.append(announced)
        try:
            with contextlib.ExitStack() as opened:
                source: IO[bytes] | int = subprocess.PIPE
                if stdin is not None and not stdio:
                    source = opened.enter_context(open(stdin, "rb"))
                # A daemon forked for this start may have spawned it already
                # (only an adapter that speaks over its stdio is spawned early).
                proc = early.adopt(argv, env, cwd) if stdio and early is not None else None
                if not stdio and early is not None:
                    early.discard()
                if proc is None:
                    command, preexec = procutil.bound_to_parent(argv, env, cwd)
                    proc = subprocess.Popen(
                        command, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        env=env, cwd=cwd, start_new_session=True, preexec_fn=preexec, bufsize=0)
                self.proc = proc
        except OSError as exc:
            raise BackendError(f"cannot start {name} ({argv[0]}): {exc.strerror}") from exc
        self.pid = self.proc.pid
        self.pgid = procutil.pgid_of(self.pid) or self.pid
        assert self.proc.stderr is not None
        self._stderr_reader = threading.Thread(target=self._drain_stderr, args=(self.proc.stderr,),
                                               name=f"{name}-stderr", daemon=True)
        self._stderr_reader.start()
        if not stdio:
            assert self.proc.stdout is not None
            threading.Thread(target=self._drain_stdout, args=(self.proc.stdout,),
                             name=f"{name}-stdout", daemon=True).start()

    def _drain_stderr(self, stream: IO[bytes]) -> None:
        for line in iter(stream.readline, b""):
            text = line.decode("utf-8", "replace").rstrip()
            self._stderr.append(text)
            if self._on_stderr_line is not None:
                self._on_stderr_line(text)

    def _drain_stdout(self, stream: IO[bytes]) -> None:
        # What comes, as it comes, not line by line: a program whose output
        # passes through the adapter (delve) may print a prompt ("name? ")
        # and wait for input, and the prompt must reach `dbg output` then.
        fd = stream.fileno()

        def read() -> bytes:
            try:
                return os.read(fd, 65536)
            except OSError:  # closed under us: the adapter is being ended
                return b""

        pending = b""
        for chunk in iter(read, b""):
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                self._stdout_line(line + b"\n")
            if pending and not self._stdout_waiters and self._on_stdout_line is not None:
                # Part of a line no waiter looks for: the program's, now (up
                # to a whole character).
                cut = _utf8_boundary(pending)
                if cut:
                    self._on_stdout_line(pending[:cut])
                    pending = pending[cut:]
        if pending:
            self._stdout_line(pending)

    def _stdout_line(self, line: bytes) -> None:
        # A line a waiter was looking for ("listening at ...") is the
        # adapter's, not the program's.
        with self._stdout_lock:
            waiting = self._stdout_waiters
            matched = [w for w in waiting if w(line)]
            self._stdout_waiters = [w for w in waiting if w not in matched]
            if not matched:
                self._stdout_seen.append(line)
        if not matched and self._on_stdout_line is not None:
            self._on_stdout_line(line)

    def wait_stdout(self, pattern: re.Pattern[bytes], timeout: float) -> re.Match[bytes]:
        """Wait for a line of the adapter's stdout matching ``pattern``."""
        found: list[re.Match[bytes]] = []
        event = threading.Event()

        def check(line: bytes) -> bool:
            match = pattern.search(line)
            if match:
                found.append(match)
                event.set()
            return bool(match)

        with self._stdout_lock:
            if not any(check(line) for line in self._stdout_seen):
                self._stdout_waiters.append(check)
        deadline = time.monotonic() + timeout
        while not event.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                said = b" | ".join(line.strip() for line in self._stdout_seen)[-300:]
                raise BackendError(
                    f"{self.name} did not say where it listens"
                    + (f" (it exited with code {self.proc.returncode})"
                       if self.proc.returncode is not None else f" within {timeout:g}s")
                    + (f"; its stdout said: {said.decode('utf-8', 'replace')}" if said else ""),
                    self.diagnostics())
        return found[0]

    def diagnostics(self) -> str:
        if self.proc.poll() is not None:
            # It has exited, but its last words may still be in the pipe: they
            # are the most useful ones, so let the reader catch up (briefly: a
            # child of the adapter may hold the pipe open).
            self._stderr_reader.join(timeout=0.5)
        lines = [line for line in self._stderr if line.strip()][-5:]
        return ("its last stderr lines: " + " | ".join(lines)) if lines else ""

    def lost(self) -> DebuggerLost:
        """The error for an adapter that went away under the session: how it
        ended, its pid, and its last stderr lines."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=0.5)
        code = self.proc.poll()
        if code is None:
            how = "stopped answering"
        else:
            self._stderr_reader.join(timeout=0.5)
            how = f"was killed by {signal_name(-code)}" if code < 0 else f"exited with code {code}"
        lines = [line for line in self._stderr if line.strip()][-3:]
        return DebuggerLost(self.name, self.pid, "\n".join(lines), how)

    def exit_description(self) -> str:
        # EOF on its stdout usually comes a moment before the exit status.
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=0.5)
        code = self.proc.poll()
        if code is None:
            return f"{self.name} stopped answering"
        if code < 0:
            return f"{self.name} was killed by signal {-code}"
        return f"{self.name} exited with code {code}"

    def terminate(self, grace: float) -> None:
        for stream in (self.proc.stdin,):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        procutil.terminate_groups([self.pgid], grace=grace, reap=[self.pid])
        with contextlib.suppress(subprocess.TimeoutExpired, ChildProcessError):
            self.proc.wait(timeout=grace)


class PipeTransport:
    """DAP over an adapter's stdin and stdout."""

    def __init__(self, process: AdapterProcess) -> None:
        assert process.proc.stdin is not None and process.proc.stdout is not None
        self._in = process.proc.stdin
        self._out_fd = process.proc.stdout.fileno()
        self._lock = threading.Lock()

    def read(self) -> bytes:
        try:
            return os.read(self._out_fd, 65536)
        except OSError:
            return b""

    def write(self, data: bytes) -> None:
        with self._lock:
            self._in.write(data)
            self._in.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._in.close()


class SocketTransport:
    """DAP over a connected stream socket (TCP to an adapter; any stream socket works)."""

    def __init__(self, sock: socket.socket) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._lock = threading.Lock()

    @classmethod
    def connect(cls, host: str, port: int, timeout: float) -> SocketTransport:
        if not _is_loopback(host):
            raise BackendError(f"refusing to connect to {host}: dbg only talks to loopback")
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=timeout)
                sock.settimeout(None)
                return cls(sock)
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise BackendError(f"cannot connect to the adapter at {host}:{port}: "
                                       f"{exc.strerror or exc}") from exc
                time.sleep(0.05)

    def read(self) -> bytes:
        try:
            return self.sock.recv(65536)
        except OSError:
            return b""

    def write(self, data: bytes) -> None:
        with self._lock:
            self.sock.sendall(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()


class LoopbackListener:
    """A one-shot loopback listener for an adapter that dials us: it takes
    only the adapter's own connection (:func:`dbgcore.transport.peers.accept_only`)."""

    def __init__(self) -> None:
        self.sock = peers.loopback_listener()
        self.host, self.port = self.sock.getsockname()[:2]

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def accept(self, timeout: float, process: AdapterProcess,
               on_refused: Callable[[str], None] | None = None) -> SocketTransport:
        """The first connection from ``process`` (or a process it started);
        any other is closed unread (``on_refused`` hears who it was) and the
        wait goes on."""
        def refused(why: str) -> None:
            if on_refused is not None:
                on_refused(f"{why} (to {self.address})")

        conn = peers.accept_only(self.sock, [process.pid], timeout,
                                 lambda: process.proc.poll() is None, refused)
        if conn is not None:
            return SocketTransport(conn)
        if process.proc.poll() is not None:
            raise BackendError(process.exit_description() + " before connecting",
                               process.diagnostics())
        raise BackendError(f"the adapter did not connect within {timeout:g}s",
                           process.diagnostics())


def parse_listening(match: re.Match[bytes]) -> tuple[str, int]:
    host = match.group(1).decode() or "127.0.0.1"
    if host in ("localhost", "0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return host, int(match.group(2))


def _is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")
