"""Carrying a debuggee's stdout and stderr into the session's OutputBuffer.

A backend that can give the program its own output channels (rather than
sharing the debugger's terminal) makes a FIFO per stream in the private run
directory; the program's fds 1 and 2 are opened onto them. One thread drains
both, so the program never blocks on a full pipe, and ``drain()`` lets a
backend collect what is already written before it reports a stop.
"""

from __future__ import annotations

import codecs
import contextlib
import itertools
import os
import select
import threading
from collections.abc import Callable
from pathlib import Path

from dbgcore.transport.outputbuffer import OutputBuffer

#: Numbers the pumps of one process.
_PUMPS = itertools.count(1)


class OutputPump:
    """``transform(category, text)``, when given, sees each piece of text
    before it is kept and returns what to keep: a debugger that writes its own
    notices into the program's stderr takes them out there."""

    def __init__(self, run_dir: Path, prefix: str, output: OutputBuffer,
                 transform: Callable[[str, str], str] | None = None) -> None:
        self.output = output
        self.transform = transform
        self.paths: dict[str, Path] = {}
        self._fds: dict[int, str] = {}
        self._keepalive: list[int] = []
        self._decoders: dict[str, codecs.IncrementalDecoder] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        # Names of this pump's own: a daemon that is ending removes its FIFOs,
        # and must not take those of the next session of the same name.
        token = f"{os.getpid()}-{next(_PUMPS)}"
        for category in ("stdout", "stderr"):
            path = run_dir / f"{prefix}-{token}-{category}.fifo"
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            os.mkfifo(path, 0o600)
            # Our own idle writer keeps the read end from seeing EOF before
            # the program opens the FIFO, and between its writers.
            read_fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            self._keepalive.append(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            self._fds[read_fd] = category
            self._decoders[category] = codecs.getincrementaldecoder("utf-8")("replace")
            self.paths[category] = path
        # close() writes here to wake the thread from its select, not wait
        # out the select's timeout (a `dbg kill` waited for it).
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, name=f"{prefix}-output", daemon=True)
        self._thread.start()

    def _read_ready(self, timeout: float) -> None:
        fds = list(self._fds)
        if not fds:
            return
        ready, _, _ = select.select([*fds, self._wake_read], [], [], timeout)
        # Reads are non-blocking, so drain() and the thread may race harmlessly;
        # the lock keeps chunks in order and the decoders consistent.
        with self._lock:
            self._read(ready)

    def _read(self, ready: list[int]) -> None:
        for fd in ready:
            if fd not in self._fds:
                continue
            category = self._fds[fd]
            while True:
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if not data:
                    break
                text = self._decoders[category].decode(data)
                if self.transform is not None:
                    text = self.transform(category, text)
                if text:
                    self.output.append(category, text)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._read_ready(0.1)
            except (OSError, ValueError):
                return

    def drain(self) -> None:
        """Collect whatever the program has written so far.

        The lock is taken before looking: the thread may have read the last
        bytes already and not yet appended them.
        """
        with self._lock, contextlib.suppress(OSError, ValueError):
            self._read(select.select(list(self._fds), [], [], 0)[0])

    def close(self) -> None:
        self._stop.set()
        if self._wake_write >= 0:  # once: a second close must not write to a reused fd
            with contextlib.suppress(OSError):
                os.write(self._wake_write, b"x")
        self._thread.join(timeout=1.0)
        for fd in (self._wake_read, self._wake_write):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._wake_read = self._wake_write = -1
        self.drain()
        with self._lock:
            for fd in [*self._fds, *self._keepalive]:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._fds.clear()
            self._keepalive.clear()
        for path in self.paths.values():
            with contextlib.suppress(OSError):
                path.unlink()


class StdinFeed:
    """A FIFO the program reads as its standard input, written by `dbg input`.

    The FIFO is made in the private run directory; the feed holds its write
    end (opened read-write, which never blocks on Linux), so the program can
    open the read end at any time without blocking, and sees end-of-file only
    when :meth:`close` drops that last writer (`dbg input --eof`). Writes are
    non-blocking: a program that reads nothing while a pipe's worth (64 KiB)
    waits makes :meth:`write` fail instead of hanging the session.
    """

    def __init__(self, run_dir: Path, prefix: str = "program") -> None:
        token = f"{os.getpid()}-{next(_PUMPS)}"
        self.path = run_dir / f"{prefix}-{token}-stdin.fifo"
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        os.mkfifo(self.path, 0o600)
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_NONBLOCK)
        self._lock = threading.Lock()
        #: Bytes written so far.
        self.sent = 0

    @property
    def closed(self) -> bool:
        return self._fd is None

    def write(self, data: bytes) -> int:
        """Write all of ``data`` or raise BlockingIOError (the pipe is full)
        or ValueError (closed); returns how many bytes were written."""
        with self._lock:
            if self._fd is None:
                raise ValueError("the program's standard input is closed")
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            self.sent += len(data)
            return len(data)

    def pending(self) -> int:
        """Bytes written that the program has not read yet."""
        import fcntl
        import termios

        with self._lock:
            if self._fd is None:
                return 0
            buf = bytearray(4)
            try:
                fcntl.ioctl(self._fd, termios.FIONREAD, buf)
            except OSError:
                return 0
            return int.from_bytes(buf, "little")

    def close(self) -> None:
        """End of file for the program, once it has read what is left."""
        with self._lock:
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None

    def remove(self) -> None:
        self.close()
        with contextlib.suppress(OSError):
            self.path.unlink()


def waiting_for_stdin(pids: list[int], stdin: Path) -> bool:
    """Whether one of ``pids`` (or a thread of it) is blocked reading
    ``stdin`` as its fd 0: the program waits for input. Read from /proc; False
    where it cannot be told. An event loop (node's readline) reads its stdin
    without blocking in read: it counts when it idles in epoll_wait with fd 0
    among what it waits for."""
    target = os.path.realpath(stdin)
    for pid in pids:
        try:
            if os.path.realpath(os.readlink(f"/proc/{pid}/fd/0")) != target:
                continue
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        polls_stdin: bool | None = None
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/wchan") as fh:
                    where = fh.read()
                with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                    state = fh.read().rsplit(")", 1)[-1].split()[0]
            except OSError:
                continue
            # pipe_read, anon_pipe_read (newer kernels), pipe_wait (older);
            # a read of fd 0 itself, not of another pipe (lldb-dap's launcher
            # helper waits on a FIFO of its own with the program's stdin as fd 0).
            if state == "S" and "pipe" in where and ("read" in where or "wait" in where) \
                    and _reads_fd0(pid, tid):
                return True
            if state == "S" and "epoll_wait" in where:
                if polls_stdin is None:
                    polls_stdin = _epoll_reads_fd0(pid)
                if polls_stdin:
                    return True
    return False


#: The read system calls, by machine: what /proc/PID/task/TID/syscall names.
READ_SYSCALLS = {"x86_64": {0, 17, 19, 295}, "aarch64": {63, 65, 67, 69}}


def _reads_fd0(pid: int, tid: str) -> bool:
    """Whether thread ``tid`` of ``pid`` is in a read system call on fd 0
    (True where that cannot be told: another machine, /proc refusing)."""
    reads = READ_SYSCALLS.get(os.uname().machine)
    try:
        with open(f"/proc/{pid}/task/{tid}/syscall") as fh:
            words = fh.read().split()
    except OSError:
        return True
    if reads is None or len(words) < 2 or not words[0].isdigit():
        return True
    return int(words[0]) in reads and int(words[1], 16) == 0


def _epoll_reads_fd0(pid: int) -> bool:
    """Whether an epoll set of ``pid`` waits for its fd 0 to be readable
    (its fdinfo lists ``tfd: 0`` with EPOLLIN among the events, in hex)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:[eventpoll]":
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as fh:
                for line in fh:
                    words = line.split()
                    if words[:2] == ["tfd:", "0"] and len(words) > 3 \
                            and int(words[3], 16) & select.EPOLLIN:
                        return True
        except (OSError, ValueError):
            continue
    return False
