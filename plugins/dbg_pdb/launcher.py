"""Runs a Python program under pdb with its output kept apart from pdb's.

Started by the pdb backend inside a pseudo-terminal, by the *target's* Python
(so this file avoids syntax newer than Python 3.8):

    python launcher.py PROMPT STDOUT_FIFO STDERR_FIFO STDIN CATCH (-m MODULE | SCRIPT) [ARGS...]

STDIN is the file the program reads as its stdin (dbg's FIFO for `dbg input`,
the user's file, or /dev/null). CATCH is ``catch`` (stop post mortem on an
uncaught exception) or ``nocatch``. From the environment (taken out of the
program's): DBG_PDB_TEST=1, a test run (stop where a test fails: the
runner's hooks, see _stop_at_failures); DBG_PDB_COLUMNS and DBG_PDB_LINES,
the terminal size the program is told (default 80x24).

pdb keeps the terminal (a duplicate of its fds); the program's fds 1 and 2 go
to the FIFOs and its fd 0 is STDIN, so nothing the program prints can be
mistaken for pdb's answers and the program cannot read pdb's commands.

pdb itself is unchanged except for a sentinel prompt and a few extra
commands (all named ``_dbg_*``) that answer in JSON, framed as
``\\x1edbg:KIND:{json}\\x1f``: the stop location and stack at every stop,
locals, expression values, breakpoints. The program's end is reported the same
way with its exit code, instead of pdb's "will be restarted" loop.
"""

from __future__ import annotations

import ast
import bdb
import dis
import io
import json
import os
import pdb
import reprlib
import sys
import threading
import traceback
from types import CodeType, FrameType, ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    from collections.abc import Callable, Iterable

    from _typeshed import ExcInfo, OptExcInfo, TraceFunction

    #: What the launcher tells dbg, and what dbg's commands carry: JSON.
    Json = Any
    JsonObject = dict[str, Json]
    #: A SIGINT handler, as signal.signal takes and gives it back.
    SignalHandler = Callable[[int, FrameType | None], object] | int | None

FRAME_START = "\x1edbg:"
FRAME_END = "\x1f"
#: pdb's commands that change the breakpoints (see do__dbg_native).
BREAK_COMMANDS = ("break", "b", "tbreak", "clear", "cl", "ignore", "condition", "disable",
                  "enable")
HERE = os.path.abspath(__file__)
#: launch.py, which the backend runs: it loads this file from its bytecode.
BOOT = os.path.join(os.path.dirname(HERE), "launch.py")
#: The name dbg's tracer (dbgcore/inprogram/pytrace.py) is loaded under in the program.
_PYTRACE = "_dbg_pytrace"

_short = reprlib.Repr()
_short.maxlevel = 3
_short.maxlist = _short.maxtuple = _short.maxset = _short.maxfrozenset = 50
_short.maxdeque = _short.maxarray = 50
_short.maxdict = 30
_short.maxstring = 300
_short.maxother = 300
_short.maxlong = 200


#: The most of one value's repr that `print` and `set` answer: a full repr of
#: a 10 MB string or a million-element list is megabytes through the
#: terminal and seconds of pexpect matching, and no one reads it there.
VALUE_LIMIT = 4096

_long = reprlib.Repr()
_long.maxlevel = 6
_long.maxlist = _long.maxtuple = _long.maxset = _long.maxfrozenset = 500
_long.maxdeque = _long.maxarray = 500
_long.maxdict = 250
_long.maxstring = VALUE_LIMIT
_long.maxother = VALUE_LIMIT
_long.maxlong = VALUE_LIMIT


def _safe_repr(value: object, short: bool) -> str:
    try:
        if short:
            return _short.repr(value)
        return _bounded_repr(value)
    except Exception as exc:  # a broken __repr__ must not break the debugger
        return "<repr failed: %s: %s>" % (type(exc).__name__, exc)


def _bounded_repr(value: object) -> str:
    """The repr of ``value``, cut to VALUE_LIMIT characters; a value shown in
    part says how long it is in full (items of a container, characters of a
    string), the way debugpy shows a bounded repr."""
    text = _long.repr(value)
    partial = len(text) > VALUE_LIMIT
    if partial:
        text = text[:VALUE_LIMIT] + "..."
    size = _size_of(value)
    if isinstance(value, (str, bytes, bytearray)):
        # reprlib abbreviates a string in the middle: compare with the whole
        # repr, cheap for a string this short.
        partial = partial or len(value) > VALUE_LIMIT or text != repr(value)
    elif isinstance(value, dict):
        partial = partial or len(value) > _long.maxdict
    elif isinstance(value, (list, tuple, set, frozenset)):
        partial = partial or len(value) > _long.maxlist
    if partial and size is not None:
        text += " (%s of %d %s; shown in part)" % (_type_name(value), size[0], size[1])
    elif partial:
        text += " (shown in part)"
    return text


def _size_of(value: object) -> tuple[int, str] | None:
    if isinstance(value, str):
        return len(value), "characters"
    if isinstance(value, (bytes, bytearray)):
        return len(value), "bytes"
    try:
        return len(value), "items"  # type: ignore[arg-type]
    except Exception:
        return None


def _type_name(value: object) -> str:
    kind = type(value)
    if kind.__module__ in ("builtins", "__main__"):
        return kind.__qualname__
    return "%s.%s" % (kind.__module__, kind.__qualname__)


def _error_line(exc: BaseException) -> str:
    # format_exception_only gives a SyntaxError several lines (the source, a
    # caret); an error dbg reports is one line, and the last one says what.
    lines = traceback.format_exception_only(type(exc), exc)
    return lines[-1].strip() if lines else type(exc).__name__


def _internal(frame: FrameType) -> bool:
    name = frame.f_code.co_filename
    return name in (HERE, BOOT, "<string>") or name == bdb.__file__


#: Why bdb could not evaluate a breakpoint's condition, since the last stop:
#: bdb then stops as if the condition held ("the most conservative thing").
_condition_errors: list[str] = []


def _condition_eval(source: str | CodeType, globals: dict[str, object] | None = None,
                    locals: dict[str, object] | None = None) -> object:
    try:
        return eval(source, globals, locals)
    except Exception as exc:
        if sys._getframe(1).f_code.co_name == "effective":
            _condition_errors[:] = [_error_line(exc)]
        raise


# bdb.effective evaluates conditions by the name `eval`: a module global of
# that name comes first, and notes why a condition failed.
bdb.eval = _condition_eval  # type: ignore[attr-defined]


class _Interrupted(BaseException):
    """An expression dbg evaluates ran past its --timeout: dbg sent SIGINT."""

    def __str__(self) -> str:
        return "interrupted: the expression ran past dbg's --timeout"


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise _Interrupted()


def _swallow_late(signum: int, frame: FrameType | None) -> None:
    """A SIGINT dbg sent just as an evaluation ended: dropped, or pdb would
    answer it at its prompt with a second prompt dbg did not ask for."""


class _Interruptible:
    """While an expression runs, SIGINT (dbg's interrupt at --timeout) raises
    _Interrupted in it; after it, until the next command comes, a late SIGINT
    is dropped. The program's own handler is back before any other command
    runs (see precmd), so a `continue` sees it."""

    saved: SignalHandler = None

    def __enter__(self) -> None:
        import signal

        try:
            previous = signal.signal(signal.SIGINT, _raise_interrupted)
        except ValueError:  # not the main thread: no interrupting then
            return
        if _Interruptible.saved is None:
            _Interruptible.saved = previous if previous is not None else signal.SIG_DFL

    def __exit__(self, *exc: object) -> None:
        import signal

        if _Interruptible.saved is not None:
            signal.signal(signal.SIGINT, _swallow_late)

    @staticmethod
    def restore() -> None:
        import signal

        if _Interruptible.saved is not None:
            signal.signal(signal.SIGINT, _Interruptible.saved)
            _Interruptible.saved = None


class DbgPdb(pdb.Pdb):
    def __init__(self, console_in: TextIO, console_out: TextIO) -> None:
        pdb.Pdb.__init__(self, stdin=console_in, stdout=console_out)
        self.use_rawinput = False
        self.first_stop = True
        self.post_mortem = False
        #: One stop at a time: pdb has one console, and a thread that fails
        #: (thread_failure) may stop while another thread is stopped.
        self.stopping = threading.RLock()
        self.interrupted = False
        self.exception_text = ""
        self.exception_name = ""
        self.exception_message = ""
        self.traceback_text = ""
        #: The frame `finish` runs out of, and what it gave back when it did.
        self.finish_frame: FrameType | None = None
        self.returned: JsonObject | None = None
        #: What `dbg catch` stops on (None: nothing), and the description
        #: of the stop it made.
        self.catching: _Catch | None = None
        self.catch_note = ""
        #: An exception a step, next or finish went through, as its stop says it.
        self.passed_note = ""
        #: Stopped post mortem on a failed test (test_failure).
        self.test_stop = False
        #: Stop post mortem where an uncaught exception ends the program.
        self.stop_uncaught = True
        #: The frame whose last event was an exception, and that exception:
        #: while it is there, the frame is leaving by it unless a line of
        #: the frame runs next (its handler).
        self.raising: tuple[FrameType, ExcInfo] | None = None
        #: The exception `dbg exception` tells of, as _exception_info gives it.
        self.exception_info: JsonObject | None = None
        #: `dbg watch`: dbgcore/inprogram/pywatch.py loaded from the path dbg gives
        #: (it keeps each watch's frame, code and last value), the watches
        #: by id, and those whose value changed at this stop.
        self.pywatch: ModuleType | None = None
        self.watches: dict[int, str] = {}
        self.watch_hits: list[int] = []

    def emit(self, kind: str, data: JsonObject) -> None:
        self.stdout.write(FRAME_START + kind + ":" + json.dumps(data) + FRAME_END + "\n")
        self.stdout.flush()

    # -- the stop report, sent before the prompt of every stop ---------------

    def preloop(self) -> None:
        try:
            state = self._state(stop=True)
            # What dbg reads at every stop comes with it: one exchange a stop.
            state["locals"] = self._locals()
            state["breaks"] = self._breaks()
        except Exception as exc:  # never take the program down with us
            state = {"frames": [], "reason": "step", "error": repr(exc)}
        self.emit("stop", state)

    def _user_frames(self) -> list[tuple[int, tuple[FrameType, int]]]:
        return [(i, entry) for i, entry in enumerate(self.stack) if not _internal(entry[0])]

    def do__dbg_args(self, arg: str) -> None:
        """The arguments of the frames at these positions of `_state`'s
        list (innermost first), asked only for the frames dbg shows."""
        frames = [entry[0] for _, entry in reversed(self._user_frames())]
        out = {}
        for position in self._arg(arg):
            if 0 <= position < len(frames):
                frame = frames[position]
                names = self.curframe_locals if frame is self.curframe else frame.f_locals
                out[str(position)] = [
                    {"name": name, "value": _safe_arg(names[name]), "type": _type_name(names[name])}
                    for name in _argument_names(frame.f_code) if name in names]
        self.emit("args", {"args": out})

    def _state(self, stop: bool = False) -> JsonObject:
        frames = []
        user = self._user_frames()
        for position, (i, (frame, lineno)) in enumerate(reversed(user)):
            frames.append({
                "index": position,
                "function": frame.f_code.co_name,
                "file": self.canonic(frame.f_code.co_filename),
                "line": lineno,
                "current": i == self.curindex,
            })
        data: JsonObject = {"frames": frames}
        if stop:
            current = self.curframe
            broken = _condition_errors[:1]
            del _condition_errors[:]
            if self.returned is not None:
                reason = "step"
                data["return_value"] = self.returned
                self.returned = None
            elif self.post_mortem or self.catch_note:
                reason = "exception"
            elif self.first_stop:
                reason = "entry"
            elif self.interrupted:
                reason = "pause"
            elif self.watch_hits:
                reason = "watchpoint"
            elif getattr(self, "currentbp", 0):
                reason = "condition_error" if broken else "breakpoint"
            elif current is not None and "__return__" in current.f_locals:
                reason = "return"
            else:
                reason = "step"
            data["reason"] = reason
            data["breakpoint"] = getattr(self, "currentbp", 0) or None
            data["watches"], self.watch_hits = self.watch_hits, []
            note = self._stop_note()
            data["description"] = broken[0] if reason == "condition_error" else note
            data["post_mortem"] = self.post_mortem
            self.first_stop = False
            self.interrupted = False
            self.currentbp = 0
        return data

    # -- a pause must work after next/step too, not only after continue -------

    def sigint_handler(self, signum: int, frame: FrameType | None) -> None:
        self.interrupted = True
        pdb.Pdb.sigint_handler(self, signum, frame)  # type: ignore[arg-type]

    def _catch_sigint(self) -> None:
        import signal

        if not getattr(self, "nosigint", False):
            try:
                signal.signal(signal.SIGINT, self.sigint_handler)
            except ValueError:
                pass

    def do_next(self, arg: str) -> bool | None:
        self._catch_sigint()
        return pdb.Pdb.do_next(self, arg)

    def do_step(self, arg: str) -> bool | None:
        self._catch_sigint()
        return pdb.Pdb.do_step(self, arg)

    def user_call(self, frame: FrameType, argument_list: None) -> None:
        """pdb stops a step into a call at the function's `def` line
        ("--Call--"); every other debugger stops at its first line. Not
        stopping here lets the step go on to that line's event."""
        return

    def do_return(self, arg: str) -> bool | None:
        self._catch_sigint()
        return pdb.Pdb.do_return(self, arg)

    def do_until(self, arg: str) -> bool | None:
        self._catch_sigint()
        return pdb.Pdb.do_until(self, arg)

    do_n = do_next
    do_s = do_step
    do_r = do_return
    do_unt = do_until

    # -- finish: out of the selected frame, stopping in its caller -------------

    def do__dbg_finish(self, arg: str) -> bool | None:
        """Run until the selected frame returns (or, a generator, yields)
        and stop in its caller, noting the value. bdb ignores a generator's
        return events unless stepping, so dispatch_return watches for it."""
        frame = self.curframe
        assert frame is not None
        self._catch_sigint()
        self.finish_frame = frame
        # A frame bdb did not trace when it was called (no breakpoint in its
        # file then) sends no return event unless it is traced now.
        frame.f_trace = self.trace_dispatch
        # Stop nowhere else but breakpoints until then: its caller is the
        # stop frame, reached only after it returns.
        self._set_stopinfo(frame.f_back, frame)  # type: ignore[attr-defined]
        return True

    def dispatch_return(self, frame: FrameType, arg: object) -> TraceFunction:
        if frame is not self.finish_frame:
            result = bdb.Bdb.dispatch_return(self, frame, arg)
            if self.raising is not None and self.raising[0] is frame:
                self.raising = None  # it goes on in the caller, if anywhere
            return result
        self.finish_frame = None
        caller = frame.f_back
        if caller is None or _internal(caller):
            return bdb.Bdb.dispatch_return(self, frame, arg)
        if self.raising is not None and self.raising[0] is frame:
            # It returns nothing: an exception takes it out (the return
            # event's value is None either way). Like a step, follow it to
            # the line that handles it; that stop names it.
            self.passed_note = _passing_note(self.raising[1])
            self.raising = None
            caller.f_trace = self.trace_dispatch
            caller.f_trace_lines = True
            self._set_stopinfo(None, None)  # type: ignore[attr-defined]
            return self.trace_dispatch
        self.returned = {"value": _safe_repr(arg, True), "type": _type_name(arg),
                         "kind": _how_it_left(frame)}
        caller.f_trace = self.trace_dispatch  # so that `next` from there stops in it
        self.interaction(caller, None)
        if self.quitting:
            raise bdb.BdbQuit
        return self.trace_dispatch

    # -- breakpoints by function name on decorated functions ------------------

    def lineinfo(self, identifier: str) -> tuple[None, None, None] | tuple[str, str, int]:
        # pdb files a breakpoint set by the name of a not-yet-defined function
        # under its `def` line, but bdb matches it against the code's
        # co_firstlineno, which is the first decorator's line: on a decorated
        # function it would never stop.
        found = pdb.Pdb.lineinfo(self, identifier)
        funcname, filename, lineno = found
        if funcname and filename and lineno:
            return funcname, filename, _first_decorator_line(filename, int(lineno))
        return found

    # -- structured answers ---------------------------------------------------

    def _arg(self, arg: str) -> Json:
        # Arguments are Python literals on one line: a repr'd string cannot
        # carry a newline, so it cannot smuggle in a second command.
        return ast.literal_eval(arg.strip())

    def precmd(self, line: str) -> str:
        # dbg's own commands carry user text (expressions, conditions) inside
        # one Python literal. pdb's precmd would cut the line at ';;' and run
        # the rest as a second command (and from 3.12 rewrite `$name`), so
        # they skip it; everything else (`dbg raw`) gets pdb's usual handling.
        _Interruptible.restore()
        if line.startswith("_dbg_"):
            return line
        return pdb.Pdb.precmd(self, line)

    def do__dbg_long(self, arg: str) -> bool | None:
        """Run the command line dbg left in a file: longer than a terminal
        line may be. The file is read once and removed."""
        path = self._arg(arg)
        with open(path, encoding="utf-8") as fh:
            line = fh.read()
        os.unlink(path)
        return self.onecmd(self.precmd(line))

    def do__dbg_native(self, arg: str) -> bool | None:
        """Run one native pdb command, given as a literal, as one command;
        one that changes the breakpoints answers with them too (dbg lists
        them after each: one exchange less)."""
        line = self._arg(arg)
        done = self.onecmd(line)
        if line.split(" ", 1)[0] in BREAK_COMMANDS:
            self.emit("breaks", self._breaks())
        return done

    def do__dbg_state(self, arg: str) -> None:
        self.emit("state", self._state())

    def do__dbg_locals(self, arg: str) -> None:
        self.emit("locals", self._locals())

    def _locals(self) -> JsonObject:
        names = self.curframe_locals if self.curframe is not None else {}
        out = []
        for name, value in list(names.items()):
            if name.startswith("__") and name.endswith("__") and name not in (
                    "__return__", "__exception__"):
                continue
            out.append({"name": name, "value": _safe_repr(value, True),
                        "type": _type_name(value)})
        return {"variables": out}

    def _eval(self, expression: str) -> object:
        frame = self.curframe
        assert frame is not None
        return eval(expression, frame.f_globals, self.curframe_locals)

    def do__dbg_eval(self, arg: str) -> None:
        try:
            with _Interruptible():
                value = self._eval(self._arg(arg))
                text = _safe_repr(value, False)
        except BaseException as exc:
            self.emit("value", {"error": _error_line(exc)})
            return
        self.emit("value", {"value": text, "type": _type_name(value)})

    def do__dbg_set(self, arg: str) -> None:
        lhs, rhs = self._arg(arg)
        try:
            with _Interruptible():
                value = self._eval(rhs)
                if isinstance(ast.parse(lhs, mode="eval").body, ast.Name):
                    # A plain name goes into the frame's own namespace; CPython
                    # copies it back into the running frame when pdb resumes.
                    self.curframe_locals[lhs] = value  # type: ignore[index]
                else:
                    namespace = dict(self.curframe_locals)
                    namespace["__dbg_value__"] = value
                    assert self.curframe is not None
                    exec(compile("%s = __dbg_value__" % lhs, "<dbg set>", "exec"),
                         self.curframe.f_globals, namespace)
                result = self._eval(lhs)
                text = _safe_repr(result, False)
        except BaseException as exc:
            self.emit("value", {"error": _error_line(exc)})
            return
        self.emit("value", {"value": text, "type": _type_name(result)})

    def do__dbg_compile(self, arg: str) -> None:
        """Whether a condition compiles, in the program's own Python."""
        try:
            compile(self._arg(arg), "<condition>", "eval")
        except SyntaxError as exc:
            self.emit("compiled", {"error": "%s: %s" % (type(exc).__name__, exc.msg)})
            return
        self.emit("compiled", {})

    def do__dbg_modules(self, arg: str) -> None:
        """Files of the loaded modules named NAME."""
        name = "/" + self._arg(arg)
        files = [f for m in list(sys.modules.values())
                 for f in [getattr(m, "__file__", None)] if isinstance(f, str) and f.endswith(name)]
        self.emit("modules", {"files": files})

    def do__dbg_exception(self, arg: str) -> None:
        info = self.exception_info if self.post_mortem or self.catch_note else None
        self.emit("exception", dict(info or {}, post_mortem=self.post_mortem))

    def do__dbg_breaks(self, arg: str) -> None:
        self.emit("breaks", self._breaks())

    def _breaks(self) -> JsonObject:
        out = []
        for bp in bdb.Breakpoint.bpbynumber:
            if bp is None:
                continue
            out.append({"id": bp.number, "file": bp.file, "line": bp.line,
                        "function": bp.funcname, "condition": bp.cond, "hits": bp.hits,
                        "ignore": bp.ignore, "temporary": bool(bp.temporary),
                        "enabled": bool(bp.enabled)})
        return {"breakpoints": out, "watches": self._watch_list()}

    def do__dbg_findfunc(self, arg: str) -> None:
        module, function = self._arg(arg)
        try:
            import importlib.util

            spec = importlib.util.find_spec(module)
            if spec is None or not spec.origin or not spec.origin.endswith(".py"):
                raise LookupError("module %s has no Python source" % module)
            tree = ast.parse(_read_source(spec.origin), spec.origin)
            parts = function.split(".")
            nodes = tree.body
            found = None
            for part in parts:
                found = next((n for n in nodes if isinstance(
                    n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part),
                    None)
                if found is None:
                    raise LookupError("no function %s in module %s" % (function, module))
                nodes = found.body
            assert found is not None
            self.emit("found", {"file": spec.origin, "line": found.lineno})
        except BaseException as exc:
            self.emit("found", {"error": _error_line(exc)})

    # -- dbg trace: a profile hook in the program (dbgcore/inprogram/pytrace.py) ----------
    # (loaded as _PYTRACE, the name its own MODULE_NAME says)

    def do__dbg_trace(self, arg: str) -> None:
        """``("on", PYTRACE, FILE, FUNCTIONS, LINES, MAX, CHARS)``: load the
        tracer from the path dbg gives and start it; ``("off",)``: stop it,
        putting back the hooks there were."""
        request = self._arg(arg)
        try:
            if request[0] == "on":
                _, path, out, functions, lines, max_calls, chars = request
                # Kept in sys.modules for the command that stops it.
                tracer = _load_helper(_PYTRACE, path)
                answer = tracer.install(out, functions, lines, max_calls, chars)
            else:
                running = sys.modules.get(_PYTRACE)
                answer = running.uninstall() if running is not None else {}
        except Exception as exc:
            self.emit("trace", {"error": _error_line(exc)})
            return
        self.emit("trace", answer)

    # -- exceptions: `dbg catch`, failing tests, steps they pass through -------

    def _stop_note(self) -> str:
        """The description of this stop: the exception it is at, or the one
        the step that led here went through (once)."""
        note = self.passed_note
        self.passed_note = ""
        if self.post_mortem:
            return self.exception_text
        return self.catch_note or note

    def do__dbg_catch(self, arg: str) -> None:
        names, raised, uncaught, all_code = self._arg(arg)
        # A name without its module must be a class there is (a typo would
        # never stop); one with its module may be of a module not loaded yet.
        unknown = [n for n in names if "." not in n and not _loaded_classes(n)]
        if unknown:
            self.emit("catch", {"unknown": unknown})
            return
        self.catching = _Catch(names, raised, all_code) if names or raised else None
        self.stop_uncaught = bool(uncaught)
        self.emit("catch", {})

    def set_continue(self) -> None:
        if self.catching is None and not self.watches:
            bdb.Bdb.set_continue(self)
            return
        # A catch needs every frame's exception events, a watch its frame's
        # line events: unlike bdb with no breakpoint left, go on tracing.
        self._set_stopinfo(self.botframe, None, -1)  # type: ignore[attr-defined]
        if sys.gettrace() is None:
            self._trace_running_frames()

    def _trace_running_frames(self) -> None:
        """Trace the program's frames that run now, and all it calls."""
        sys.settrace(self.trace_dispatch)
        frame = sys._getframe().f_back
        while frame is not None and frame is not self.botframe:
            if frame.f_trace is None and not _debugger_frame(frame):
                frame.f_trace = self.trace_dispatch
                frame.f_trace_lines = False
            frame = frame.f_back

    # typeshed says a TraceFunction; bdb answers None for a frame it does not trace.
    def dispatch_call(self, frame: FrameType,  # type: ignore[override]
                      arg: None) -> TraceFunction | None:
        traced: TraceFunction | None = bdb.Bdb.dispatch_call(self, frame, arg)
        if traced is None and self.catching is not None and not self.quitting:
            # Nothing to stop at in it but an exception: its exception
            # events, without the cost of its line events.
            frame.f_trace_lines = False
            return self.trace_dispatch
        return traced

    def interaction(self, frame: FrameType | None,
                    traceback: TracebackType | BaseException | None) -> None:
        # A step from this stop may come back to any frame of its stack:
        # they send line events again (dispatch_call may have muted them).
        caller = frame
        while caller is not None:
            caller.f_trace_lines = True
            caller = caller.f_back
        # A traceback, or from Python 3.13 on the exception itself (the stub
        # mypy reads is 3.10's).
        with self.stopping:
            pdb.Pdb.interaction(self, frame, traceback)  # type: ignore[arg-type]

    def dispatch_line(self, frame: FrameType) -> TraceFunction:
        if self.raising is not None and self.raising[0] is frame:
            self.raising = None  # the frame handled it
        if self.watches and self.pywatch is not None and not self.quitting:
            check = self.pywatch.check
            hits = [number for number in self.watches if check(number, frame)]
            if hits:
                # The statement that changed it has run: stop at this line,
                # as gdb's software watchpoints do. A breakpoint of the
                # user's on this line counts as hit too (break_here notes it).
                self.watch_hits = hits
                self.break_here(frame)
                self.interaction(frame, None)
                if self.quitting:
                    raise bdb.BdbQuit
                return self.trace_dispatch
        return bdb.Bdb.dispatch_line(self, frame)

    # -- dbg watch: the expression checked at each line of its frame ----------

    def do__dbg_watch(self, arg: str) -> None:
        path, number, expression = self._arg(arg)
        frame = self.curframe
        try:
            if frame is None or self.post_mortem:
                raise LookupError("no running frame to watch in")
            if self.pywatch is None:
                self.pywatch = _load_helper("_dbg_pywatch", path)
            placed = self.pywatch.add(number, expression, frame=frame)
        except BaseException as exc:
            said = str(exc) if type(exc).__name__ == "WatchRefused" else _error_line(exc)
            self.emit("watch", {"error": said})
            return
        self.watches[number] = expression
        # Its line events, even if bdb did not trace it when it was called.
        frame.f_trace = self.trace_dispatch
        frame.f_trace_lines = True
        self.emit("watch", dict(placed, expression=expression))

    def do__dbg_unwatch(self, arg: str) -> None:
        number = self._arg(arg)
        self.watches.pop(number, None)
        if self.pywatch is not None:
            self.pywatch.remove(number)
        self.emit("unwatch", {})

    def _watch_list(self) -> list[JsonObject]:
        if not self.watches or self.pywatch is None:
            return []
        gone = set(self.pywatch.not_running(list(self.watches)))
        return [{"id": number, "expression": expression, "running": number not in gone}
                for number, expression in self.watches.items()]

    def dispatch_exception(self, frame: FrameType, arg: ExcInfo) -> TraceFunction:
        self.raising = (frame, arg)
        if self.catching is not None and not self.quitting and self._caught(frame, arg):
            self.catch_note = _passing_note(arg, frame)
            self.exception_info = _exception_info(arg[1], arg[2], frame)
            try:
                self.interaction(frame, None)
            finally:
                self.catch_note = ""
            if self.quitting:
                raise bdb.BdbQuit
            return self.trace_dispatch
        return bdb.Bdb.dispatch_exception(self, frame, arg)

    def _caught(self, frame: FrameType, arg: ExcInfo) -> bool:
        """Whether a catch stops at this exception event: one of its classes,
        in the first frame of the program's own code it reaches (of any
        code's with --all-code), which is where it was raised unless it came
        out of a library."""
        catch = self.catching
        assert catch is not None
        kind, _, tb = arg
        if not catch.matches(kind) or _debugger_frame(frame) or not catch.code(frame):
            return False
        inner = tb.tb_next if tb is not None and tb.tb_frame is frame else tb
        while inner is not None:
            if not _debugger_frame(inner.tb_frame) and catch.code(inner.tb_frame):
                return False  # it was there first
            inner = inner.tb_next
        return True

    def user_exception(self, frame: FrameType, exc_info: ExcInfo) -> None:
        """A step does not stop where an exception passes (pdb stops at
        each frame it leaves): it goes on to the line that handles it, and
        that stop names the exception."""
        if exc_info[0] in (StopIteration, GeneratorExit):
            pdb.Pdb.user_exception(self, frame, exc_info)  # a generator's way to end
            return
        if not self.passed_note:
            self.passed_note = _passing_note(exc_info)

    def user_return(self, frame: FrameType, return_value: object) -> None:
        if self.raising is not None and self.raising[0] is frame:
            return  # leaving by an exception, which the step follows
        pdb.Pdb.user_return(self, frame, return_value)

    def test_failure(self, kind: type[BaseException] | None, exc: BaseException | None,
                     tb: TracebackType | None) -> None:
        """A test failed (the runner caught ``exc``): stop post mortem in the
        frame that raised it; the runner goes on when the user continues."""
        if exc is None or tb is None or self.quitting:
            return
        self._stop_and_go_on(exc, _from_program(tb), test=True)
        if self.quitting:
            raise bdb.BdbQuit
        if sys.gettrace() is None and (self.breaks or self.catching is not None):
            self._trace_running_frames()  # for the breakpoints and catches there are now

    def thread_failure(self, exc: BaseException | None, tb: TracebackType | None) -> None:
        """An exception ended a thread other than the main one (threading's
        excepthook, after Python's report of it): stop post mortem where it
        was raised, as for the main thread; the program goes on when the
        user continues."""
        if exc is None or tb is None or self.quitting or not self.stop_uncaught \
                or isinstance(exc, SystemExit):
            return
        # Its traceback from the program's own code (not threading's start).
        self._stop_and_go_on(exc, _from_program(tb), test=False)

    def _stop_and_go_on(self, exc: BaseException, shown: TracebackType | None,
                        test: bool) -> None:
        """Stop post mortem at ``exc``, in a program that goes on after."""
        with self.stopping:
            # Not traced while stopped here: a step set before would stop in
            # the debugger's own code.
            sys.settrace(None)
            self._set_stopinfo(self.botframe, None, -1)  # type: ignore[attr-defined]
            self._describe(exc, shown)
            self.post_mortem = True
            self.test_stop = test
            try:
                self.interaction(None, shown)
            finally:
                self.post_mortem = False
                self.test_stop = False
                self.exception_info = None

    def _describe(self, exc: BaseException, shown: TracebackType | None) -> None:
        worker = _pyrepr.worker_place(exc) if _pyrepr is not None else ""
        self.exception_text = _exception_line(exc) + (
            " (raised in %s, in a worker process)" % worker if worker else "")
        self.exception_name = type(exc).__name__
        self.exception_message = str(exc)
        self.exception_info = _exception_info(exc, shown)

    # pdb's setup answers whether a .pdbrc command resumed the program (then
    # interaction is skipped); typeshed says it answers nothing.
    def setup(self, frame: FrameType | None,  # type: ignore[override]
              tb: TracebackType | None) -> bool | None:
        base: Callable[[pdb.Pdb, FrameType | None, TracebackType | None], bool | None] = \
            pdb.Pdb.setup
        stopped = base(self, frame, tb)
        if frame is None and tb is not None and self.test_stop:
            # Post mortem on a failed test: in the innermost frame of the
            # program's own code, not in a library it called (pytest.fail,
            # a json decoder): the stack below it stays in view.
            for index in range(len(self.stack) - 1, -1, -1):
                candidate = self.stack[index][0]
                if not _debugger_frame(candidate) and \
                        not _library_file(candidate.f_code.co_filename):
                    self.curindex = index
                    self.curframe = candidate
                    self.curframe_locals = candidate.f_locals
                    break
        return stopped


def _load_helper(name: str, path: str) -> ModuleType:
    """One of dbgcore's modules that run in the program (pywatch, pytrace,
    pyrepr, libfiles), from the path dbg gives (dbg's package is not on the program's
    path), as a module of its own: ``name`` in sys.modules."""
    import importlib.util

    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # dbg's own bytecode is written even where the program's is not (as
    # launch.py does for this file): not compiled again at every start.
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = dont_write
    return module


def _argument_names(code: CodeType) -> list[str]:
    """A function's parameters in the order its `def` line gives them:
    positional, *args, keyword-only, **kwargs (the code object keeps *args
    after the keyword-only ones). A comprehension's hidden `.0` is left out."""
    positional = list(code.co_varnames[:code.co_argcount])
    end = code.co_argcount + code.co_kwonlyargcount
    keyword_only = list(code.co_varnames[code.co_argcount:end])
    star = []
    if code.co_flags & 0x04:  # CO_VARARGS
        star.append(code.co_varnames[end])
        end += 1
    double_star = [code.co_varnames[end]] if code.co_flags & 0x08 else []  # CO_VARKEYWORDS
    return [n for n in positional + star + keyword_only + double_star if not n.startswith(".")]


#: Arguments are shown on one line per frame: kept short (and cheap) here.
_arg_repr = reprlib.Repr()
_arg_repr.maxlevel = 2
_arg_repr.maxlist = _arg_repr.maxtuple = _arg_repr.maxset = _arg_repr.maxfrozenset = 6
_arg_repr.maxdeque = _arg_repr.maxarray = _arg_repr.maxdict = 6
_arg_repr.maxstring = _arg_repr.maxother = _arg_repr.maxlong = 60


def _safe_arg(value: object) -> str:
    try:
        return _arg_repr.repr(value)
    except Exception as exc:  # a broken __repr__ must not break the debugger
        return "<repr failed: %s: %s>" % (type(exc).__name__, exc)


def _how_it_left(frame: FrameType) -> str:
    """"yielded" if a generator's frame is leaving at a yield, else "returned"."""
    flags = frame.f_code.co_flags
    if not flags & (0x20 | 0x80 | 0x200):  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
        return "returned"
    code = frame.f_code.co_code
    if 0 <= frame.f_lasti < len(code) and dis.opname[code[frame.f_lasti]].startswith("RETURN"):
        return "returned"
    return "yielded"


#: A source file larger than this is not parsed (dbg's bound for sources).
MAX_SOURCE_BYTES = 8 * 1024 * 1024


def _read_source(path: str) -> str:
    """The text of the regular file ``path`` of at most MAX_SOURCE_BYTES;
    OSError for anything else (a FIFO must not block, /dev/zero not fill
    memory)."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            raise OSError("%s is not a regular file of at most %d bytes"
                          % (path, MAX_SOURCE_BYTES))
        data = os.read(fd, MAX_SOURCE_BYTES + 1)
    finally:
        os.close(fd)
    return data.decode("utf-8")


def _first_decorator_line(filename: str, def_line: int) -> int:
    """The line of the first decorator of the function defined at ``def_line``
    (``def_line`` itself when it has none, or the file cannot be parsed)."""
    try:
        tree = ast.parse(_read_source(filename), filename)
    except (OSError, SyntaxError, ValueError):
        return def_line
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.lineno == def_line and node.decorator_list:
            return min(d.lineno for d in node.decorator_list)
    return def_line


def _console_streams() -> tuple[TextIO, TextIO]:
    console_in = io.TextIOWrapper(io.FileIO(os.dup(0), "r"), encoding="utf-8",
                                  errors="replace")
    console_out = io.TextIOWrapper(io.FileIO(os.dup(1), "w"), encoding="utf-8",
                                   errors="backslashreplace", line_buffering=True)
    return console_in, console_out


def _program_streams(stdin: str, stdout_fifo: str, stderr_fifo: str) -> None:
    # dbg's FIFO opens at once: dbg holds its write end open.
    source = os.open(stdin, os.O_RDONLY)
    os.dup2(source, 0)
    os.close(source)
    for fd, path in ((1, stdout_fifo), (2, stderr_fifo)):
        target = os.open(path, os.O_WRONLY)
        os.dup2(target, fd)
        os.close(target)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True,
                                  write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True,
                                  write_through=True)


def _statement(is_module: bool, target: str,
               debugger: DbgPdb) -> tuple[CodeType, dict[str, object]]:
    """Set up __main__ like `python SCRIPT` / `python -m MODULE` would, and
    return the statement for bdb to run."""
    import runpy

    import __main__

    if is_module:
        _, spec, code = runpy._get_module_details(target)  # type: ignore[attr-defined]
        filename = code.co_filename
        namespace = {"__name__": "__main__", "__file__": filename, "__package__": spec.parent,
                     "__loader__": spec.loader, "__spec__": spec,
                     "__builtins__": __builtins__}
        sys.argv[0] = filename
        sys.path[0] = os.getcwd()
    else:
        filename = os.path.realpath(target)
        sys.path[0] = os.path.dirname(filename)
        with io.open_code(filename) as fh:
            source = fh.read()
        code = compile(source, filename, "exec")
        # __spec__ None as `python SCRIPT` has it: multiprocessing's spawn
        # reads it to start its children.
        namespace = {"__name__": "__main__", "__file__": filename, "__spec__": None,
                     "__package__": None, "__builtins__": __builtins__}
    __main__.__dict__.clear()
    __main__.__dict__.update(namespace)
    debugger._wait_for_mainpyfile = True
    debugger.mainpyfile = debugger.canonic(filename)
    debugger._user_requested_quit = False  # type: ignore[attr-defined]
    return code, __main__.__dict__


# -- exceptions ----------------------------------------------------------------------

#: Exceptions that end a loop, a generator or the program the usual way: a
#: catch of every exception (`raised`) passes them by; naming one catches it.
_FLOW = (StopIteration, StopAsyncIteration, GeneratorExit, SystemExit)


class _Catch:
    """What `dbg catch` stops on: exceptions of the named classes (or their
    subclasses; a name without a module is any class of that name, a builtin
    one among them), or all of them (`raised`), in the program's own code
    (in any code with ``all_code``)."""

    def __init__(self, names: Iterable[object], raised: bool, all_code: bool) -> None:
        self.names = frozenset(str(n) for n in names)
        self.raised = bool(raised)
        self.all_code = bool(all_code)

    def matches(self, kind: object) -> bool:
        if not isinstance(kind, type):
            return False
        for cls in kind.__mro__:
            qualname = getattr(cls, "__qualname__", cls.__name__)
            if qualname in self.names or "%s.%s" % (cls.__module__, qualname) in self.names:
                return True
        return self.raised and not issubclass(kind, _FLOW)

    def code(self, frame: FrameType) -> bool:
        return self.all_code or not _library_file(frame.f_code.co_filename)


def _loaded_classes(name: str) -> list[type]:
    """The exception classes called ``name``: the builtin one, or those of
    the modules loaded now."""
    import builtins

    found = [getattr(builtins, name, None)]
    if not isinstance(found[0], type):
        found = [vars(m).get(name) for m in list(sys.modules.values()) if m is not None]
    return [c for c in found if isinstance(c, type) and issubclass(c, BaseException)]


def _debugger_frame(frame: FrameType) -> bool:
    """A frame of the debugger's own (this launcher, bdb, pdb, cmd)."""
    return _internal(frame) or frame.f_code.co_filename in _DEBUGGER_FILES


_DEBUGGER_FILES = frozenset(os.path.abspath(getattr(m, "__file__", "") or "")
                            for m in (pdb, bdb, sys.modules.get("cmd")) if m is not None)


def _library_file(path: str) -> bool:
    """Whether ``path`` is the standard library's or an installed package's
    (below a site-packages or dist-packages folder), not the program's: by
    dbgcore/inprogram/libfiles.py, loaded from pyrepr's folder. (A launcher
    started without pyrepr's path, not by dbg: code with no file only.)"""
    if _libfiles is None:
        return path.startswith("<")
    found: bool = _libfiles.library_file(path)
    return found


def _exception_line(exc: BaseException) -> str:
    """A stop's description of ``exc``: its class and its message's first
    line (a pytest assertion's message goes on over several)."""
    message = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, message[0]) if message else type(exc).__name__


def _raised_at(tb: TracebackType | None) -> str:
    """Where the exception of traceback ``tb`` was raised: "FUNCTION at FILE:LINE"."""
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    code = tb.tb_frame.f_code
    return "%s at %s:%d" % (code.co_name, code.co_filename, tb.tb_lineno)


def _passing_note(exc_info: ExcInfo, here: FrameType | None = None) -> str:
    """One line for a stop an exception led to: what it is, and where it
    was raised unless that is ``here``."""
    kind, value, tb = exc_info
    text = _exception_line(value) if isinstance(value, BaseException) else getattr(
        kind, "__name__", str(kind))
    last = tb
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None or last.tb_frame is here:
        return text
    return "%s (raised in %s)" % (text, _raised_at(tb))


def _from_program(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` from the first frame of the program's own code: without the
    runner's frames (pytest's, unittest's) above the test. If no frame is
    the program's, from the first one that is not the debugger's."""
    entry = tb
    while entry is not None:
        frame = entry.tb_frame
        if not _debugger_frame(frame) and not _library_file(frame.f_code.co_filename):
            return entry
        entry = entry.tb_next
    entry = tb
    while entry is not None and _debugger_frame(entry.tb_frame):
        entry = entry.tb_next
    return entry if entry is not None else tb


_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"


def _exception_info(exc: BaseException, shown: TracebackType | None,
                    here: FrameType | None = None) -> JsonObject:
    """What `dbg exception` says: the exception, and its traceback as Python
    prints it, causes first (without the final line, which is the
    exception, said first). ``shown`` is its traceback from the program's
    first frame; ``here`` (a stop where it was just raised or reached): the
    frames that lead to it are the stack's, not the traceback's."""
    # (Without pyrepr, which dbg always names: the exception alone.)
    chain = _pyrepr.chain(exc) if _pyrepr is not None else []
    blocks = []
    for cause, relation in chain:
        blocks.append(_traceback_block(cause.__traceback__) + [_error_line(cause), ""])
        blocks.append([_CAUSE if relation == "cause" else _CONTEXT, ""])
    if here is not None:
        entries = [e for e in traceback.extract_stack(here)
                   if not _internal_file(e.filename)] + \
            list(traceback.extract_tb(shown.tb_next if shown is not None else None))
        blocks.append(_format_entries(_program_entries(entries)))
    else:
        blocks.append(_traceback_block(shown))
    return {"exception": type(exc).__name__, "description": str(exc),
            "stack": "\n".join(line for block in blocks for line in block).rstrip("\n"),
            "chain": [{"exception": type(c).__name__, "description": str(c), "relation": r}
                      for c, r in chain]}


def _internal_file(name: str) -> bool:
    return name in (HERE, BOOT, "<string>") or name == bdb.__file__


def _program_entries(entries: list[traceback.FrameSummary]) -> list[traceback.FrameSummary]:
    """Stack entries without the runner's ones above the program's first."""
    for index, entry in enumerate(entries):
        if not _library_file(entry.filename):
            return entries[index:]
    return entries


def _traceback_block(tb: TracebackType | None) -> list[str]:
    if tb is None:
        # Never raised (multiprocessing's RemoteTraceback, made to be a
        # cause): Python prints its line alone.
        return []
    entries = [e for e in traceback.extract_tb(tb) if not _internal_file(e.filename)]
    return _format_entries(entries)


def _format_entries(entries: list[traceback.FrameSummary]) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for text in traceback.format_list(entries):
        # Without the carets Python 3.11 puts under part of a line.
        lines += [line for line in text.rstrip("\n").split("\n") if line.strip(" ^~")]
    return lines


def _post_mortem(debugger: DbgPdb, exc: BaseException, shown: TracebackType | None) -> None:
    """Stop where the uncaught exception was raised, with its story ready."""
    debugger._describe(exc, shown)
    debugger.catching = None
    debugger.post_mortem = True
    debugger.reset()
    try:
        debugger.interaction(None, exc.__traceback__)
    except bdb.BdbQuit:
        pass


def _stop_at_thread_failures(debugger: DbgPdb) -> None:
    """An exception that ends a thread stops the program there, as one that
    ends the main thread does (and as on debugpy): threading's excepthook
    reports it as Python does, then stops."""
    report = threading.excepthook

    def excepthook(args: threading.ExceptHookArgs) -> None:
        report(args)
        try:
            sys.stderr.flush()
        except Exception:
            pass
        debugger.thread_failure(args.exc_value, args.exc_traceback)

    threading.excepthook = excepthook


# -- test runs --------------------------------------------------------------------

#: The name the pytest plugin below is registered under (PYTEST_PLUGINS).
_PYTEST_PLUGIN = "_dbg_pdb_testhook"


def _stop_at_failures(debugger: DbgPdb) -> None:
    """A test run: stop where a test fails. pytest calls
    `pytest_exception_interact` for a failure (not for a skip, an xfail or
    an exception pytest.raises expected), as its own --pdb does; unittest
    calls TestResult.addError or addFailure (an assertRaises keeps the
    exception from them). Both hand the exception to test_failure."""
    import types

    # pytest's objects, of a pytest this module does not import: read by name.
    sessions: list[object] = []

    def pytest_configure(config: object) -> None:
        if sessions:
            return
        sessions.append(config)
        # Out of the environment again: pytest runs the tests start
        # (pytester, a subprocess) are not ours to stop.
        names = [n for n in os.environ.get("PYTEST_PLUGINS", "").split(",")
                 if n.strip() and n.strip() != _PYTEST_PLUGIN]
        if names:
            os.environ["PYTEST_PLUGINS"] = ",".join(names)
        else:
            os.environ.pop("PYTEST_PLUGINS", None)

    def pytest_exception_interact(node: object, call: object, report: object) -> None:
        info = getattr(call, "excinfo", None)
        if info is not None and sessions and getattr(node, "config", None) is sessions[0]:
            debugger.test_failure(info.type, info.value, info.tb)

    # PYTEST_DONT_REWRITE: pytest would warn that it cannot rewrite the
    # asserts of a plugin imported before it started.
    plugin = types.ModuleType(_PYTEST_PLUGIN, "dbg's stops at failing tests. PYTEST_DONT_REWRITE")
    plugin.pytest_configure = pytest_configure  # type: ignore[attr-defined]
    plugin.pytest_exception_interact = pytest_exception_interact  # type: ignore[attr-defined]
    sys.modules[_PYTEST_PLUGIN] = plugin
    plugins = os.environ.get("PYTEST_PLUGINS", "")
    os.environ["PYTEST_PLUGINS"] = plugins + "," + _PYTEST_PLUGIN if plugins else _PYTEST_PLUGIN

    import unittest.result

    result = unittest.result.TestResult
    add_error, add_failure, add_subtest = result.addError, result.addFailure, result.addSubTest

    def addError(self: unittest.result.TestResult, test: unittest.TestCase,
                 err: OptExcInfo) -> None:
        debugger.test_failure(*err)
        add_error(self, test, err)

    def addFailure(self: unittest.result.TestResult, test: unittest.TestCase,
                   err: OptExcInfo) -> None:
        debugger.test_failure(*err)
        add_failure(self, test, err)

    def addSubTest(self: unittest.result.TestResult, test: unittest.TestCase,
                   subtest: unittest.TestCase, err: OptExcInfo | None) -> None:
        if err is not None:
            debugger.test_failure(*err)
        add_subtest(self, test, subtest, err)

    result.addError = addError  # type: ignore[method-assign]
    result.addFailure = addFailure  # type: ignore[method-assign]
    result.addSubTest = addSubTest  # type: ignore[method-assign]


#: dbgcore/inprogram/pyrepr.py in the program, once dbg has said where it
#: is, and libfiles.py beside it.
_pyrepr: ModuleType | None = None
_libfiles: ModuleType | None = None


def _program_environment() -> bool:
    """Take the launcher's settings out of the environment the program sees;
    give it the terminal size the user's environment had (the debugger's
    terminal is 4,000 columns wide, and test runners draw lines across the
    width they are told). Returns whether this is a test run."""
    for name, default in (("COLUMNS", "80"), ("LINES", "24")):
        os.environ[name] = os.environ.pop("DBG_PDB_" + name, "") or default
    global _pyrepr, _libfiles
    path = os.environ.pop("DBG_PDB_PYREPR", "")
    if path:
        _pyrepr = _load_helper("_dbg_pyrepr", path)
        _libfiles = _load_helper("_dbg_libfiles",
                                 os.path.join(os.path.dirname(path), "libfiles.py"))
        # Values as the program holds them: reprlib sorts a dict's keys.
        for shown in (_short, _long, _arg_repr):
            _pyrepr.keep_order(shown)
    return os.environ.pop("DBG_PDB_TEST", "") == "1"


def main() -> None:
    prompt, stdout_fifo, stderr_fifo, stdin, catch = sys.argv[1:6]
    rest = sys.argv[6:]
    is_module = bool(rest) and rest[0] == "-m"
    if is_module:
        rest = rest[1:]
    target, args = rest[0], rest[1:]
    console_in, console_out = _console_streams()
    _program_streams(stdin, stdout_fifo, stderr_fifo)
    test_run = _program_environment()
    debugger = DbgPdb(console_in, console_out)
    debugger.prompt = prompt
    debugger.stop_uncaught = catch == "catch"
    _stop_at_thread_failures(debugger)
    if test_run:
        _stop_at_failures(debugger)
    sys.argv = [target] + list(args)
    # The standard library's folders too: dbg asked them at the first stop,
    # one more exchange on every start.
    import sysconfig

    stdlib = sorted({sysconfig.get_path(key) for key in ("stdlib", "platstdlib")} - {None})
    debugger.emit("hello", {"python": sys.version.split()[0], "pid": os.getpid(),
                            "stdlib": stdlib})
    code = 0
    try:
        statement, namespace = _statement(is_module, target, debugger)
        debugger.run(statement, namespace, namespace)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = int(exc.code)  # sys.exit(True), as unittest.main ends, is 1
        else:
            sys.stderr.write("%s\n" % exc.code)
            code = 1
    except BaseException as exc:
        # The traceback `python SCRIPT` would print: without the launcher's
        # and bdb's own frames above the program's.
        shown = exc.__traceback__
        while shown is not None and _internal(shown.tb_frame):
            shown = shown.tb_next
        traceback.print_exception(type(exc), exc, shown)
        sys.stderr.flush()
        if debugger.stop_uncaught:
            _post_mortem(debugger, exc, shown)
        code = 1
    tracer = sys.modules.get(_PYTRACE)
    if tracer is not None:
        tracer.finish()  # its last word (calls past --max): os._exit runs no atexit hook
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    debugger.emit("exit", {"code": code})
    os._exit(0)


if __name__ == "__main__":
    # The program gets the real __main__ module, so this file must not be it:
    # load it again under its own name and run from there.
    import importlib.util

    _spec = importlib.util.spec_from_file_location("_dbg_pdb_launcher", HERE)
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["_dbg_pdb_launcher"] = _module
    _spec.loader.exec_module(_module)
    _module.main()
