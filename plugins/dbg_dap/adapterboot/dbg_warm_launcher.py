"""debugpy's launcher, started with dbg's debugpy adapter before any launch
(adapterboot/dbg_debugpy_adapter.py, ``DBG_WARM_LAUNCHER``): it imports what
every launcher imports, then waits on the pipe named by its first argument
for the command the adapter would have started a launcher with (its argv,
folder and environment, one JSON line), and runs debugpy's launcher with it,
as that command would have. A launch then waits for neither an interpreter's
start nor those imports (40-60 ms of every debugpy launch on this machine).

It runs on the adapter's interpreter, not the program's: debugpy's launcher
starts the program with the interpreter the launch names, whatever runs it.
It ends at once, unused, when the pipe closes with nothing on it (the
adapter ended, or a launch it could not take).

Its second argument, when there is one, is the file (``debuggee.json`` in
DBG_HOME, the user's alone) where the launcher keeps how the last launch
started its program: its command line (less the adapter's address and
token), its folder, and its environment as changes to the launcher's own.
When this launcher started in that folder and no launch is waiting once
its imports are done, it starts that program's command line at once, with
placeholders for the adapter's address and token (:class:`_WarmDebuggee`):
once the interpreter's start is done, it imports debugpy's server and
pydevd and waits (pyboot/dbg_warm_debuggee.py). The launch's spawn of
its program (``subprocess.Popen`` in debugpy's ``launcher.debuggee``) takes
it when it is the same command line in the same folder with the same
environment (but for _PER_RUN: ``$DBG_STDIN``, each run's FIFO, and
``$DBG_EXIT_MARK``, each session's, so that a new session of a DBG_HOME
takes the interpreter its last session's command started): it hands it the
command line, the stdin and the output pipes, and the program goes on from
there as the spawned one would. Anything else ends it and spawns as ever.
What the early interpreter printed before it was taken (a sitecustomize's
output) reaches the program's output first. ``DBG_NO_WARM_DEBUGGEE`` set
for dbg: no file, and no interpreter started ahead.

Python 3.8 syntax and the standard library only.
"""

from __future__ import annotations

import array
import ctypes
import json
import locale
import os
import select
import signal
import socket
import subprocess
import sys
import time
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dbg_dap.pyboot import dbg_warm_debuggee
else:  # pyboot is on this launcher's path (its sitecustomize is dbg_boot's)
    import importlib

    dbg_warm_debuggee = importlib.import_module("dbg_warm_debuggee")

#: The program's variables that differ from one run to the next: its
#: stdin's FIFO, and the session's end mark (one DBG_HOME's sessions share
#: the record).
_PER_RUN = ("DBG_STDIN", "DBG_EXIT_MARK")
#: Seconds a launch waits for the early interpreter to be ready.
_READY_WAIT = 10.0
#: Bytes of output before the launch that are passed on; more ends it.
_EARLY_OUTPUT_MAX = 32768
_PR_SET_PDEATHSIG = 1


def _program_at(cmdline: list[str]) -> int | None:
    """Where debugpy's folder is in a program's command line (what comes
    before it is the interpreter and its options); None when it is not a
    program debugpy connects (a noDebug run)."""
    for at in range(1, len(cmdline) - 1):
        if cmdline[at + 1] == "--connect":
            return at
    return None


#: debugpy's options whose values change with each adapter: the early
#: interpreter's command line shows a placeholder.
_PER_ADAPTER = ("--connect", "--adapter-access-token")


def _masked(cmdline: list[str], at: int) -> list[str]:
    """``cmdline`` with the values of _PER_ADAPTER (debugpy's own options,
    which come first after its folder at ``at``) as placeholders."""
    masked = list(cmdline)
    for option in _PER_ADAPTER:
        if option in masked[at:-1]:
            masked[masked.index(option, at) + 1] = "-"
    return masked


def _read_record(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            record = json.load(fh)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _remember(path: str, base: dict[str, str], cmdline: list[str],
              env: dict[str, str]) -> None:
    """Keep how this launch started its program, for the next launcher."""
    at = _program_at(cmdline)
    if at is None:
        return
    kept = {k: v for k, v in env.items() if k not in _PER_RUN}
    record = {"argv": _masked(cmdline, at), "program_at": at, "cwd": os.getcwd(),
              "changes": {k: v for k, v in kept.items() if base.get(k) != v},
              "unset": sorted(k for k in base if k not in kept)}
    if _read_record(path) == record:
        return
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        # Made new, never written through a link left at that name.
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


class _WarmDebuggee:
    """The program's interpreter started before its launch (see the module's
    docstring)."""

    def __init__(self, record: dict[str, Any], base: dict[str, str]) -> None:
        self.argv = [str(word) for word in record["argv"]]
        self.at = int(record["program_at"])
        self.cwd = os.getcwd()
        env = {k: v for k, v in base.items() if k not in record["unset"]}
        env.update(record["changes"])
        self.env = env
        ours, theirs = socket.socketpair()
        self.sock = ours
        prctl = ctypes.CDLL(None, use_errno=True).prctl

        def preexec() -> None:
            # As debugpy's launcher starts a program (its own process group,
            # the foreground one of a terminal if there is one), and killed
            # if this launcher dies: unused, as soon as it dies; taken, as
            # its program (the launcher kills it as it ends in any case).
            os.setpgrp()
            try:
                old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
                try:
                    tty = os.open("/dev/tty", os.O_RDWR)
                    try:
                        os.tcsetpgrp(tty, os.getpgrp())
                    finally:
                        os.close(tty)
                finally:
                    signal.signal(signal.SIGTTOU, old)
            except Exception:
                pass
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

        try:
            self.proc: subprocess.Popen[bytes] = subprocess.Popen(
                self.argv, bufsize=0,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(theirs.fileno(),),
                preexec_fn=preexec,
                env={**env, "DBG_WARM_ORDER_FD": str(theirs.fileno()),
                     "DBG_WARM_SPAWNED": str(time.time_ns())})
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()

    @classmethod
    def start(cls, path: str, base: dict[str, str]) -> _WarmDebuggee | None:
        record = _read_record(path)
        try:
            if record is None or record.get("cwd") != os.getcwd():
                return None
            return cls(record, base)
        except (OSError, KeyError, TypeError, AttributeError, ValueError,
                subprocess.SubprocessError):
            return None

    def take(self, cmdline: list[str], env: dict[str, str] | None,
             kwargs: dict[str, Any]) -> bool:
        """Hand this launch's program to the early interpreter, if it is
        that program's (see the module's docstring)."""
        at = _program_at(cmdline)
        out, err = kwargs.get("stdout"), kwargs.get("stderr")
        if at is None or at != self.at or _masked(cmdline, at) != self.argv \
                or not isinstance(env, dict) \
                or not isinstance(out, int) or not isinstance(err, int) \
                or set(kwargs) - {"stdout", "stderr", "preexec_fn"} \
                or os.path.normpath(cmdline[at]) != \
                os.path.normpath(self.env.get("DBG_DEBUGPY_ROOT", "")) \
                or {k: v for k, v in env.items() if k not in _PER_RUN} != self.env \
                or os.getcwd() != self.cwd or self.proc.poll() is not None:
            return False
        try:
            if not self._ready():
                return False
            early = self._early_output()
            if early is None:
                return False
            order = {"argv": cmdline, "program_at": at,
                     "env": {k: env[k] for k in _PER_RUN if k in env}}
            self.sock.sendmsg([(json.dumps(order) + "\n").encode("utf-8", "surrogateescape")],
                              [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                array.array("i", [out, err]))])
            if self._line() != b"fresh\n":
                return False  # stale: what it read as it started changed since
            # What it printed before: first in the program's pipes, which
            # it takes on "go".
            for target, data in ((out, early[0]), (err, early[1])):
                while data:
                    data = data[os.write(target, data):]
            self.sock.sendall(b"go\n")
        except OSError:
            return False
        self.sock.close()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        self.proc.stdout = self.proc.stderr = None
        return True

    def _line(self) -> bytes:
        return dbg_warm_debuggee.read_line(self.sock)

    def _ready(self) -> bool:
        self.sock.settimeout(_READY_WAIT)
        try:
            return self._line() == b"ready\n"
        except TimeoutError:
            return False
        finally:
            self.sock.settimeout(None)

    def _early_output(self) -> tuple[bytes, bytes] | None:
        """What the early interpreter printed on stdout and stderr before it
        was ready; None when that is more than _EARLY_OUTPUT_MAX bytes."""
        early = []
        total = 0
        for pipe in (self.proc.stdout, self.proc.stderr):
            data = b""
            fd = pipe.fileno() if pipe is not None else -1
            while fd >= 0 and select.select([fd], [], [], 0)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                data += chunk
                total += len(chunk)
                if total > _EARLY_OUTPUT_MAX:
                    return None
            early.append(data)
        return early[0], early[1]

    def end(self) -> None:
        self.sock.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


class _Spawner:
    """The ``subprocess`` that debugpy's ``launcher.debuggee`` spawns the
    program with: the early interpreter when it fits, and the launch kept
    for the next launcher either way."""

    def __init__(self, real: ModuleType, warm: _WarmDebuggee | None, record: str,
                 base: dict[str, str]) -> None:
        self._real = real
        self._warm = warm
        self._record = record
        self._base = base

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def Popen(self, args: Any, *rest: Any, **kwargs: Any) -> Any:
        env = kwargs.pop("env", None)
        bufsize = kwargs.pop("bufsize", -1)
        warm, self._warm = self._warm, None
        if isinstance(args, list) and isinstance(env, dict) and not rest:
            _remember(self._record, self._base, [str(a) for a in args], env)
            if warm is not None and bufsize == 0 and warm.take(args, env, kwargs):
                return warm.proc
        if warm is not None:
            warm.end()
        return self._real.Popen(args, *rest, env=env, bufsize=bufsize, **kwargs)


def main() -> int:
    pipe = os.fdopen(int(sys.argv[1]), "rb")
    record = sys.argv[2] if len(sys.argv) > 2 else ""
    base = dict(os.environ)
    warm = None
    # At once, before this launcher's own imports, unless the launch is here
    # already: a new session's early adapter (dbgcore.start.prespawn) is
    # spawned while its daemon imports, and its launch comes 150-250 ms
    # later, about the time the program's interpreter takes to start and
    # import pydevd (it waited 0.2 s first, and a new session's test run
    # gained nothing: issue 44); a spare's launch comes seconds later. If it
    # is not that launch's program, the cores it took are lost.
    if record and not select.select([pipe], [], [], 0)[0]:
        warm = _WarmDebuggee.start(record, base)
    from debugpy.common import log, sockets  # noqa: F401 (what every launcher imports)
    from debugpy.launcher import __main__ as launcher_main
    from debugpy.launcher import debuggee, handlers, output  # noqa: F401

    with pipe:
        line = pipe.readline()
    if not line:
        if warm is not None:
            warm.end()
        return 0
    order = json.loads(line)
    os.environ.clear()
    os.environ.update(order["env"])
    # Taken out by dbg's start code as a launcher starts, so that the
    # program does not inherit it (pyboot/dbg_boot.py).
    os.environ.pop("DBG_LAUNCHER_QUIET", None)
    if order.get("cwd"):
        os.chdir(order["cwd"])
    sys.argv = list(order["argv"])
    try:
        # As debugpy's launcher does: after the environment is the launch's.
        locale.setlocale(locale.LC_ALL, "")
    except Exception:
        pass
    if record:
        # debuggee.py spawns the program with this module's Popen.
        setattr(debuggee, "subprocess", _Spawner(subprocess, warm, record, base))  # noqa: B010
    launcher_main.main()  # type: ignore[no-untyped-call]
    return 0


if __name__ == "__main__":
    sys.exit(main())
