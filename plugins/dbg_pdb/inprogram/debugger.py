"""The debugger: pdb with a sentinel prompt, a stop report in JSON before
every prompt, and the ``_dbg_*`` commands dbg's backend sends (each answers
in one JSON frame, ``\\x1edbg:KIND:{json}\\x1f``); and the stops pdb
lacks or makes differently: `finish` into the caller, `dbg catch`,
`dbg watch`, a step that follows an exception, post mortem at a failing
test or thread. The one module that subclasses pdb.Pdb.
"""

from __future__ import annotations

import ast
import bdb
import json
import os
import pdb
import sys
import threading
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any, TextIO

from .stops import (
    StopReport,
    Watches,
    _Catch,
    _debugger_frame,
    _exception_info,
    _first_decorator_line,
    _from_program,
    _internal,
    _library_file,
    _load_helper,
    _loaded_classes,
    _passing_note,
    breakpoint_list,
    compiled,
    find_function,
    stack_report,
    user_frames,
)
from .threads import current_thread, handled_exception, spread_trace, thread_list
from .values import (
    _error_line,
    _how_it_left,
    _Interruptible,
    _safe_repr,
    _type_name,
    assign,
    evaluate,
    frame_arguments,
    local_variables,
)

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    from collections.abc import Callable, Mapping

    from _typeshed import ExcInfo, TraceFunction

    #: What the launcher tells dbg, and what dbg's commands carry: JSON.
    Json = Any
    JsonObject = dict[str, Json]

FRAME_START = "\x1edbg:"
FRAME_END = "\x1f"
#: pdb's commands that change the breakpoints (see do__dbg_native).
BREAK_COMMANDS = ("break", "b", "tbreak", "clear", "cl", "ignore", "condition", "disable",
                  "enable")
#: The name dbg's tracer (dbgcore/inprogram/pytrace.py) is loaded under in the program.
_PYTRACE = "_dbg_pytrace"


class DbgPdb(pdb.Pdb):
    def __init__(self, console_in: TextIO, console_out: TextIO) -> None:
        pdb.Pdb.__init__(self, stdin=console_in, stdout=console_out)
        self.use_rawinput = False
        self.post_mortem = False
        #: One stop at a time: pdb has one console, and a thread that fails
        #: (thread_failure) may stop while another thread is stopped.
        self.stopping = threading.RLock()
        #: What the next stop's report says beside its stack.
        self.report = StopReport()
        #: The frame `finish` runs out of.
        self.finish_frame: FrameType | None = None
        #: What `dbg catch` stops on (None: nothing).
        self.catching: _Catch | None = None
        #: Stopped post mortem on a failed test (test_failure).
        self.test_stop = False
        #: Stop post mortem where an uncaught exception ends the program.
        self.stop_uncaught = True
        #: The frame whose last event was an exception, and that exception:
        #: while it is there, the frame is leaving by it unless a line of
        #: the frame runs next (its handler).
        self.raising: tuple[FrameType, ExcInfo] | None = None
        #: `dbg watch`'s expressions.
        self.watches = Watches()
        #: The thread the program last went on from (a stop's): only its
        #: frames stop a step; other threads stop at breakpoints alone.
        self.stepper = threading.get_ident()

    def emit(self, kind: str, data: JsonObject) -> None:
        self.stdout.write(FRAME_START + kind + ":" + json.dumps(data) + FRAME_END + "\n")
        self.stdout.flush()

    # -- the stop report, sent before the prompt of every stop ---------------

    def preloop(self) -> None:
        try:
            state = self._state(stop=True)
            # What dbg reads at every stop comes with it: one exchange a stop.
            state["locals"] = local_variables(self._selected_locals())
            state["breaks"] = self._breaks()
        except Exception as exc:  # never take the program down with us
            state = {"frames": [], "reason": "step", "error": repr(exc)}
        self.emit("stop", state)

    def _selected_locals(self) -> Mapping[str, object]:
        """pdb's copy of the selected frame's locals (what `set` writes)."""
        return self.curframe_locals if self.curframe is not None else {}

    def do__dbg_args(self, arg: str) -> None:
        """The arguments of the frames at these positions of `_state`'s
        list (innermost first), asked only for the frames dbg shows."""
        frames = [entry[0] for _, entry in reversed(user_frames(self.stack))]
        self.emit("args", {"args": frame_arguments(frames, self._arg(arg), self.curframe,
                                                   self._selected_locals())})

    def _state(self, stop: bool = False) -> JsonObject:
        data: JsonObject = {"frames": stack_report(self.stack, self.curindex, self.canonic)}
        if stop:
            data["thread"] = current_thread()
            data.update(self.report.said(self.curframe, getattr(self, "currentbp", 0),
                                         self.post_mortem))
            self.currentbp = 0
        return data

    # -- a pause must work after next/step too, not only after continue -------

    def sigint_handler(self, signum: int, frame: FrameType | None) -> None:
        self.report.interrupted = True
        self.stepper = threading.get_ident()  # Python runs it in the main thread
        # Untraced until pdb's set_trace sets the trace again, last: else the
        # step it asks would stop in the code it calls (bdb's reset calls
        # linecache), a frame of the debugger's own work.
        sys.settrace(None)
        pdb.Pdb.sigint_handler(self, signum, frame)  # type: ignore[arg-type]

    def stop_here(self, frame: FrameType) -> bool:
        """A step stops in the thread it was asked in, and never in the
        debugger's own frames (a pause's SIGINT handler, pdb's set_trace
        under it, the launcher's): the program's next line is its stop."""
        if threading.get_ident() != self.stepper:
            return False
        return bool(bdb.Bdb.stop_here(self, frame)) and not _debugger_frame(frame)

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
            self.report.passed_note = _passing_note(self.raising[1])
            self.raising = None
            caller.f_trace = self.trace_dispatch
            caller.f_trace_lines = True
            self._set_stopinfo(None, None)  # type: ignore[attr-defined]
            return self.trace_dispatch
        self.report.returned = {"value": _safe_repr(arg, True), "type": _type_name(arg),
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

    def do__dbg_natives(self, arg: str) -> None:
        """Several native pdb commands (a list literal) in one exchange, as
        `dbg start --break` x 1,000 sends them: each one's prose follows a
        ``native`` frame with its index, and the breakpoints are answered
        once at the end (after each, they would grow the answer N times)."""
        lines = self._arg(arg)
        for index, line in enumerate(lines):
            self.emit("native", {"i": index})
            self.onecmd(line)
        if any(line.split(" ", 1)[0] in BREAK_COMMANDS for line in lines):
            self.emit("breaks", self._breaks())

    def do__dbg_state(self, arg: str) -> None:
        self.emit("state", self._state())

    def do__dbg_locals(self, arg: str) -> None:
        self.emit("locals", local_variables(self._selected_locals()))

    def do__dbg_eval(self, arg: str) -> None:
        self.emit("value", evaluate(self.curframe, self._selected_locals(), self._arg(arg)))

    def do__dbg_tree(self, arg: str) -> None:
        """``(PYTREE, EXPRESSION, DEPTH)``: `print --depth`, by the module at
        that path (dbgcore/inprogram/pytree.py, loaded once)."""
        path, expression, depth = self._arg(arg)
        try:
            if self.curframe is None:
                raise LookupError("no frame to evaluate in")
            with _Interruptible():
                answer = _load_helper("_dbg_pytree", path).tree_of(
                    expression, depth, self.curframe.f_globals, self._selected_locals())
        except BaseException as exc:
            answer = {"error": _error_line(exc)}
        self.emit("value", answer)

    def do__dbg_set(self, arg: str) -> None:
        lhs, rhs = self._arg(arg)
        self.emit("value", assign(self.curframe, self._selected_locals(), lhs, rhs))

    def do__dbg_compile(self, arg: str) -> None:
        """Whether a condition compiles, in the program's own Python."""
        self.emit("compiled", compiled(self._arg(arg)))

    def do__dbg_modules(self, arg: str) -> None:
        """Files of the loaded modules named NAME."""
        name = "/" + self._arg(arg)
        files = [f for m in list(sys.modules.values())
                 for f in [getattr(m, "__file__", None)] if isinstance(f, str) and f.endswith(name)]
        self.emit("modules", {"files": files})

    def do__dbg_exception(self, arg: str) -> None:
        info = self.report.exception_info if self.post_mortem or self.report.catch_note \
            else None
        if info is None:
            # Inside an except block: the exception it handles (this thread's).
            info = handled_exception()
        self.emit("exception", dict(info or {}, post_mortem=self.post_mortem))

    def do__dbg_threads(self, arg: str) -> None:
        self.emit("threads", {"threads": thread_list()})

    def do__dbg_breaks(self, arg: str) -> None:
        self.emit("breaks", self._breaks())

    def _breaks(self) -> JsonObject:
        return {"breakpoints": breakpoint_list(), "watches": self.watches.listed()}

    def do__dbg_findfunc(self, arg: str) -> None:
        module, function = self._arg(arg)
        self.emit("found", find_function(module, function))

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

    # -- dbg tasks: the asyncio tasks (dbgcore/inprogram/pytasks.py) ------------------

    def do__dbg_tasks(self, arg: str) -> None:
        """``(PYTASKS, LIMIT)``: the program's asyncio tasks, read by the
        module at that path (loaded once, as ``_dbg_pytasks``)."""
        path, limit = self._arg(arg)
        try:
            answer = _load_helper("_dbg_pytasks", path).listing(limit)
        except Exception as exc:
            answer = {"error": _error_line(exc)}
        self.emit("tasks", answer)

    # -- exceptions: `dbg catch`, failing tests, steps they pass through -------

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
            # Going on: from this thread, and with a trace in every thread
            # while there is something to stop at.
            self.stepper = threading.get_ident()
            if not self.quitting:
                wanted = bool(self.breaks) or self.catching is not None or bool(self.watches)
                spread_trace(self.trace_dispatch if wanted else None, self.break_anywhere,
                             self.catching is None)

    def dispatch_line(self, frame: FrameType) -> TraceFunction:
        if self.raising is not None and self.raising[0] is frame:
            self.raising = None  # the frame handled it
        if self.watches and not self.quitting:
            hits = self.watches.changed(frame)
            if hits:
                # The statement that changed it has run: stop at this line,
                # as gdb's software watchpoints do. A breakpoint of the
                # user's on this line counts as hit too (break_here notes it).
                self.report.watch_hits = hits
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
        placed = self.watches.add(path, number, expression, frame, self.post_mortem)
        if frame is not None and "error" not in placed:
            # Its line events, even if bdb did not trace it when it was called.
            frame.f_trace = self.trace_dispatch
            frame.f_trace_lines = True
        self.emit("watch", placed)

    def do__dbg_unwatch(self, arg: str) -> None:
        self.watches.remove(self._arg(arg))
        self.emit("unwatch", {})

    def dispatch_exception(self, frame: FrameType, arg: ExcInfo) -> TraceFunction:
        self.raising = (frame, arg)
        if self.catching is not None and not self.quitting and self.catching.stops_at(frame, arg):
            self.report.catch_note = _passing_note(arg, frame)
            self.report.exception_info = _exception_info(arg[1], arg[2], frame)
            try:
                self.interaction(frame, None)
            finally:
                self.report.catch_note = ""
            if self.quitting:
                raise bdb.BdbQuit
            return self.trace_dispatch
        return bdb.Bdb.dispatch_exception(self, frame, arg)

    def user_exception(self, frame: FrameType, exc_info: ExcInfo) -> None:
        """A step does not stop where an exception passes (pdb stops at
        each frame it leaves): it goes on to the line that handles it, and
        that stop names the exception."""
        if exc_info[0] in (StopIteration, GeneratorExit):
            pdb.Pdb.user_exception(self, frame, exc_info)  # a generator's way to end
            return
        if not self.report.passed_note:
            self.report.passed_note = _passing_note(exc_info)

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
            self.report.describe(exc, shown)
            self.post_mortem = True
            self.test_stop = test
            try:
                self.interaction(None, shown)
            finally:
                self.post_mortem = False
                self.test_stop = False
                self.report.exception_info = None

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

