"""Every error dbg reports, as one hierarchy with structured fields.

::

    DbgError(kind, message, hint)            exit code 1 unless stated
    ├── UsageError            "usage"          exit 2: bad input from the user
    ├── ConfigError           "config"         exit 2: a malformed backends.yaml
    ├── NoSession             "no_session"     no live session with that name
    ├── SessionExists         "session_exists" `dbg start` on a live session name
    ├── UnsupportedOp         "unsupported"    exit 3: the backend cannot do this op
    ├── OpFailed              "failed"         the debugger refused (bad location, eval error)
    │   ├── NotAProgram       "failed"         `dbg start` on something the backend cannot run
    │   └── DiskFull          "failed"         dbg's own files cannot be written (a full disk)
    ├── BackendError          "backend"        the debugger failed, died, or refused
    │   ├── BackendMissing    "backend"        the debugger is not installed
    │   └── DebuggerLost      "backend"        the debugger process died under dbg
    ├── DebuggerTimeout       "timeout"        the debugger did not answer in time
    ├── NotStopped            "not_stopped"    the op needs a stopped target
    ├── TargetExited          "target_exited"  the op needs a live target
    └── InternalError         "internal"       a bug in dbg (carries a traceback)

Errors cross the daemon socket as plain values (``to_wire`` / ``from_wire``),
never as pickled exceptions. Foreign exceptions (pexpect, OSError, DAP error
responses) are mapped to these at the boundary with ``raise ... from exc``; the
CLI turns them into output and an exit code in one place.
"""

from __future__ import annotations

from typing import ClassVar

from dbgcore.shared.jsontypes import JsonObject

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNSUPPORTED = 3


class DbgError(Exception):
    """Base of all errors dbg reports to its user."""

    kind: ClassVar[str] = "error"
    exit_code: ClassVar[int] = EXIT_FAILED

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def to_wire(self) -> JsonObject:
        return {"kind": self.kind, "message": self.message, "hint": self.hint}

    @staticmethod
    def from_wire(data: JsonObject) -> DbgError:
        kind = str(data.get("kind", "error"))
        cls = _BY_KIND.get(kind, DbgError)
        message = str(data.get("message", "unknown error"))
        hint = str(data.get("hint", ""))
        if cls is UnsupportedOp:
            err: DbgError = UnsupportedOp.__new__(UnsupportedOp)
            DbgError.__init__(err, message, hint)
            err.op = str(data.get("op", ""))  # type: ignore[attr-defined]
            err.tool = str(data.get("tool", ""))  # type: ignore[attr-defined]
            return err
        if cls is InternalError:
            return InternalError(message, hint, traceback=str(data.get("traceback", "")))
        return cls(message, hint)


class UsageError(DbgError):
    kind = "usage"
    exit_code = EXIT_USAGE


class ConfigError(DbgError):
    kind = "config"
    exit_code = EXIT_USAGE


class NoSession(DbgError):
    kind = "no_session"


class SessionExists(DbgError):
    kind = "session_exists"

    @classmethod
    def taken(cls, name: str) -> SessionExists:
        """A start under the name of a session whose program has not ended."""
        return cls(f"session {name!r} already exists, and its program has not ended",
                   f"run it again with `dbg -s {name} restart`, end it with "
                   f"`dbg -s {name} kill`, or pick another --session name")


class UnsupportedOp(DbgError):
    """An op the backend cannot do. The message always names the tool and the
    ``dbg raw`` escape hatch, so the user knows what to try instead."""

    kind = "unsupported"
    exit_code = EXIT_UNSUPPORTED

    def __init__(self, op: str, tool: str, hint: str = "", instead: str = "") -> None:
        self.op = op
        self.tool = tool
        # ``instead``: what to do where there is no native command to send
        # (a replay of a recorded run has no debugger behind it).
        message = f"{op} not supported by {tool}" + (
            f" ({instead})" if instead else ": use `dbg raw <native command>`")
        if hint and hint != instead:
            message += f" ({hint})"
        super().__init__(message, hint or instead or f"send {tool}'s own command with `dbg raw`")

    def to_wire(self) -> JsonObject:
        data = super().to_wire()
        data.update(op=self.op, tool=self.tool)
        return data


class OpFailed(DbgError):
    """The debugger answered, and the answer was no: a breakpoint it cannot
    place, an expression that raised, a frame that does not exist."""

    kind = "failed"


class NotAProgram(OpFailed):
    """What `dbg start` was given is not a program this backend can run (a
    text file, a folder without a package, a source file not yet compiled)."""


class DiskFull(OpFailed):
    """A write of dbg's own (a status file, a report) that the disk refused:
    full, over quota, read-only or failing. Not a bug in dbg; the message
    names the disk (:mod:`dbgcore.shared.diskspace`)."""


class BackendError(DbgError):
    kind = "backend"


class BackendMissing(BackendError):
    """The debugger a backend needs is not installed; ``hint`` says how to get it."""


class DebuggerLost(BackendError):
    """The debugger died (killed, crashed) while the session held it. The
    message names it, its pid and the last lines it wrote to stderr."""

    def __init__(self, tool: str, pid: int | None = None, stderr: str = "",
                 how: str = "died") -> None:
        who = f"{tool} (pid {pid})" if pid else tool
        tail = " | ".join(line.strip() for line in stderr.strip().splitlines()[-3:]
                          if line.strip())
        message = f"{who} {how}" + (f"; its last words: {tail}" if tail else "")
        super().__init__(message, "the session's program is gone with it: `dbg restart` "
                                  "starts it again, `dbg kill` cleans up")


class DebuggerStopped(BackendError):
    """The debugger's process is stopped by a signal from outside (SIGSTOP,
    a terminal's Ctrl-Z): nothing it owes comes until it is continued."""

    def __init__(self, tool: str, pid: int) -> None:
        super().__init__(f"{tool} (pid {pid}) is stopped by a signal from outside "
                         "(SIGSTOP, Ctrl-Z) and cannot answer",
                         f"`kill -CONT {pid}` lets it go on and answer; `dbg kill` ends "
                         "the session")


class DebuggerTimeout(DbgError):
    kind = "timeout"


class NotStopped(DbgError):
    kind = "not_stopped"


class TargetExited(DbgError):
    kind = "target_exited"


class InternalError(DbgError):
    kind = "internal"

    def __init__(self, message: str, hint: str = "", traceback: str = "") -> None:
        super().__init__(message, hint)
        self.traceback = traceback

    def to_wire(self) -> JsonObject:
        data = super().to_wire()
        data["traceback"] = self.traceback
        return data


_BY_KIND: dict[str, type[DbgError]] = {
    cls.kind: cls
    for cls in (
        UsageError,
        ConfigError,
        NoSession,
        SessionExists,
        UnsupportedOp,
        OpFailed,
        BackendError,
        DebuggerTimeout,
        NotStopped,
        TargetExited,
        InternalError,
    )
}
