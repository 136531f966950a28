"""Profiles of the native debuggers' adapters: gdb, lldb-dap and delve.

Facts each one rests on (measured; see the README's backend notes):

- gdb >= 14 speaks DAP with ``-i=dap``; older gdbs answer "Interpreter 'dap'
  unrecognized". Its ``repl`` context runs gdb CLI commands. ``env`` replaces
  the whole environment of the program. ``hitCondition`` is an ignore count.
- lldb-dap must be started by absolute path; ``stopOnEntry`` stops inside the
  loader, so dbg stops at ``main`` with a function breakpoint instead; it
  crashes on requests it does not implement and does not exit by itself.
- delve (``dlv dap --client-addr``) dials a loopback port of dbg's and
  prints the debuggee's stdout on its own stdout; it ends with ``terminated``
  only, and says the exit status in console text. In debug mode it builds
  the package in its own working folder.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

from dbg_dap.frames import (
    go_goroot,
    go_library,
    go_parameters,
    lldb_arguments,
    native_library,
)
from dbg_dap.host import AdapterHost, JsonValue, program_root
from dbg_dap.profile_base import AdapterProfile
from dbgcore.api import (
    AttachRequest,
    DbgError,
    LaunchRequest,
    Location,
    Message,
    NotAProgram,
    Readiness,
    ReturnValue,
    Support,
    UsageError,
    Variable,
    binary_kind,
    signal_name,
)

#: gdb 14+ (older: "Error in testing breakpoint condition N:"), then the message.
_GDB_CONDITION_ERROR_RE = re.compile(
    r"Error in testing (?:condition for breakpoint|breakpoint condition) (\d+):\n(.+)")
#: lldb: the breakpoint's id.location and condition, then what its parser said.
_LLDB_CONDITION_ERROR_RE = re.compile(
    r"error evaluating condition of breakpoint (\d+)\.\d+: .*\n((?:.+\n?)*)")

#: How lldb-dap describes a stop by a signal ("signal SIGSEGV: ...").
_SIGNAL_RE = re.compile(r"signal SIG[A-Z0-9]+\b")
#: How it describes the stop of a pause: the signal it stopped the process with.
_PAUSE_SIGNAL_RE = re.compile(r"signal SIG(STOP|INT)\b")
#: lldb-dap's value for a struct or class: its type and address only.
_BARE_AGGREGATE = re.compile(r"[\w:<>,*& ]+ @ 0x[0-9a-fA-F]+")

#: One of lldb's expression errors, in its text made one line.
_LLDB_ERROR_RE = re.compile(
    r"error: (?:<user expression \d+>:\d+:\d+: )?(.*?)(?= \d+ \| | error: |$)")

#: Python that gdb loads at its start (see GdbProfile.argv).
_GDB_HELPERS = str(Path(__file__).with_name("gdbboot") / "dbg_gdb.py")

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


#: A frame of the stack delve gives with an exception (a panic).
_DELVE_FRAME_RE = re.compile(r"^\s*\d+\s+0x[0-9a-fA-F]+ in (\S+)\s*\n\s*at (\S+):(\d+)", re.M)

#: Files that must be compiled before a native debugger can run them.
SOURCE_SUFFIXES = {
    ".c": "gcc -g -O0 {src} -o {out}",
    ".h": "gcc -g -O0 FILE.c -o {out}",
    ".cc": "g++ -g -O0 {src} -o {out}",
    ".cpp": "g++ -g -O0 {src} -o {out}",
    ".cxx": "g++ -g -O0 {src} -o {out}",
    ".hpp": "g++ -g -O0 FILE.cpp -o {out}",
    ".rs": "rustc -g {src} -o {out}  (or: cargo build)",
}

_VERSION_RE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")

#: `--version` answers, per executable path (a check runs on every `dbg start`).
_versions: dict[str, str] = {}


def _version_of(exe: str, flag: str = "--version") -> str:
    """The version number ``exe flag`` prints ("18.1"). Asking costs 0.1-0.2
    s (gdb, lldb), on every `dbg start`; so answers are kept in DBG_HOME,
    keyed by the executable's path, size and modification time."""
    if exe in _versions:
        return _versions[exe]
    try:
        info = os.stat(exe)
        # With the flag: entries written before the cache held bare numbers
        # ("18.1") held whole lines, and must not be read as numbers.
        key = f"{os.path.realpath(exe)}:{info.st_size}:{info.st_mtime_ns}:{flag}"
    except OSError:
        key = ""
    cache = _read_version_cache()
    if key and key in cache:
        _versions[exe] = cache[key]
        return cache[key]
    try:
        out = subprocess.run([exe, flag], capture_output=True, text=True,
                             timeout=20, stdin=subprocess.DEVNULL)
        found = _VERSION_RE.search(out.stdout or out.stderr) if out.returncode == 0 else None
        _versions[exe] = found.group(0) if found else ""
    except (OSError, subprocess.SubprocessError):
        _versions[exe] = ""
    if key and _versions[exe]:
        cache[key] = _versions[exe]
        _write_version_cache(cache)
    return _versions[exe]


def _version_cache_file() -> Path:
    from dbgcore.api import dbg_home

    return dbg_home() / "tool-versions.json"


def _read_version_cache() -> dict[str, str]:
    try:
        data = json.loads(_version_cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write_version_cache(cache: dict[str, str]) -> None:
    path = _version_cache_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(dict(list(cache.items())[-50:]), f)
        os.replace(temporary, path)
    except OSError:
        pass  # a cache: without it, versions are only asked again


def _number(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


class NativeProfile(AdapterProfile):
    """What gdb and lldb-dap share: programs are compiled binaries."""

    #: A file no debug info names may come with a library loaded later.
    pending_unknown_files = True
    #: The program's output reaches dbg apart (gdb: FIFOs; lldb: the
    #: runInTerminal process's pipes), so "stdout" and "stderr" output events
    #: are the debugger's own (gdb's messages, what lldb's `script` prints).
    output_categories: ClassVar[dict[str, str]] = {"stdout": "console", "stderr": "console"}

    def check_program(self, program: Path) -> None:
        if program.is_dir():
            raise NotAProgram(f"{program} is a folder, not a program",
                              "give the path of the compiled binary")
        recipe = SOURCE_SUFFIXES.get(program.suffix.lower())
        if recipe is not None:
            out = program.with_suffix("")
            command = recipe.format(src=program.name, out=out.name)
            raise NotAProgram(f"{program.name} is a source file, not a program",
                              f"compile it with debug info first: {command}; "
                              f"then: dbg start ./{out.name}")
        if binary_kind(program) is None:
            raise NotAProgram(f"{program} is not a compiled program (not an ELF executable)",
                              "give a binary built with -g; scripts run under their own "
                              "interpreter's debugger")
        if not os.access(program, os.X_OK):
            raise NotAProgram(f"{program} is not executable",
                              "give a compiled binary (built with -g), or chmod +x it")

    def internal_frames(self, frames: list[Message]) -> list[bool]:
        # What calls main is the C runtime's start-up (__libc_start_main,
        # _start), with or without libc's debug info; a thread's first frames
        # (start_thread, clone3) have no source of the program's.
        mains = [i for i, f in enumerate(frames) if f.get("name") == "main"]
        if mains:
            return [i > mains[-1] for i in range(len(frames))]
        return [not os.path.isabs(str((f.get("source") or {}).get("path") or ""))
                for f in frames]

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        root = program_root(backend.program)
        return [native_library(f, root) for f in frames]

    def env_argument(self, request: LaunchRequest) -> JsonValue:
        # gdb's `env` replaces the program's whole environment: add to ours.
        return {**os.environ, **request.env} if request.env else None

    def attach_arguments(self, request: AttachRequest) -> Message:
        args: Message = {}
        if request.program:
            args["program"] = request.program
        if request.port is not None:
            return {**args, **self.remote_arguments(request.host or "127.0.0.1", request.port)}
        if request.pid is None:
            raise UsageError(f"{self.name} attaches by --pid, or by --port to a debug server")
        return {**args, "pid": request.pid}

    def remote_arguments(self, host: str, port: int) -> Message:
        """Attach arguments for a gdb-protocol server (gdbserver, lldb-server)."""
        raise UsageError(f"{self.name} cannot attach to a debug server")

    def core_arguments(self, request: LaunchRequest) -> tuple[str, Message]:
        # gdb (18+) and lldb-dap both take a core by `attach`, with the program.
        return "attach", {"program": request.program, "coreFile": request.core}


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

    def remote_arguments(self, host: str, port: int) -> Message:
        # gdb's DAP attach runs `target remote` on `target`.
        return {"target": f"{host}:{port}"}

    def launch_arguments(self, request: LaunchRequest) -> Message:
        args = super().launch_arguments(request)
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
            version = _version_of(exe)
            if version and _number(version) >= self.minimum:
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
        if name == "core" and _number(self.version()) < self.core_minimum:
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


class LldbProfile(NativeProfile):
    name = "lldb"
    breaks_before_run = True
    entry_function: ClassVar[str | None] = "main"
    safe_unknown_requests = False
    #: lldb-dap keeps running after `disconnect` and may abort when its stdin
    #: closes: it gets only this long before it is killed.
    shutdown_grace: ClassVar[float | None] = 0.3
    # dbg starts the program (runInTerminal), with its stdin.
    reads_stdin = True

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
        # lldb-dap shows a struct or class as its type and address only.
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
        return _version_of(str(lldb)) if lldb.exists() else ""

    entry_arguments: ClassVar[Message] = {"stopOnEntry": False}

    def env_argument(self, request: LaunchRequest) -> JsonValue:
        # lldb-dap 19 takes "NAME=VALUE" strings.
        if not request.env:
            return None
        return [f"{k}={v}" for k, v in {**os.environ, **request.env}.items()]

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

    def watch_hint(self) -> str:
        return ("lldb-dap could not set a data breakpoint; "
                "try `dbg raw watchpoint set variable NAME`")

    features: ClassVar[dict[str, Support]] = {"return-value": "native", "pending": "native",
                                              "core": "native"}

    def launch_arguments(self, request: LaunchRequest) -> Message:
        # lldb-dap then asks dbg to start the program (runInTerminal), so the
        # program is dbg's child: its wait status tells an exit from a death by
        # signal, which lldb 19 reports alike ("exited with status = 9").
        return {**super().launch_arguments(request), "runInTerminal": True}

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


class DelveProfile(AdapterProfile):
    name = "delve"
    breaks_before_run = True
    entry_function: ClassVar[str | None] = "main.main"
    exit_status_on_disconnect = True
    # The program reads dlv's own stdin (`dlv dap` ignores `-r stdin:FILE`):
    # dlv starts with the program's (DapBackend._connect).
    reads_stdin = True
    stdin_through_adapter = True
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
        return _version_of(exe, "version") if exe else ""

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
        kept = _go_string(_quiet_evaluate(backend, "string(c.output)", frames[0], timeout))
        found = _logged(kept, places) or _logged(kept, None)
        deadline = time.monotonic() + 0.5
        while not found:
            # -v: printed by the program, which dbg reads from delve's stdout
            # on a thread of its own; it may not have arrived yet.
            printed = "".join(c["text"] for c in backend.ctx.output.read(
                max(0, backend.ctx.output.cursor - 50), {"stdout"})["chunks"])
            found = _logged(printed, places)
            if found or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        return found

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

    def at_declaration(self, location: Location | None) -> bool:
        if location is None or not location.file or not location.line:
            return False
        try:
            with open(location.file, encoding="utf-8", errors="replace") as source:
                for number, text in enumerate(source, 1):
                    if number == location.line:
                        return text.lstrip().startswith("func ")
        except OSError:
            pass
        return False

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
