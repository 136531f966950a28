"""delve's profile (``dlv dap``): Go programs, packages and tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import ClassVar

from dbg_dap.frames import (
    go_goroot,
    go_library,
    go_parameters,
)
from dbg_dap.host import AdapterHost
from dbg_dap.native import version_of
from dbg_dap.profile_base import AdapterProfile
from dbgcore.api import (
    AttachRequest,
    DbgError,
    LaunchRequest,
    Location,
    Message,
    NotAProgram,
    Readiness,
    Support,
    UsageError,
    Variable,
    binary_kind,
    signal_name,
)

#: testing's methods a test calls to fail (Fail is where dbg stops).
_GO_TEST_API = frozenset(f"testing.(*common).{name}" for name in (
    "Error", "Errorf", "Fatal", "Fatalf", "FailNow"))

#: A message as testing logs it: "    FILE:LINE: TEXT", further lines indented by 8.
_GO_LOGGED_RE = re.compile(r"^    (\S+:\d+): (.*(?:\n        .*)*)", re.M)


def _logged(text: str, places: set[str] | None) -> str:
    """The last message testing logged for one of ``places`` (FILE:LINE;
    None: any) in ``text``, its further lines unindented."""
    found = [m.group(2) for m in _GO_LOGGED_RE.finditer(text)
             if places is None or m.group(1) in places]
    return found[-1].replace("\n        ", "\n") if found else ""


def _go_string(value: str) -> str:
    """A Go string as delve shows it (quoted, escaped), as text."""
    if len(value) < 2 or not value.startswith('"') or not value.endswith('"'):
        return ""
    try:
        decoded = json.loads(value)
    except ValueError:
        return value[1:-1]
    return decoded if isinstance(decoded, str) else ""


#: An interface value as delve shows it: `interface {}(TYPE) VALUE`.
_GO_INTERFACE_RE = re.compile(r"^interface \{\}\((.+?)\) (.*)$", re.S)


def _go_value(value: str) -> str:
    """A panic's value as Go prints it: a string's text, else the value as
    delve shows it ("" when delve could not read it)."""
    match = _GO_INTERFACE_RE.match(value)
    if match is None or match.group(2).startswith("(unreadable"):
        return ""
    text = match.group(2)
    return _go_string(text) if text.startswith('"') else text


def _quiet_evaluate(backend: AdapterHost, expression: str, frame: Message,
                    timeout: float) -> str:
    """``expression`` in ``frame``, as delve shows it ("" if it cannot)."""
    try:
        return str(backend.dap_session().request("evaluate", {
            "expression": expression, "context": "watch", "frameId": frame["id"]},
            timeout).get("result", ""))
    except DbgError:
        return ""


#: A failing test's message is shown up to this many characters, then
#: says how many more it has.
_MESSAGE_CHARS = 2000
#: The test's output (testing's ``c.output``, a []byte) is read from its
#: last this many bytes, this many at a time: delve loads 64 elements of a
#: slice, and `string(c.output)` converts only those, with no sign of a
#: cut; and it cuts a value it shows at 256 characters ("[]uint8 len: 48,
#: cap: 5000, [120,...]" fits).
_OUTPUT_TAIL = 6144
_OUTPUT_PAGE = 48
#: A byte slice as delve shows it: `[]uint8 len: 3, cap: 8, [104,105,33]`.
_BYTES_RE = re.compile(r"len: (\d+), cap: \d+, \[([\d,]*)\]")


def _test_output(backend: AdapterHost, frame: Message, timeout: float) -> str:
    """The end of what the test has logged (``c.output`` in testing's Fail),
    read page by page as bytes and decoded once, so that a character is not
    split between two pages."""
    shown = _quiet_evaluate(backend, "len(c.output)", frame, timeout)
    if not shown.isdigit():
        return _go_string(_quiet_evaluate(backend, "string(c.output)", frame, timeout))
    total = int(shown)
    data = bytearray()
    for start in range(max(0, total - _OUTPUT_TAIL), total, _OUTPUT_PAGE):
        end = min(start + _OUTPUT_PAGE, total)
        page = _BYTES_RE.search(_quiet_evaluate(backend, f"c.output[{start}:{end}]", frame,
                                                timeout))
        if page is None or int(page.group(1)) != end - start:
            break  # unreadable: what was read so far
        data.extend(int(b) for b in page.group(2).split(",") if b)
    return data.decode("utf-8", errors="replace")


def _bounded(message: str) -> str:
    """A test's message within :data:`_MESSAGE_CHARS`, a cut one saying so."""
    if len(message) <= _MESSAGE_CHARS:
        return message
    return f"{message[:_MESSAGE_CHARS]} ... ({len(message) - _MESSAGE_CHARS} more characters)"


#: The runtime's words for a goroutine's wait (its ``waitReason`` constant's
#: name without the prefix, as delve shows it: ``waitReasonChanReceive (14)``).
_WAIT_REASON_RE = re.compile(r"^waitReason(\w+)")
_WORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
#: The waits that are for a lock another goroutine holds.
_LOCK_WAITS = ("Semacquire", "SyncMutexLock", "SyncRWMutexLock", "SyncRWMutexRLock")


def go_wait(shown: str) -> tuple[str, str] | None:
    """A goroutine's state and wait reason from delve's showing of its
    ``waitreason``: ("blocked", "sync mutex lock"), ("waiting", "chan
    receive"); None for one that does not wait (``waitReasonZero``)."""
    match = _WAIT_REASON_RE.match(shown.strip())
    if match is None or match.group(1) == "Zero":
        return None
    name = match.group(1)
    words = " ".join(w.lower() if not w.isupper() or len(w) == 1 else w
                     for w in _WORD_RE.findall(name))
    return ("blocked" if name in _LOCK_WAITS else "waiting"), words


#: A frame of the stack delve gives with an exception (a panic).
_DELVE_FRAME_RE = re.compile(r"^\s*\d+\s+0x[0-9a-fA-F]+ in (\S+)\s*\n\s*at (\S+):(\d+)", re.M)


class DelveProfile(AdapterProfile):
    name = "delve"
    breaks_before_run = True
    entry_function: str | None = "main.main"
    exit_status_on_disconnect = True
    # The program reads dlv's own stdin (`dlv dap` ignores `-r stdin:FILE`):
    # dlv starts with the program's (DapBackend._connect).
    reads_stdin = True
    stdin_through_adapter = True
    # dlv loads 64 elements of an array, slice or map; `variables` with
    # filter "indexed" and start/count loads that page of it instead.
    pages_indexed = True
    hints: ClassVar[dict[str, str]] = {
        "memory-read": "delve's DAP server has no memory reads; "
                       "try `dbg print '*(*[8]byte)(unsafe.Pointer(&NAME))'`",
        "memory-write": "delve's DAP server has no memory writes; use `dbg set`",
        "modules": "delve's DAP server lists no modules; try `dbg raw dlv sources`",
        "catch": " (delve stops on an unrecovered panic by itself)",
    }
    _STATUS_RE: ClassVar[re.Pattern[str]] = re.compile(
        r"Process \d+ has exited with status (-?\d+)")

    def _exe(self) -> str | None:
        return shutil.which(self.spec.command[0] if self.spec.command else "dlv")

    def thread_wait(self, backend: AdapterHost, timeout: float) -> tuple[str, str] | None:
        frames = backend.stack_frames(timeout)
        return self.frame_wait(backend, frames[0], timeout) if frames else None

    def argv(self) -> list[str]:
        exe = self._exe()
        if exe is None:
            raise UsageError("dlv not found", self.spec.install)
        # delve dials dbg's listener, which takes only this process's
        # connection: `dlv dap --listen` would hold a port anyone can reach
        # for the whole session (delve 1.20 has no Unix sockets, no token).
        return [exe, "dap", "--client-addr", "{address}", *self.spec.command[1:]]

    def check(self) -> Readiness:
        exe = self._exe()
        if exe is None:
            return Readiness(False, "dlv not found")
        version = self.version()
        return Readiness(True, f"dlv {version} ({exe})", version)

    def version(self) -> str:
        exe = self._exe()
        return version_of(exe, "version") if exe else ""

    @staticmethod
    def _is_source(program: Path) -> bool:
        return program.is_dir() or program.suffix.lower() == ".go"

    def check_program(self, program: Path) -> None:
        if program.is_dir() and not any(program.glob("*.go")):
            raise NotAProgram(f"{program} is a folder without Go sources, not a Go program",
                              "give main.go, the package's folder, or a binary built by go build")
        if self._is_source(program):
            return
        if binary_kind(program) != "go" or not os.access(program, os.X_OK):
            raise NotAProgram(f"{program} is not a Go program (a .go file, a package folder or "
                              "a Go binary)",
                              "give main.go, the package's folder, or a binary built by go build")

    features: ClassVar[dict[str, Support]] = {"return-value": "fallback", "core": "native"}
    # A `call` that stopped at a breakpoint ends when the program goes on,
    # and delve stops again where the call was made.
    call_ends_on_continue = True
    function_stops_at_declaration = True
    # A Go binary has all its code; delve does not bind functions later.
    function_search_is_final = True
    return_values_at_ret = True
    # delve's special variable for the goroutine that evaluates a condition.
    thread_condition = "runtime.curg.goid == {thread}"

    def source_files(self, backend: AdapterHost, name: str, timeout: float) -> list[str]:
        answer = backend.console(f"dlv sources {re.escape(name)}$", timeout)
        return [line.strip() for line in answer.splitlines()
                if os.path.isabs(line.strip()) and os.path.basename(line.strip()) == name]

    #: Go's source tree (GOROOT/src/), once a stack showed it.
    _goroot: str | None = None

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        # Go's own packages (below GOROOT, which a runtime frame's file
        # shows) and modules from the module cache.
        if self._goroot is None:
            self._goroot = go_goroot(frames)
        return [go_library(f, self._goroot) for f in frames]

    def program_frame(self, backend: AdapterHost, frames: list[Message],
                      timeout: float) -> int:
        # A fatal error (a deadlock: "all goroutines are asleep") stops in
        # the goroutine's wait, in Go's own sync or runtime code: the
        # program's frame is the one that called it (main's wg.Wait()). A
        # stack of library code only keeps the first frame outside the runtime.
        return self.own_code_frame(backend, frames, timeout)

    # delve's thread names are "[Go 6] FUNCTION" only.
    threads_with_places = True

    def frame_wait(self, backend: AdapterHost, frame: Message,
                   timeout: float) -> tuple[str, str] | None:
        # delve evaluates `runtime.curg` as the g of the frame's goroutine.
        return go_wait(_quiet_evaluate(backend, "runtime.curg.waitreason", frame, timeout))

    def frames_args(self, backend: AdapterHost, frames: list[Message],
                    timeout: float) -> list[list[Variable] | None]:
        return [self._frame_args(backend, f, timeout) for f in frames]

    def _frame_args(self, backend: AdapterHost, frame: Message,
                    timeout: float) -> list[Variable] | None:
        # delve lists a frame's arguments among its locals (first, then the
        # results ~r0..., then the locals): the `func` line says which.
        names = go_parameters((frame.get("source") or {}).get("path"), frame.get("line"))
        if not names:
            return None if names is None else []
        rows: dict[str, Variable] = {}
        for scope in backend.scopes(timeout, int(frame["id"]))[:1]:
            for var in backend.variables(int(scope["variablesReference"]), timeout):
                name = str(var.get("name"))
                if name in names and name not in rows:
                    value = str(var.get("value", ""))
                    rows[name] = Variable(name, value or "{...}", var.get("type"))
        return [rows[n] for n in names if n in rows]

    def internal_frame(self, frame: Message) -> bool:
        # Below main.main (or a goroutine's function): runtime.main, goexit;
        # below a test function, the testing package's tRunner.
        return str(frame.get("name", "")).startswith(("runtime.", "testing."))

    # A test fails through testing's Fail (t.Error, t.Errorf, t.Fatal and
    # t.Fatalf log the message, then call it).
    test_failure_functions: ClassVar[tuple[str, ...]] = ("testing.(*common).Fail",)

    def test_failure(self, backend: AdapterHost, frames: list[Message],
                     timeout: float) -> tuple[int, str] | None:
        # Fail also runs for the parent of a failed subtest (from Fail itself)
        # and from testing's own code (a panicking test, which delve stops at
        # anyway): only a call from the test's code through the API counts.
        names = [str(f.get("name", "")) for f in frames]
        index = 1
        while index < len(names) and names[index] in _GO_TEST_API:
            index += 1
        if index >= len(names) or self.internal_frame(frames[index]):
            return None
        test = _go_string(_quiet_evaluate(backend, "c.name", frames[0], timeout))
        message = self._failure_message(backend, frames, timeout)
        description = f"{test or 'a test'} failed"
        return index, f"{description}: {message}" if message else description

    def _failure_message(self, backend: AdapterHost, frames: list[Message],
                         timeout: float) -> str:
        """What the failing call logged: testing keeps it in the test's
        output, or (go test -v) has printed it already, as
        "    FILE:LINE: MESSAGE" for the line of the call (or of the test's
        call to a t.Helper() function)."""
        places = {f"{os.path.basename(str((f.get('source') or {}).get('path') or ''))}:"
                  f"{f.get('line')}" for f in frames}
        kept = _test_output(backend, frames[0], timeout)
        found = _logged(kept, places) or _logged(kept, None)
        deadline = time.monotonic() + 0.5
        while not found:
            # -v: printed by the program, which dbg reads from delve's stdout
            # on a thread of its own; it may not have arrived yet.
            printed = backend.ctx.output.text(max(0, backend.ctx.output.cursor - 50), {"stdout"})
            found = _logged(printed, places)
            if found or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        return _bounded(found)

    def traceback(self, text: str) -> str:
        # delve's stack: "\t0  0x4a1b2c in main.f\n\t    at /x/main.go:26", innermost
        # first, the runtime's panic machinery on top.
        frames = [(m.group(1), m.group(2), m.group(3)) for m in _DELVE_FRAME_RE.finditer(text)
                  if not self.internal_frame({"name": m.group(1)})]
        return "\n".join(f'  File "{file}", line {line}, in {function}'
                         for function, file, line in reversed(frames))

    def exit_signal(self, backend: AdapterHost, code: int | None, timeout: float) -> str | None:
        # delve says "exited with status -9" for a death by SIGKILL.
        return signal_name(-code) if code is not None and code < 0 else None

    def skip_stop(self, backend: AdapterHost, reason: str, text: str, description: str,
                  timeout: float) -> bool:
        # delve always stops on an unrecovered panic; `--no-catch` lets it end
        # the program, as it would without a debugger.
        return reason == "exception" and description == "panic" and not backend.catch_uncaught

    def adapter_cwd(self, request: LaunchRequest) -> str | None:
        # `go build` runs in dlv's own working folder: the package's.
        program = Path(request.program)
        if self._is_source(program):
            return str(program if program.is_dir() else program.parent)
        return request.cwd

    entry_arguments: ClassVar[Message] = {"stopOnEntry": False}

    def launch_arguments(self, request: LaunchRequest) -> Message:
        args = super().launch_arguments(request)
        if request.test:
            # `go test`: delve builds the package's test binary and runs it in
            # the package's folder, as go test does (its testdata/ is there).
            args["mode"] = "test"
            args.pop("cwd", None)
            if self.build_dir is not None:
                args["output"] = str(Path(self.build_dir) / "debug-test-bin")
        elif self._is_source(Path(request.program)):
            args["mode"] = "debug"
            if self.build_dir is not None:
                args["output"] = str(Path(self.build_dir) / "debug-bin")
        else:
            args["mode"] = "exec"
        return args

    def core_arguments(self, request: LaunchRequest) -> tuple[str, Message]:
        # delve opens a core by `launch` in core mode, with the binary that
        # made it: from a source (which it would build anew) it fails with
        # "bad magic number".
        if self._is_source(Path(request.program)):
            raise UsageError(f"--core: {request.program} is Go source; a core opens with "
                             "the binary that crashed",
                             "give that binary: dbg start --core CORE ./PROGRAM")
        return "launch", {"mode": "core", "program": request.program,
                          "coreFilePath": request.core}

    def core_cause(self, backend: AdapterHost, frames: list[Message], timeout: float) -> str:
        # A Go program that panics dies by the runtime's own SIGABRT (with
        # GOTRACEBACK=crash): the panic is why. gopanic's `p.arg` holds the
        # value as Go printed it (an error already turned into its text);
        # a fatal error is throw's `s`.
        for frame in frames:
            name = str(frame.get("name", ""))
            if name == "runtime.gopanic":
                value = _go_value(_quiet_evaluate(backend, "p.arg", frame, timeout)) or \
                    _go_value(_quiet_evaluate(backend, "e", frame, timeout))
                return f"panic: {value}" if value else "panic"
            if name in ("runtime.throw", "runtime.fatal"):
                value = _go_string(_quiet_evaluate(backend, "s", frame, timeout))
                return f"fatal error: {value}" if value else "fatal error"
        return ""

    def body_below(self, file: str, line: int) -> bool:
        # `func tick(i int) int { return i + 1 }`: its statement is on the
        # declaration's own line, and the next line is another function's.
        text = _source_line(file, line)
        return text is None or text.split("//", 1)[0].rstrip().endswith("{")

    def at_declaration(self, location: Location | None) -> bool:
        if location is None or not location.file or not location.line:
            return False
        text = _source_line(location.file, location.line)
        return text is not None and text.lstrip().startswith("func ")

    def no_stack_yet(self, message: str) -> bool:
        # A headless delve holds the process before the Go runtime made goroutine 1.
        return "unknown goroutine" in message

    def attach_server(self, request: AttachRequest) -> tuple[str, int] | None:
        # A headless delve (`dlv exec --headless --listen`) speaks DAP itself.
        if request.port is not None:
            return (request.host or "127.0.0.1", request.port)
        return None

    def attach_arguments(self, request: AttachRequest) -> Message:
        if request.port is not None:
            return {"mode": "remote", "stopOnEntry": True}
        if request.pid is None:
            raise UsageError("dlv attaches by --pid, or by --port to a headless dlv")
        return {"mode": "local", "processId": request.pid}

    def stop_description(self, text: str, description: str) -> str:
        # delve puts the panic's message in `text` (quoted) and "panic" in
        # `description`: say it the way Go does, "panic: MESSAGE".
        message = text.strip('"')
        return f"{description}: {message}" if description and message else message or description

    def function_name(self, module: str | None, function: str) -> str:
        # Go names functions by package: main.f, pkg.(*T).M.
        if module:
            return f"{module}.{function}"
        return function if "." in function else f"main.{function}"

    def hit_condition(self, count: int) -> str:
        return f"== {count}"

    def condition_failure(self, output: str, conditions: dict[int, str], reason: str,
                          description: str, text: str) -> str | None:
        # delve stops at a breakpoint whose condition it cannot evaluate, as
        # an exception: "runtime error", "error evaluating expression: ...".
        prefix = "error evaluating expression"
        if reason == "exception" and description == "runtime error" and text.startswith(prefix):
            return text[len(prefix):].lstrip(": ") or text
        return None

    def exit_code_from_output(self, text: str) -> int | None:
        match = self._STATUS_RE.search(text)
        return int(match.group(1)) if match else None

    def watch_hint(self) -> str:
        # Its console (`dbg raw`) evaluates expressions and runs only a few
        # `dlv` commands (help, config, sources): no `watch` there either.
        return ("delve 1.20's DAP server has no data breakpoints; break where NAME is "
                "assigned and `dbg print NAME`")


def _source_line(file: str, line: int) -> str | None:
    """Line ``line`` of ``file`` (None: no such line, or unreadable)."""
    try:
        with open(file, encoding="utf-8", errors="replace") as source:
            for number, text in enumerate(source, 1):
                if number == line:
                    return text
    except OSError:
        pass
    return None
