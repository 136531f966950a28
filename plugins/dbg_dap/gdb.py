"""gdb's profile: gdb 14 and newer, whose DAP interpreter is ``-i=dap``."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import ClassVar

import dbg_dap.rust as rust
from dbg_dap.host import AdapterHost
from dbg_dap.native import NativeProfile, version_number, version_of
from dbg_dap.profile_base import RecordState
from dbgcore.api import (
    VALUE_CHARS,
    CallSink,
    DbgError,
    LaunchRequest,
    Message,
    OpFailed,
    Readiness,
    ReturnValue,
    Support,
    TraceOutcome,
    UsageError,
    follow_trace_file,
    signal_name,
    traced_run,
)

#: gdb 14+ (older: "Error in testing breakpoint condition N:"), then the message.
_GDB_CONDITION_ERROR_RE = re.compile(
    r"Error in testing (?:condition for breakpoint|breakpoint condition) (\d+):\n(.+)")

#: Python that gdb loads at its start (see GdbProfile.argv).
_GDB_HELPERS = str(Path(__file__).with_name("gdbboot") / "dbg_gdb.py")
#: `dbg trace`'s tracer inside gdb (gdbboot/dbg_gdbtrace.py), imported by the
#: first trace of a session: a gdb command, imported once however often run.
_GDB_TRACER = (f"python import sys; _d = {str(Path(__file__).with_name('gdbboot'))!r}; "
               "sys.path[:0] = [] if _d in sys.path else [_d]; import dbg_gdbtrace")


class GdbProfile(NativeProfile):
    name = "gdb"
    breaks_before_run = True
    minimum: ClassVar[tuple[int, ...]] = (14,)
    # gdb sends its own console text and the program's output through one
    # pipe, as "stdout": the program gets FIFOs of its own instead, and what
    # gdb sends is gdb's (see NativeProfile.output_categories).
    own_streams = True
    # Its stdin, too, is a redirection on the command line.
    reads_stdin = True
    # gdb honours `variables`' start/count only for a client that says it
    # pages (its dap/evaluate.py); without it, one child of a 100,000-element
    # array costs all 100,000.
    client_caps: ClassVar[Message] = {**NativeProfile.client_caps,
                                             "supportsVariablePaging": True}
    pages_variables = True

    # `dbg record`: gdb's process record (its "full" method, which keeps
    # every instruction's effect on registers and memory) and its reverse
    # commands (gdb's DAP has no stepBack: it leaves those to the console).
    record_commands: ClassVar[dict[str, str]] = {
        "start": "record full", "stop": "record stop", "info": "info record",
        # A function an expression calls, run while recording (or replaying),
        # leaves gdb 18.1 to abort at the next motion: no calls meanwhile.
        "no-calls": "set may-call-functions off", "calls": "set may-call-functions on",
        "continue": "reverse-continue", "step": "reverse-step", "next": "reverse-next",
        "finish": "reverse-finish"}

    def record_state(self, answer: str) -> RecordState:
        if "Active record target" not in answer:
            return RecordState()
        logged = re.search(r"Log contains (\d+) instructions", answer)
        return RecordState(active=True, replaying="Replay mode" in answer,
                           logged=int(logged.group(1)) if logged else 0)

    def exits_under_record(self, output: str) -> bool:
        # "The next instruction is syscall exit_group.  It will make the
        # program exit.  Do you want to stop the program?" (answered Y).
        return "It will make the program exit" in output

    def children_listed_only(self, row: Message) -> bool:
        # Our gdb helper's mark (gdbboot/dbg_gdb.py, MORE_KEY): gdb listed
        # only the first 10,000 children of a libstdc++ container.
        return bool(row.get("dbgMoreChildren"))

    def remote_arguments(self, host: str, port: int) -> Message:
        # gdb's DAP attach runs `target remote` on `target`.
        return {"target": f"{host}:{port}"}

    runs_memcheck = True

    def memcheck_arguments(self, program: str, target: str) -> Message:
        # `target remote | vgdb ...`: gdb runs vgdb, which talks to valgrind.
        return {"program": program, "target": target}

    def launch_arguments(self, request: LaunchRequest) -> Message:
        args = super().launch_arguments(request)
        if self.entry_line() is not None:
            args.pop("stopAtBeginningOfMainSubprogram", None)  # dbg's own entry stop
        if self.streams:
            # A string (not a list) is the command line gdb hands its shell
            # as is: the arguments quoted, then the redirections.
            words = [shlex.quote(a) for a in request.args]
            words += [f">{shlex.quote(self.streams['stdout'])}",
                      f"2>{shlex.quote(self.streams['stderr'])}",
                      f"<{shlex.quote(self.stdin or os.devnull)}"]
            args["args"] = " ".join(words)
        return args

    def _candidates(self) -> list[str]:
        """The configured gdb, else the one beside our Python (a venv with
        gdb-for-pwndbg), else the one on PATH."""
        if self.spec.options.get("gdb"):
            return [str(self.spec.options["gdb"])]
        found = [str(Path(sys.executable).parent / "gdb")]
        on_path = shutil.which(self.spec.command[0] if self.spec.command else "gdb")
        if on_path:
            found.append(on_path)
        return [exe for exe in dict.fromkeys(found) if os.access(exe, os.X_OK)]

    def _pick(self) -> tuple[str | None, str]:
        """A DAP-capable gdb and its version, or None and why not."""
        old = []
        for exe in self._candidates():
            version = version_of(exe)
            if version and version_number(version) >= self.minimum:
                return exe, version
            old.append(f"{exe} is {version or 'not a working gdb'}")
        if old:
            return None, (f"no gdb with DAP (needs gdb 14 or newer): {'; '.join(old)}")
        return None, "gdb not found"

    def argv(self) -> list[str]:
        exe, why = self._pick()
        if exe is None:
            raise UsageError(why, self.spec.install)
        # The DAP server starts before -x files run: ours mends its report
        # of nested function calls and adds dbg-abandon-call (see the file).
        return [exe, "-nx", "-q", "-i=dap", "-x", _GDB_HELPERS]

    def check(self) -> Readiness:
        exe, detail = self._pick()
        if exe is None:
            return Readiness(False, detail)
        return Readiness(True, f"gdb {detail} ({exe})", detail)

    def version(self) -> str:
        exe, detail = self._pick()
        return detail if exe else ""

    entry_arguments: ClassVar[Message] = {"stopAtBeginningOfMainSubprogram": True}
    # gdb knows the function by its DWARF name (its symbol is __rustc::rust_panic
    # since Rust 1.88, std::panicking::rust_panic before).
    panic_function: ClassVar[str | None] = "std::panicking::rust_panic"

    def rust_printer_commands(self) -> list[str]:
        # What rust-gdb has gdb auto-load (the binary names this script).
        found = rust.printer_files(*rust.GDB_PRINTERS)
        return [f"source {found[0]}"] if found else []

    def abandon_call(self, backend: AdapterHost, timeout: float) -> bool:
        # Our command (gdbboot/dbg_gdb.py): `return` from the call's dummy frame.
        return "abandoned" in backend.console("dbg-abandon-call", timeout)

    def hit_condition(self, count: int) -> str:
        # gdb reads hitCondition as an ignore count: stop from the Nth hit on.
        return str(count - 1)

    # gdb stops at a breakpoint whose condition it cannot evaluate, and then
    # prints why: "Error in testing condition for breakpoint 2:\nMESSAGE".
    condition_errors_after_stop = True

    def condition_failure(self, output: str, conditions: dict[int, str], reason: str,
                          description: str, text: str) -> str | None:
        for match in _GDB_CONDITION_ERROR_RE.finditer(output):
            if int(match.group(1)) in conditions:
                return match.group(2).strip()
        return None

    # gdb's DAP has no data breakpoints, but a watchpoint made in its console
    # stops the program with reason "data breakpoint" and its number.
    console_watch = "watch {expr}"
    console_delete = "delete {id}"

    def console_watch_number(self, answer: str) -> int | None:
        match = re.search(r"[Ww]atchpoint (\d+): ", answer)
        return int(match.group(1)) if match else None

    def disasm_start(self, backend: AdapterHost, ip: str, timeout: float) -> str | None:
        # gdb 14-18 mishandle a negative instructionOffset (they return the
        # tail of a shorter listing); start at the current line's first
        # instruction instead, which `info line` knows.
        answer = backend.console(f"info line *{ip}", timeout)
        match = re.search(r"starts at address (0x[0-9a-fA-F]+)", answer)
        return match.group(1) if match else ip

    def signal_description(self, backend: AdapterHost, timeout: float) -> str:
        # gdb's DAP says only "signal"; `info program` names it.
        try:
            answer = backend.console("info program", timeout)
        except DbgError:
            return ""
        match = re.search(r"signal (SIG\w+), ([^.\n]+)", answer)
        return f"{match.group(1)}: {match.group(2)}" if match else ""

    def watch_hint(self) -> str:
        return "gdb could not set the watchpoint; try `dbg raw watch EXPR`"

    features: ClassVar[dict[str, Support]] = {"return-value": "native", "pending": "native",
                                              "core": "native"}
    #: The first gdb whose DAP `attach` takes `coreFile` (18.1's does; 14-17's
    #: takes only `pid` and `target`, and a core loaded around it leaves their
    #: DAP server's idea of the program behind, as reported for 16.3).
    core_minimum: ClassVar[tuple[int, ...]] = (18,)

    def feature(self, name: str) -> Support:
        if name == "core" and version_number(self.version()) < self.core_minimum:
            return "none"
        return super().feature(name)

    def source_files(self, backend: AdapterHost, name: str, timeout: float) -> list[str]:
        answer = backend.console(f"info sources -basename -- ^{re.escape(name)}$", timeout)
        found = []
        for line in answer.splitlines():
            for path in line.split(","):
                path = path.strip()
                if os.path.isabs(path) and os.path.basename(path) == name:
                    found.append(path)
        return found

    def return_value(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        # After `finish`, gdb's DAP adds a scope "Return" holding "(return)".
        for scope in backend.scopes(timeout):
            if str(scope.get("name")) == "Return":
                for var in backend.variables(int(scope["variablesReference"]), timeout):
                    return ReturnValue(backend.shown_value(var, timeout), var.get("type"))
        return None

    def exit_signal(self, backend: AdapterHost, code: int | None, timeout: float) -> str | None:
        # gdb's DAP reports a death by signal as exit code 0; gdb itself keeps
        # the signal in $_exitsignal (void after a normal exit).
        try:
            answer = backend.console("print $_exitsignal", timeout)
        except DbgError:
            return None
        match = re.search(r"= (\d+)", answer)
        return signal_name(int(match.group(1))) if match else None

    def trace(self, backend: AdapterHost, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome | None:
        """`dbg trace` by gdb's Python (gdbboot/dbg_gdbtrace.py): internal
        breakpoints whose stop() records each call, its return (a finish
        breakpoint per call) and with ``lines`` each line, and lets the
        program go on; no DAP message per call. The run itself is an
        ordinary continue, so the user's breakpoints stop it."""
        backend.stopped_session("trace")
        backend.console(_GDB_TRACER, timeout)
        fd, name = tempfile.mkstemp(prefix="trace-", suffix=".jsonl", dir=backend.ctx.run_dir)
        os.close(fd)
        path = Path(name)
        natives = [self.function_name(None, f) for f in functions]
        options = {"file": name, "functions": natives, "lines": bool(lines),
                   "max": int(max_calls), "chars": VALUE_CHARS}
        try:
            try:
                backend.console(f"dbg-trace-start {json.dumps(options)}", timeout)
            except OpFailed as exc:
                # gdb's words after the request's: "no function NAME in the program".
                words = exc.message.partition("failed: ")[2] or exc.message
                raise OpFailed(f"trace: {words}", "`dbg raw info functions NAME` lists "
                               "the functions gdb knows") from None
            with follow_trace_file(path, sink) as trace_file:
                try:
                    event, timed_out = traced_run(partial(backend.resume, "continue"),
                                                  backend.pause, timeout)
                except BaseException:
                    with contextlib.suppress(DbgError):
                        backend.console("dbg-trace-stop", timeout)
                    raise
                # Also after the program's end: its breakpoints would trace the
                # next run (`dbg restart`) too.
                ended = backend.console("dbg-trace-stop", timeout)
            calls, dropped = trace_file.calls(), trace_file.dropped
        finally:
            path.unlink(missing_ok=True)
        fault = re.search(r"^fault: (.+)$", ended, re.MULTILINE)
        return TraceOutcome(calls=calls, event=event, dropped=dropped,
                            means="breakpoints in gdb that record and go on",
                            note=f"the tracer failed inside gdb: {fault.group(1)}" if fault
                            else "", timed_out=timed_out)
