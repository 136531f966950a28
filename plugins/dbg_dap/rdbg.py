"""rdbg's profile: Ruby programs through the `debug` gem's DAP server.

rdbg (debug 1.4, which Debian's ruby 3.1 bundles) is not a separate
adapter: ``rdbg --open`` runs the program with the debugger inside it and
serves DAP on a UNIX socket, which dbg puts in the session's private run
folder and connects to (transport ``unix-connect``). Its DAP server is
small, and any request it does not know raises inside it (the session
would hang), so only the requests it announces are sent; what it lacks
is said here (hints, function_line, catch)."""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
from pathlib import Path
from typing import ClassVar

from dbg_dap.host import AdapterHost
from dbg_dap.native import version_of
from dbg_dap.profile_base import AdapterProfile
from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    DbgError,
    LaunchRequest,
    Location,
    Message,
    NotAProgram,
    OpFailed,
    Readiness,
    ReturnValue,
    StopEvent,
    Support,
    UnsupportedOp,
    UsageError,
    Variable,
)

#: Where Debian's ruby keeps its bundled gems' rdbg (not on PATH).
_GEM_RDBG = "/usr/lib/ruby/gems/*/gems/debug-*/exe/rdbg"
#: The file that makes the program's output unbuffered, and the one that
#: loads the program after rdbg's first stop (see them).
_SYNC = Path(__file__).parent / "rubyboot" / "dbg_sync.rb"
_LAUNCH = Path(__file__).parent / "rubyboot" / "dbg_launch.rb"
#: A method's definition: `def name`, `def self.name`, `def Klass.name`.
_DEF_RE = re.compile(r"^\s*def\s+(?:(?:self|[A-Z]\w*)\.)?([\w]+[?!=]?)")
#: An exception class as rdbg describes its catch stop: "#<NoMethodError: ...".
_RAISED_RE = re.compile(r"^#<([A-Z]\w*(?:::[A-Z]\w*)*)")
#: An exception class name as people write it.
_CLASS_RE = re.compile(r"^(?:::)?[A-Z]\w*(?:::[A-Z]\w*)*$")
#: What a failing test raises, which its runner rescues: rspec's failed
#: expectation, minitest's failed assertion (a skip is one too, and no failure).
TEST_FAILURES = ("RSpec::Expectations::ExpectationNotMetError", "Minitest::Assertion")
_NOT_FAILURES = ("Minitest::Skip",)
#: The names of the parameters of the method a frame runs ("" in a block,
#: whose own parameters Ruby does not list this way, or at the top level).
_PARAMETERS = ("(__method__ ? method(__method__).parameters.map(&:last).join(' ') : '') "
               "rescue ''")
#: Where Ruby's own library and installed gems live: a frame there is a
#: library's (its gem's name, or "ruby").
_GEM_PATH_RE = re.compile(r"/gems/(?:[\d.]+/)?(?:gems/)?([A-Za-z][\w-]*?)-\d[\w.]*/")
_RUBY_LIBS = ("/usr/lib/ruby/", "/usr/local/lib/ruby/", "/usr/share/rubygems-integration/",
              "/var/lib/gems/")


def find_rdbg() -> str | None:
    """rdbg on PATH, else the newest one among the gems of the system's ruby."""
    found = shutil.which("rdbg")
    if found:
        return found
    gems = sorted(glob.glob(_GEM_RDBG))
    return gems[-1] if gems else None


def _code_line(path: str, line: int) -> int:
    """The first line from ``line`` on that is code (not blank, not a
    comment): rdbg takes a breakpoint on any line and stops only on code."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return line
    for number in range(line, len(lines) + 1):
        text = lines[number - 1].strip()
        if text and not text.startswith("#"):
            return number
    return line


#: A top-level line that opens a definition (its body runs later, or not at
#: the top level), and the `end` that closes one at the left margin.
_OPENS_RE = re.compile(r"^(?:def|class|module)\b")
_SKIPPED_RE = re.compile(r"^(?:require|require_relative|load|end)\b")


def _first_statement(path: str) -> int:
    """The program's first top-level statement outside a def, class or
    module (which rdbg's line breakpoint on it would take as the method's
    call): where a launch stops at entry."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return 1
    inside = False
    for number, text in enumerate(lines, 1):
        if not text.strip() or text.lstrip().startswith("#") or text[0].isspace():
            continue
        if inside:
            inside = not text.startswith("end")
            continue
        if _OPENS_RE.match(text):
            one_line = re.search(r"\bend\s*(?:#.*)?$", text) is not None
            inside = not one_line and not re.match(r"^def\s+[\w.?!]+(?:\(.*\))?\s*=", text)
            continue
        if text.startswith("__END__"):
            break
        if not _SKIPPED_RE.match(text):
            return number
    return _code_line(path, 1)


class RdbgProfile(AdapterProfile):
    name = "rdbg"
    # rdbg has no stopOnEntry: dbg stops at the program's first line by a
    # line breakpoint (entry_line).
    entry_arguments: ClassVar[Message] = {}
    breaks_before_run = True
    # The program is rdbg's own process: it reads rdbg's stdin and writes
    # to rdbg's stdout.
    reads_stdin = True
    stdin_through_adapter = True
    adapter_is_program = True
    # rdbg's own words on stderr; the program's stderr is the rest.
    own_stderr_prefix = "DEBUGGER"
    # An unknown request raises inside rdbg's reader: it answers nothing more.
    safe_unknown_requests = False
    # rdbg's `evaluate` runs Ruby in every context (no debugger commands).
    print_context = "watch"
    raw_context = "repl"
    hints: ClassVar[dict[str, str]] = {
        "catch": " (rdbg 1.4 offers `any` and `RuntimeError`)",
        "memory-read": "Ruby has no memory to read; try `dbg raw 'OBJ.inspect'`",
        "memory-write": "Ruby has no memory to write; try `dbg raw 'NAME = VALUE'`",
        "modules": "rdbg's DAP server lists no modules; try `dbg raw '$LOADED_FEATURES'`",
        "sources": "rdbg's DAP server lists no sources; try `dbg raw '$LOADED_FEATURES'`",
        "disasm": "rdbg's DAP server has no disassembly; try "
                       "`dbg raw 'RubyVM::InstructionSequence.of(method(:NAME)).disasm'`",
    }

    def __init__(self, spec: BackendSpec) -> None:
        super().__init__(spec)
        self._request: LaunchRequest | None = None
        #: The classes `dbg catch` asked for (empty: every exception, or none).
        self._classes: list[str] = []
        #: A finish's own step on (see after_step), and the value the method
        #: returned, read at its end before that step.
        self._finishing = False
        self._returned_last: ReturnValue | None = None

    # rdbg runs the program itself; it attaches only to a program started
    # by `rdbg --open`, which dbg does not find.
    features: ClassVar[dict[str, Support]] = {"attach": "none", "return-value": "native"}

    def attach_arguments(self, request: AttachRequest) -> Message:
        raise UnsupportedOp("attach", "rdbg", "rdbg 1.4 attaches only to a program it started "
                            "itself: run it under dbg with `dbg start PROGRAM.rb`")

    def internal_frame(self, frame: Message) -> bool:
        # The launcher's frame below the program's <main> (its `load`).
        return (frame.get("source") or {}).get("path") == str(_LAUNCH)

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        return [ruby_library(str((f.get("source") or {}).get("path") or "")) for f in frames]

    def frames_args(self, backend: AdapterHost, frames: list[Message],
                    timeout: float) -> list[list[Variable] | None]:
        # rdbg shows a frame's arguments among its locals, in one scope: the
        # method's parameters (asked of Ruby) pick them out. A library's
        # frame and a block's are not asked (None: not known).
        shown: list[list[Variable] | None] = []
        for frame, library in zip(frames, self.library_frames(backend, frames, timeout),
                                  strict=True):
            if library is not None or self.internal_frame(frame) \
                    or str(frame.get("name", "")).startswith("block "):
                shown.append(None)
                continue
            try:
                names = backend.evaluate_in(frame, _PARAMETERS, timeout).strip().strip('"').split()
                scopes = backend.scopes(timeout, int(frame["id"])) if names else []
                rows = {str(v.get("name")): v for v in backend.variables(
                    int(scopes[0]["variablesReference"]), timeout)} if scopes else {}
            except DbgError:
                shown.append(None)
                continue
            shown.append([Variable(n, str(rows[n].get("value", "")), rows[n].get("type"))
                          for n in names if n in rows])
        return shown

    def program_frame(self, backend: AdapterHost, frames: list[Message],
                      timeout: float) -> int:
        # An exception raised inside a library (rspec's failed expectation,
        # a gem's error) is shown where the program called into it.
        return self.own_code_frame(backend, frames, timeout)

    def default_exception_filters(self, request: LaunchRequest) -> list[str]:
        # A test run stops where a test fails: at the raise of its failed
        # expectation or assertion, which the runner rescues (skip_stop
        # passes over every other exception).
        if not request.test:
            return super().default_exception_filters(request)
        self._classes = list(TEST_FAILURES)
        return ["any"]

    def after_step(self, backend: AdapterHost, op: str, event: StopEvent,
                   timeout: float) -> StopEvent:
        # rdbg's `finish` stops at the method's return (its `end`, with
        # _return among the locals); the other debuggers stop in the
        # caller, one step on.
        if op != "finish" or self._finishing or event.state != "stopped" or \
                event.reason != "step":
            return event
        returned = self._returned(backend, timeout)
        self._finishing = True
        try:
            stepped = backend.resume("next", timeout)
        finally:
            self._finishing = False
        self._returned_last = returned if stepped.state == "stopped" else None
        return stepped

    def return_value(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        # Read at the method's end, before the step on into the caller.
        returned, self._returned_last = self._returned_last, None
        return returned

    def _returned(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        """At a method's end after rdbg's finish: the value it returns, its
        `_return` row (None: not there)."""
        try:
            scopes = backend.scopes(timeout)
            rows = backend.variables(int(scopes[0]["variablesReference"]), timeout) \
                if scopes else []
        except DbgError:
            return None
        row = next((r for r in rows if r.get("name") in ("_return", "%return")), None)
        if row is None:
            return None
        kind = row.get("type")
        return ReturnValue(str(row.get("value", "")), str(kind) if kind else None)

    def frame_name(self, frame: Message) -> str | None:
        # The program's top level, which the launcher loads: `<main>`, as
        # Ruby names it when it runs the program itself.
        program = os.path.abspath(self._request.program) if self._request else None
        name = super().frame_name(frame)
        if name and name.endswith("<top (required)>") and \
                (frame.get("source") or {}).get("path") == program:
            return name.replace("<top (required)>", "<main>")  # also "block in <main>"
        return name

    def noise_variable(self, var: Message) -> bool:
        # rdbg's own rows: %self (the receiver), %return, %raised.
        return str(var.get("name", "")).startswith("%")

    # -- finding and starting it --------------------------------------------------

    def _exe(self) -> str | None:
        return find_rdbg()

    def check(self) -> Readiness:
        exe = self._exe()
        if exe is None:
            return Readiness(False, "rdbg not found (Ruby's debug gem)")
        if shutil.which("ruby") is None:
            return Readiness(False, "ruby not found")
        version = self.version()
        return Readiness(True, f"rdbg {version} ({exe})", version)

    def version(self) -> str:
        exe = self._exe()
        return version_of(exe, "--version") if exe else ""

    def check_program(self, program: Path) -> None:
        if program.is_dir() or program.suffix.lower() not in (".rb", ""):
            raise NotAProgram(f"{program} is not a Ruby program (a .rb file)",
                              "give the script: dbg start prog.rb")

    def adapter_cwd(self, request: LaunchRequest) -> str | None:
        # Asked just before rdbg starts: rdbg runs the program itself, so
        # its command line (argv) and environment need the request.
        self._request = request
        return request.cwd

    def argv(self) -> list[str]:
        exe = self._exe()
        ruby = shutil.which("ruby")
        if exe is None or ruby is None:
            raise UsageError("rdbg not found (Ruby's debug gem)", self.spec.install)
        request = self._request
        if request is None:
            # `dbg caps` asks the capabilities of a session with no program.
            program, args = ["-e", "sleep"], []
        else:
            program, args = [str(_LAUNCH), os.path.abspath(request.program)], list(request.args)
        # `-c`: rdbg runs this ruby command with the debugger loaded (its
        # RUBYOPT), so our -r file (unbuffered output) comes in too.
        return [exe, "--open", "--sock-path={socket}", "-c", "--", ruby, "-r", str(_SYNC),
                *program, *args]

    def adapter_env(self) -> dict[str, str] | None:
        if self._request is None or not self._request.env:
            return None
        return {**os.environ, **self._request.env}

    def launch_arguments(self, request: LaunchRequest) -> Message:
        # rdbg ignores launch's arguments: the program is on its command line.
        return {**self.spec.launch}

    def entry_line(self) -> Location | None:
        if self._request is None:
            return None
        program = os.path.abspath(self._request.program)
        return Location(program, _first_statement(program), None)

    def code_line(self, path: str, line: int) -> int | None:
        return _code_line(path, line) if path.endswith(".rb") else line

    # -- breakpoints ----------------------------------------------------------------

    def function_line(self, backend: AdapterHost, module: str | None, function: str,
                      timeout: float) -> tuple[str, int] | None:
        # rdbg 1.4 answers setFunctionBreakpoints and sets nothing: a method
        # of the program's own file gets a line breakpoint on its first line
        # of code, where rdbg's own `break Klass#name` stops.
        name = function.rsplit("#", 1)[-1].rsplit(".", 1)[-1]
        program = backend.program
        found: list[tuple[str, int]] = []
        if program:
            for path in sorted({program, *glob.glob(os.path.join(os.path.dirname(program),
                                                                   "*.rb"))}):
                try:
                    text = Path(path).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                for number, line in enumerate(text.splitlines(), 1):
                    match = _DEF_RE.match(line)
                    if match and match.group(1) == name:
                        found.append((path, _code_line(path, number + 1)))
        if not found:
            raise OpFailed(f"no method {function} in the program's .rb files; "
                           "rdbg 1.4's DAP server has no method breakpoints",
                           "break at FILE:LINE of the method's first line")
        return found[0]

    def before_set_breakpoints(self, backend: AdapterHost, path: str | None,
                               timeout: float) -> None:
        # rdbg's setBreakpoints adds the lines sent and never removes one:
        # its line breakpoints in the file go first (by Ruby in the stopped
        # frame, the only way in), and the request sends back those kept.
        # Before the first stop there are none to remove; while the program
        # runs a removed one stays until the next change at a stop.
        if not path or backend.state() != "stopped":
            return
        frames = backend.stack_frames(timeout, 1)
        if not frames:
            return
        quoted = json.dumps(path)
        backend.evaluate_in(frames[0], (
            "begin; s = ::DEBUGGER__::SESSION; all = s.instance_variable_get(:@bps); "
            f"p = (File.realpath({quoted}) rescue {quoted}); "
            "all.select { |_, b| b.is_a?(::DEBUGGER__::LineBreakpoint) && b.path == p }"
            ".each { |k, b| b.delete; all.delete(k) }; nil; rescue ::Exception; nil; end"),
            timeout)

    def catch(self, backend: AdapterHost, filters: list[str], timeout: float) -> list[str] | None:
        # rdbg's filters are `any` (every exception raised) and
        # `RuntimeError`; another class is `any` with the stops of other
        # classes skipped (skip_stop), as rdbg's own `catch CLASS` stops.
        classes = [f for f in filters if f not in ("any", "RuntimeError")]
        bad = [c for c in classes if not _CLASS_RE.match(c)]
        if bad:
            raise UsageError(f"{bad[0]!r} is neither an exception class nor a filter",
                             "give class names (NoMethodError, MyApp::Error) or any")
        self._classes = [] if "any" in filters else [c.lstrip(":") for c in classes]
        if not self._classes:
            return None
        sent = ["any"] if self._classes else []
        sent += [f for f in filters if f == "RuntimeError"]
        backend.dap_session().request("setExceptionBreakpoints", {"filters": sent}, timeout)
        backend.exception_filters = sent
        return list(filters)

    def skip_stop(self, backend: AdapterHost, reason: str, text: str, description: str,
                  timeout: float) -> bool:
        if reason != "exception" or not self._classes:
            return False
        match = _RAISED_RE.match(text or description)
        if match is None:
            return False
        raised = match.group(1)
        if raised in _NOT_FAILURES:
            return True
        if raised in self._classes:
            return False
        # A subclass of one asked for stops too: asked of the program.
        frames = backend.stack_frames(timeout)
        if not frames:
            return False
        test = " || ".join(f"(::{raised} <= ::{c})" for c in self._classes)
        try:
            answer = backend.dap_session().request("evaluate", {
                "expression": f"!!({test}) rescue false", "context": "watch",
                "frameId": frames[0]["id"]}, timeout)
        except DbgError:  # unreadable: keep the stop
            return False
        return str(answer.get("result")) != "true"

    def stop_description(self, text: str, description: str) -> str:
        # rdbg says "#<NoMethodError: MESSAGE> is raised." (with the
        # program's line after the message): say "NoMethodError: MESSAGE".
        shown = description or text
        if re.match(r"^\s*BP - ", shown):
            return ""  # a breakpoint's own description ("BP - Line FILE:3 (call)")
        match = re.match(r"^#<([A-Z][\w:]*): (.*?)>? is raised\.?$", shown, re.S)
        if match:
            return f"{match.group(1)}: {match.group(2).strip().splitlines()[0]}"
        return shown.strip()

    def assignment_expression(self, lhs: str, value: str) -> str | None:
        # rdbg has no setVariable; its evaluate runs Ruby in the frame's
        # binding, where an assignment changes the frame's own variable.
        return f"{lhs} = ({value})"

    def watch_hint(self) -> str:
        return ("rdbg 1.4's DAP server has no data breakpoints; break where NAME is "
                "assigned and `dbg print NAME`")


def ruby_library(path: str) -> str | None:
    """The gem (or "ruby", its standard library) whose file ``path`` is;
    None for the program's own."""
    found = _GEM_PATH_RE.search(path)
    if found:
        return found.group(1)
    if path.startswith(("/usr/bin/", "/usr/local/bin/")):
        return os.path.basename(path)  # a gem's command (rspec), not the program
    return "ruby" if path.startswith(_RUBY_LIBS) else None
