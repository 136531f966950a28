"""lldb-dap's profile (lldb-dap 19)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import ClassVar

import dbg_dap.natlang as natlang
import dbg_dap.rust as rust
from dbg_dap.frames import (
    lldb_arguments,
)
from dbg_dap.host import AdapterHost, JsonValue
from dbg_dap.native import NativeProfile, line_buffered, version_of
from dbgcore.api import (
    VALUE_CHARS,
    CallSink,
    DbgError,
    LaunchRequest,
    Message,
    OpFailed,
    Readiness,
    ReturnValue,
    StopEvent,
    Support,
    TraceOutcome,
    UsageError,
    Variable,
    follow_trace_file,
    traced_run,
)

#: lldb: the breakpoint's id.location and condition, then what its parser said.
_LLDB_CONDITION_ERROR_RE = re.compile(
    r"error evaluating condition of breakpoint (\d+)\.\d+: .*\n((?:.+\n?)*)")

#: How lldb-dap describes a stop by a signal ("signal SIGSEGV: ...").
_SIGNAL_RE = re.compile(r"signal SIG[A-Z0-9]+\b")
#: How it describes the stop of a pause: the signal it stopped the process with.
_PAUSE_SIGNAL_RE = re.compile(r"signal SIG(STOP|INT)\b")
#: lldb-dap's value for a struct, a class or an array: its type and address
#: only ("int[10000000] @ 0x55..."; `dbg print` shows the first elements).
_BARE_AGGREGATE = re.compile(r"[\w:<>,*&\[\] ]+ @ 0x[0-9a-fA-F]+")

#: `dbg trace`'s tracer inside lldb (lldbboot/dbg_lldbtrace.py), imported by
#: the first trace of a session (a `script` line, imported once however often run).
_LLDB_TRACER = (f"script import sys; _d = {str(Path(__file__).with_name('lldbboot'))!r}; "
                "sys.path[:0] = [] if _d in sys.path else [_d]; import dbg_lldbtrace")
#: How long before the wait for the run's stop ends the tracer stops it.
_DEADLINE_EARLY = 0.5

#: One of lldb's expression errors, in its text made one line.
_LLDB_ERROR_RE = re.compile(
    r"error: (?:<user expression \d+>:\d+:\d+: )?(.*?)(?= \d+ \| | error: |$)")


#: lldb-dap's runInTerminal launcher, in sh: $1 is the FIFO, the rest the
#: program and its arguments. Each message is one JSON line written through
#: an open of its own, as lldb-dap reads them.
_SHELL_LAUNCHER = (
    'fifo=$1; shift; printf \'{"kind":"pid","pid":%d}\\n\' "$$" > "$fifo" || exit 1; '
    'IFS= read -r answer < "$fifo"; '
    'case $answer in *didAttach*) exec "$@";; esac; '
    'echo "dbg: lldb-dap did not attach: $answer" >&2; exit 1')


def _ptrace_free() -> bool:
    """Whether any process of the user's may ptrace another (no Yama, or
    Yama's ptrace_scope 0): then lldb needs no leave from the launcher."""
    try:
        return Path("/proc/sys/kernel/yama/ptrace_scope").read_text().strip() == "0"
    except FileNotFoundError:
        return True
    except OSError:
        return False


#: lldb's words that a variable path reads memory it cannot (a core file's),
#: or goes through a NULL pointer.
_READ_FAILED_RE = re.compile(r"= <read memory from (0x[0-9a-fA-F]+) failed")
_NULL_PARENT_RE = re.compile(r"= <parent is NULL>")

class LldbProfile(NativeProfile):
    name = "lldb"
    breaks_before_run = True
    #: (A D program's is _Dmain, a Nim program's NimMainModule: set at launch.)
    entry_function: str | None = "main"
    safe_unknown_requests = False
    #: lldb-dap keeps running after `disconnect` and may abort when its stdin
    #: closes: it gets only this long before it is killed.
    shutdown_grace: ClassVar[float | None] = 0.3
    # dbg starts the program (runInTerminal), with its stdin.
    reads_stdin = True
    # lldb-dap honours `variables`' start/count whatever the client says
    # (measured on 19.1.7: start 9999998, count 3 of a 10,000,000-element
    # array answers two rows at once and its memory does not move).
    pages_variables = True

    def stop_reason(self, reason: str, description: str, with_ids: bool,
                    pause_asked: bool) -> str:
        if reason == "exception" and _SIGNAL_RE.match(description):
            reason = "signal"  # lldb-dap calls a signal an exception
        if pause_asked and reason == "signal" and _PAUSE_SIGNAL_RE.match(description):
            # lldb-dap reports the stop a pause asked for as the SIGSTOP it sent.
            reason = "pause"
        if reason == "breakpoint" and not with_ids and description.startswith("watchpoint "):
            # lldb-dap 19 reports a data breakpoint as reason "breakpoint",
            # description "watchpoint N", with no ids.
            reason = "watchpoint"
        return reason

    def bare_value(self, value: str) -> bool:
        # lldb-dap shows a struct, class or array as its type and address only.
        return super().bare_value(value) or bool(_BARE_AGGREGATE.fullmatch(value))

    def _exe(self) -> str | None:
        for name in self.spec.command or ["lldb-dap-19", "lldb-dap"]:
            found = shutil.which(name) if not os.path.isabs(name) else (
                name if os.access(name, os.X_OK) else None)
            if found:
                # Absolute: lldb-dap finds its runInTerminal helper from argv[0].
                return os.path.abspath(found)
        return None

    def argv(self) -> list[str]:
        exe = self._exe()
        if exe is None:
            raise UsageError("lldb-dap not found", self.spec.install)
        return [exe]

    def check(self) -> Readiness:
        exe = self._exe()
        if exe is None:
            names = " or ".join(self.spec.command or ["lldb-dap"])
            return Readiness(False, f"{names} not found")
        number = self.version()
        return Readiness(True, f"lldb-dap {number or '(version unknown)'} ({exe})", number)

    def version(self) -> str:
        exe = self._exe()
        if exe is None:
            return ""
        # lldb-dap has no --version; the lldb installed beside it does.
        lldb = Path(os.path.realpath(exe)).with_name("lldb")
        return version_of(str(lldb)) if lldb.exists() else ""

    entry_arguments: ClassVar[Message] = {"stopOnEntry": False}

    def env_argument(self, request: LaunchRequest) -> JsonValue:
        # lldb-dap 19 takes "NAME=VALUE" strings.
        return [f"{k}={v}" for k, v in line_buffered({**os.environ, **request.env}).items()]

    hints: ClassVar[dict[str, str]] = {
        "memory-read": "use `dbg raw memory read --count N ADDRESS`",
        "memory-write": "use `dbg raw memory write ADDRESS BYTE...`",
        "break-instruction": "use `dbg raw breakpoint set --address ADDRESS`",
        "sources": "use `dbg raw image list`",
    }

    def remote_arguments(self, host: str, port: int) -> Message:
        # lldb-dap connects to a gdb-remote server (lldb-server gdbserver, gdbserver).
        return {"gdb-remote-port": port, "gdb-remote-hostname": host, "stopOnEntry": True}

    def data_watch_expression(self, expression: str) -> str:
        # lldb-dap evaluates `name` and watches the address it yields.
        return f"&({expression})"

    def raw_expression(self, text: str) -> str:
        # In lldb-dap's console a leading backtick always means "LLDB command".
        return text if text.startswith("`") else f"`{text}"

    def raw_answer(self, text: str) -> str:
        # lldb-dap echoes the command as "(lldb) COMMAND" first.
        first, newline, rest = text.partition("\n")
        return rest if newline and first.startswith("(lldb) ") else text

    def unreadable(self, backend: AdapterHost, expression: str, timeout: float) -> str | None:
        # In a core file, lldb's expressions answer a made-up value where
        # they read memory the core does not hold (lldb 19: `n->value` is 0
        # where n is 0x10, `c->words` some number where c is NULL); the same
        # name as a variable path says why it cannot be read. An expression
        # that is no variable path is evaluated as it is.
        if backend.core is None or "\n" in expression:
            return None
        try:
            answer = backend.console(f"frame variable -- {expression}", timeout)
        except DbgError:
            return None
        if _NULL_PARENT_RE.search(answer):
            return f"cannot read {expression}: a pointer on the way to it is NULL"
        failed = _READ_FAILED_RE.search(answer)
        if failed is None:
            return None
        return (f"cannot read {expression}: the core file does not hold the memory at "
                f"{failed.group(1)}")

    def watch_hint(self) -> str:
        return ("lldb-dap could not set a data breakpoint; "
                "try `dbg raw watchpoint set variable NAME`")

    # lldb matches a bare name in any namespace.
    panic_function: ClassVar[str | None] = "rust_panic"

    def rust_printer_commands(self) -> list[str]:
        # What rust-lldb runs: the providers, then the type rules naming them.
        found = rust.printer_files(*rust.LLDB_PRINTERS)
        return [f"command script import {found[0]}", f"command source -s 1 {found[1]}"] \
            if found else []

    def frame_name(self, frame: Message) -> str | None:
        name = super().frame_name(frame)
        return rust.plain_name(name) if name else name

    features: ClassVar[dict[str, Support]] = {"return-value": "native", "pending": "native",
                                              "core": "native"}

    def launch_arguments(self, request: LaunchRequest) -> Message:
        # lldb-dap then asks dbg to start the program (runInTerminal), so the
        # program is dbg's child: its wait status tells an exit from a death by
        # signal, which lldb 19 reports alike ("exited with status = 9").
        args = {**super().launch_arguments(request), "runInTerminal": True}
        if self.language == "d":
            # lldb-dap names a D frame by its address; the symbol, dbg
            # demangles (dbg_dap.natlang).
            args["customFrameFormat"] = "${function.name}"
        self.entry_function = natlang.entry_function(self.language) or "main"
        return args

    def terminal_argv(self, argv: list[str]) -> list[str]:
        # lldb-dap's launcher is lldb-dap itself, which maps liblldb,
        # libLLVM and libclang-cpp: attaching to it, lldb reads their
        # symbols first (1-1.5 s). A shell speaks the same FIFO protocol
        # (its pid as one JSON line, then it waits for "didAttach") and
        # execs the program as the launcher would, in the same process.
        # Only where ptrace needs no PR_SET_PTRACER, which a shell cannot ask.
        if len(argv) < 7 or argv[1:6:2] != ["--comm-file", "--debugger-pid", "--launch-target"] \
                or not _ptrace_free():
            return argv
        return ["/bin/sh", "-c", _SHELL_LAUNCHER, "dbg-launcher", argv[2], *argv[6:]]

    def source_files(self, backend: AdapterHost, name: str, timeout: float) -> list[str]:
        script = ("script print('\\n'.join(sorted({str(f) for m in lldb.target.module_iter() "
                  "for cu in m.compile_unit_iter() for f in [cu.GetFileSpec()] "
                  f"if f.GetFilename() == {name!r}}})))")
        answer = backend.console(script, timeout)
        return [line.strip() for line in answer.splitlines() if os.path.isabs(line.strip())]

    def return_value(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        # lldb-dap 19 shows no return value; lldb's `thread info` does.
        try:
            answer = backend.console("thread info", timeout)
        except DbgError:
            return None
        match = re.search(r"^Return value: \((.*?)\) \$\d+ = (.*)$", answer, re.M)
        return ReturnValue(match.group(2).strip(), match.group(1)) if match else None

    def frames_args(self, backend: AdapterHost, frames: list[Message],
                    timeout: float) -> list[list[Variable] | None]:
        # lldb-dap shows arguments and locals in one scope, and its console
        # runs in the frame lldb selected last, not the request's. lldb's
        # Python asks each frame for its arguments alone, all in one request.
        indexes = [i for i, frame in enumerate(backend.stack_frames(timeout)) if frame in frames]
        if not indexes or backend.thread_id is None:
            return [None] * len(frames)
        script = (f"`script _dbg_t = lldb.process.GetThreadByID({int(backend.thread_id)}); "
                  "_dbg = [print('@@dbg-frame %d\\n%s' % (i, _dbg_t.GetFrameAtIndex(i)"
                  f".GetVariables(True, False, False, True))) for i in {tuple(indexes)!r}]")
        try:
            answer = self.raw_answer(backend.evaluate_in(frames[0], script, timeout, "repl"))
        except DbgError:
            return [None] * len(frames)
        found = dict(re.findall(r"^@@dbg-frame (\d+)\n(.*?)(?=^@@dbg-frame |\Z)", answer,
                                re.M | re.S))
        out: list[list[Variable] | None] = []
        for index, frame in zip(indexes, frames, strict=False):
            text = found.get(str(index))
            if text is None or (text.startswith("<empty>") and not frame.get("source")):
                out.append(None)  # no debug info (libc's _start)
            else:
                out.append([] if text.startswith("<empty>") else lldb_arguments(text))
        return out

    # lldb stops at a breakpoint whose condition it cannot evaluate, and then
    # prints why, on stderr.
    condition_errors_after_stop = True

    def condition_failure(self, output: str, conditions: dict[int, str], reason: str,
                          description: str, text: str) -> str | None:
        for match in _LLDB_CONDITION_ERROR_RE.finditer(output):
            if int(match.group(1)) in conditions:
                return self.error_line(match.group(2))
        return None

    def assignment_expression(self, lhs: str, value: str) -> str | None:
        # lldb-dap 19's setVariable takes only names its scopes list; lldb's
        # expression evaluator assigns anything the language can.
        return f"{lhs} = {value}"

    def error_line(self, message: str) -> str:
        # lldb's errors: "error: <user expression 2>:1:7: REASON", then the
        # source line and a caret ("    1 | x = 1"); the first error is the
        # cause, the others follow from it.
        text = " ".join(message.split())
        found = _LLDB_ERROR_RE.findall(text)
        return found[0] if found else text

    def condition_error(self, backend: AdapterHost, condition: str, timeout: float) -> str:
        # lldb-dap takes any condition and reports it broken only at a hit;
        # lldb's parser says so now, in the selected frame. Only its syntax
        # errors count: a name not in scope here may be in scope there.
        try:
            backend.evaluate_with(condition, "watch", timeout)
        except DbgError as exc:
            errors = [line for line in exc.message.splitlines() if "error:" in line]
            syntax = [e for e in errors if re.search(r"\bexpected\b|extraneous|unterminated", e)]
            if syntax:
                return syntax[0].split("error:")[-1].strip()
        return ""

    def trace(self, backend: AdapterHost, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome | None:
        """`dbg trace` by lldb's Python (lldbboot/dbg_lldbtrace.py):
        breakpoints whose callbacks record each call, its return (a
        breakpoint on each return address, or on x86-64 on the function's
        ``ret`` instructions, the value read from the return register) and with
        ``lines`` each line, and answer "do not stop" (on x86-64 sending
        the program on from a copy of the instruction, which spares lldb
        its step over the breakpoint). The run itself is an ordinary
        continue, so the user's breakpoints stop it."""
        backend.stopped_session("trace")
        backend.console(_LLDB_TRACER, timeout)
        fd, name = tempfile.mkstemp(prefix="trace-", suffix=".jsonl", dir=backend.ctx.run_dir)
        os.close(fd)
        path = Path(name)
        natives = [self.function_name(None, f) for f in functions]
        options = json.dumps({"file": name, "functions": natives, "lines": bool(lines),
                              "max": int(max_calls), "chars": VALUE_CHARS})

        def run_on(running: float) -> StopEvent:
            # The tracer stops the program itself a little before the wait
            # for its stop ends: a pause sent while lldb handles the
            # tracer's breakpoint stops may go unanswered.
            seconds = max(running - _DEADLINE_EARLY, running / 2)
            backend.console(f"script dbg_lldbtrace.deadline({seconds!r})", running)
            return backend.resume("continue", running)

        try:
            started = backend.console(
                f"script dbg_lldbtrace.start(lldb.debugger, {options!r})", timeout)
            refused = re.search(r"^dbg-trace error: (.+)$", started, re.MULTILINE)
            if refused or "tracing" not in started:
                why = refused.group(1) if refused else started.strip() or "no answer"
                raise OpFailed(f"trace: {why}", "`dbg raw image lookup -n NAME` says "
                               "whether lldb knows the function")
            with follow_trace_file(path, sink) as trace_file:
                try:
                    # A pause, then, comes after no traced call since the
                    # deadline: no stop of the tracer's to race with.
                    event, timed_out = traced_run(run_on, backend.pause, timeout)
                except BaseException:
                    with contextlib.suppress(DbgError):
                        backend.console("script dbg_lldbtrace.stop()", timeout)
                    raise
                ended = backend.console("script dbg_lldbtrace.stop()", timeout)
            if re.search(r"^time ran out$", ended, re.MULTILINE):
                # The tracer stopped it at one of its breakpoints: that is the
                # pause of a run out of time.
                timed_out = True
                event.reason = "pause"
            calls, dropped = trace_file.calls(), trace_file.dropped
        finally:
            path.unlink(missing_ok=True)
        fault = re.search(r"^fault: (.+)$", ended, re.MULTILINE)
        unread = re.search(r"^unread: (\d+)$", ended, re.MULTILINE)
        note = f"the tracer failed inside lldb: {fault.group(1)}" if fault else ""
        if unread:
            note = "; ".join(filter(None, [note, (
                f"{unread.group(1)} return values not shown: dbg reads one return "
                "register (integers, pointers, float, double), not a struct's or a "
                "long double's")]))
        return TraceOutcome(calls=calls, event=event, dropped=dropped,
                            means="breakpoints in lldb whose callbacks record and go on",
                            note=note, timed_out=timed_out)
