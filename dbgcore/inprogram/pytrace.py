"""`dbg trace` inside a Python program: a profile hook that records each call
of the named functions to dbg's trace file (see :mod:`dbgcore.vocab.traces`).

It runs in the *debuggee*, loaded by file path (as ``_dbg_pytrace``) by the
pdb launcher or by a debugpy evaluate, so it imports nothing of dbg's, only
the standard library, and keeps to Python 3.8's syntax (annotations are
strings: ``from __future__ import annotations``). :func:`install` starts it,
:func:`uninstall` puts back exactly what was there.

How it sees what it records:

- calls and returns by ``sys.setprofile`` (and ``threading.setprofile`` for
  the threads started while it runs; from 3.12 the other running threads
  too), chained to any profile hook there was.
  The debugger's ``sys.settrace`` is left alone: the profile hook is a
  separate slot. A code object's match is cached, so a call of any other
  function costs one dict look-up;
- a call left by an exception: the profile hook sees ``return`` with None
  then, as for ``return None``, and ``sys.exc_info()`` is no help (it is the
  exception being *handled*, not the one unwinding). The frame's last
  instruction tells them apart on 3.8-3.13: a ``RETURN_*`` returns, a yield
  suspends a generator, anything else is where an exception left it;
- the exception's text, and ``--lines``, by a local trace function
  (``frame.f_trace``) on the traced frames only, chained to the debugger's
  own local tracer for that frame. Local trace functions are only called
  while a global one is set: when the debugger has none (pdb running with no
  breakpoint), a global one that traces nothing else is set for as long as
  a traced call is live in the thread.
"""

from __future__ import annotations

import atexit
import dis
import itertools
import json
import os
import reprlib
import sys
import threading
import time
from collections.abc import Callable
from types import CodeType, FrameType, ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    #: What sys.settrace and frame.f_trace take: (frame, event, arg) -> tracer.
    Tracer = Callable[[FrameType, str, Any], Any]
    #: What sys.setprofile takes (and sys.getprofile gives back).
    Profiler = Callable[[FrameType, Any, Any], object]

#: The name the tracer is loaded under in the debuggee's sys.modules.
MODULE_NAME = "_dbg_pytrace"

_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
_RETURNS = frozenset(dis.opmap[n] for n in ("RETURN_VALUE", "RETURN_CONST") if n in dis.opmap)
#: Where a generator's frame stands when it yields: at its YIELD_VALUE (3.13:
#: at the RESUME after it; 3.8-3.10's `yield from` one instruction before
#: its YIELD_FROM, which runs again when the generator resumes).
_YIELDS = frozenset(dis.opmap[n] for n in ("YIELD_VALUE", "YIELD_FROM", "RESUME", "SEND")
                    if n in dis.opmap)
_YIELD_FROM = dis.opmap.get("YIELD_FROM", -1)

_tracer: _Tracer | None = None


def install(path: str, functions: list[str], lines: bool = False, max_calls: int = 10000,
            value_chars: int = 200) -> dict[str, object]:
    """Start recording the calls of ``functions`` to the trace file ``path``
    (appended to). A tracer still installed is uninstalled first."""
    global _tracer
    if _tracer is not None:
        uninstall()
    # Loaded now, not at the first call the hook sees: a helper that cannot
    # be loaded is said in this answer, not swallowed by the hook.
    _sibling("_dbg_libfiles", "libfiles.py")
    tracer = _Tracer(path, [str(f) for f in functions], bool(lines), int(max_calls),
                     int(value_chars))
    tracer.start()
    _tracer = tracer
    return {"installed": True, "unseen": _unseen_threads(), "running": tracer.adopt_running()}


def _unseen_threads() -> list[str]:
    """The program's threads running now that the tracer does not see:
    before 3.12 a profile hook is set only for the calling thread and the
    threads started later (a debugger's own threads are not the program's)."""
    if hasattr(threading, "setprofile_all_threads"):
        return []
    here = threading.current_thread()
    return [t.name for t in threading.enumerate()
            if t is not here and t.is_alive() and not getattr(t, "is_pydev_daemon_thread", False)
            and not t.name.startswith("pydevd.")]


def uninstall() -> dict[str, object]:
    """Stop recording and put back the hooks there were; writes the count of
    calls not recorded past ``max_calls``. What was recorded, in numbers."""
    global _tracer
    tracer, _tracer = _tracer, None
    if tracer is None:
        return {"recorded": 0, "dropped": 0}
    return tracer.stop()


def finish() -> None:
    """The program ends: close the trace file (a debugger that ends the
    process with os._exit, where atexit hooks do not run, calls this)."""
    if _tracer is not None:
        _tracer.close()


def call_expression(path: str, call: str) -> str:
    """For dbg's side: one Python expression that loads this file from
    ``path`` as MODULE_NAME (once; kept in sys.modules, so a later one finds
    the same tracer), calls ``call`` on it (``"uninstall()"``), and gives
    its answer as JSON text. For a debugger that evaluates expressions only."""
    name = MODULE_NAME
    load = (f"(lambda s, u: s.modules.get({name!r}) or (lambda spec: (lambda m: ("
            f"s.modules.__setitem__({name!r}, m), spec.loader.exec_module(m), m)[2])("
            f"u.module_from_spec(spec)))(u.spec_from_file_location({name!r}, {path!r})))("
            "__import__('sys'), __import__('importlib.util').util)")
    return f"__import__('json').dumps({load}.{call})"


def _program_repr() -> reprlib.Repr:
    """A bounded repr in the values' own order (dbgcore/inprogram/pyrepr.py,
    beside this file, loaded by its path as the program's ``_dbg_pyrepr``);
    plain reprlib's, which sorts a dict's keys, if it cannot be loaded."""
    try:
        module = _sibling("_dbg_pyrepr", "pyrepr.py")
    except Exception:
        return reprlib.Repr()
    shown: reprlib.Repr = module.keep_order(reprlib.Repr())
    return shown


def _sibling(name: str, filename: str) -> ModuleType:
    """A module of this folder, ``filename``, loaded by its path as the
    program's ``name`` (once: kept in sys.modules, where the pdb launcher
    may have put it already)."""
    module = sys.modules.get(name)
    if module is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(
            name, os.path.join(os.path.dirname(os.path.abspath(__file__)), filename))
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {filename}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return module


def install_note(started: object) -> str:
    """For dbg's side: what :func:`install`'s answer says the trace cannot
    see, or took up already running, as a note for the user ("" if nothing)."""
    said = []
    running = started.get("running") if isinstance(started, dict) else None
    if running:
        said.append(f"{_shown(running)} was running when the trace began (the stop was in "
                    f"it): that call is recorded from there, with its arguments as they were")
    names = started.get("unseen") if isinstance(started, dict) else None
    if names:
        said.append(f"calls in threads already running when the trace began are not "
                    f"recorded ({_shown(names)}): before Python 3.12 a profile hook reaches "
                    f"only its own thread and those started later")
    return "; ".join(said)


def _shown(names: list[object]) -> str:
    return ", ".join(str(n) for n in names[:5]) + (", ..." if len(names) > 5 else "")


class _Call:
    """A traced call that has not ended: its frame and local tracer."""

    __slots__ = ("frame", "local", "seq", "shown", "stack", "started")

    def __init__(self, seq: int, frame: FrameType, stack: list[_Call]) -> None:
        self.seq = seq
        self.frame = frame
        #: perf_counter_ns() once its record is written: a generator's call
        #: is timed from its first entry to its end, suspensions included.
        self.started = 0
        self.local: _Local | None = None
        #: The thread's stack of live traced calls this one is on.
        self.stack = stack
        #: With --lines: each local's text at the previous line.
        self.shown: dict[str, str] | None = None


class _Local:
    """A traced frame's local trace function: notes the exception that
    leaves it and, with --lines, each line and the locals changed there;
    hands every event to the debugger's own local tracer first."""

    __slots__ = ("call", "exc", "muted", "prev", "tracer")

    def __init__(self, tracer: _Tracer, call: _Call, prev: Tracer | None) -> None:
        self.tracer = tracer
        self.call = call
        self.prev = prev
        self.exc: tuple[object, object] | None = None
        #: Whether we turned the frame's line events on (its tracer had them off).
        self.muted = False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Any:
        tracer = self.tracer
        if tracer.active:
            # Ours first: a breakpoint the debugger stops at on this line
            # ends the trace inside its call, and the line is one it reached.
            try:
                if event == "exception":
                    self.exc = (arg[0], arg[1])
                elif event == "line" and tracer.lines:
                    tracer.line(self.call, frame)
            except Exception:
                pass  # never take the program down
        prev = self.prev
        result = None
        if prev is not None:
            result = prev(frame, event, arg)
            if result is not None:
                self.prev = result
        if not tracer.active:
            # Uninstalled meanwhile (maybe inside that very call: a stop at
            # a breakpoint): what the debugger's tracer said stands alone.
            return result
        return self


class _Tracer:
    def __init__(self, path: str, functions: list[str], lines: bool, max_calls: int,
                 value_chars: int) -> None:
        self.path = path
        self.functions = functions
        self.lines = lines
        self.max_calls = max_calls
        self.value_chars = max(value_chars, 8)
        #: The last part of each name asked for: a code object of another
        #: name is no match, at the cost of one set look-up.
        self.last_parts = frozenset(f.rsplit(".", 1)[-1] for f in functions)
        self.active = False
        self.out: Any = None
        self.lock = threading.Lock()
        self.seq = itertools.count(1)
        #: Numbers every call, line and end in the order they happen, across
        #: the calls (``n``): a replay of the record (`dbg replay`) follows it.
        self.order = itertools.count(1)
        self.recorded = 0
        self.dropped = 0
        self.dropped_written = 0
        #: id(code) -> (code, its record name or None, argument names, file, line).
        self.codes: dict[int, tuple[CodeType, str | None, list[str], str, int]] = {}
        #: id(frame) -> its live call, across threads.
        self.live: dict[int, _Call] = {}
        #: Thread ident -> its stack of live traced calls.
        self.stacks: dict[int, list[_Call]] = {}
        #: Threads where our global trace function is set (the debugger had none).
        self.own_global: set[int] = set()
        self.prev_profile: Profiler | None = None
        self.prev_thread_profile: Profiler | None = None
        self.hook: Profiler | None = None
        self.thread_hook: Profiler | None = None
        self.skip_files = _debugger_files()
        self.repr = _program_repr()
        limit = self.value_chars
        self.repr.maxlevel = 3
        self.repr.maxlist = self.repr.maxtuple = self.repr.maxset = 20
        self.repr.maxfrozenset = self.repr.maxdeque = self.repr.maxarray = 20
        self.repr.maxdict = 10
        self.repr.maxstring = self.repr.maxother = self.repr.maxlong = limit

    # -- on and off ---------------------------------------------------------------------

    def start(self) -> None:
        # Line-buffered: a program that dies keeps every event written before.
        self.out = open(self.path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        self.prev_profile = sys.getprofile()
        self.prev_thread_profile = getattr(threading, "_profile_hook", None)
        self.hook = self._make_hook(self.prev_profile)
        self.thread_hook = self._make_hook(self.prev_thread_profile)
        self.active = True
        every = getattr(threading, "setprofile_all_threads", None)
        if every is not None:
            # 3.12+: the threads running now too, not only those started
            # later (each one puts back what it had when it sees we are gone).
            every(self.thread_hook)
        else:
            threading.setprofile(self.thread_hook)
        sys.setprofile(self.hook)
        atexit.register(self.close)
        if hasattr(os, "register_at_fork"):
            # A child would write its own calls, numbered as ours, into our file.
            os.register_at_fork(after_in_child=self._forked)

    def adopt_running(self) -> list[str]:
        """The traced functions this thread is inside now (the trace begun
        at a stop in one): each call taken up as if entered now, outermost
        first, so that its return is recorded; their names."""
        frames = []
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            frames.append(frame)
            frame = frame.f_back
        names = []
        for frame in reversed(frames):
            try:
                known = self.codes.get(id(frame.f_code)) or self._match(frame)
                if known[1] is not None and id(frame) not in self.live:
                    self._enter(frame, known)
                    names.append(known[1])
            except Exception:
                continue  # never take the program down
        return names

    def stop(self) -> dict[str, object]:
        self.active = False
        if sys.getprofile() is self.hook:
            sys.setprofile(self.prev_profile)
        if getattr(threading, "_profile_hook", None) is self.thread_hook:
            threading.setprofile(self.prev_thread_profile)
        for call in list(self.live.values()):
            self._untrace(call)
        self.live.clear()
        self.stacks.clear()
        if sys.gettrace() is _global_trace:
            sys.settrace(None)
        self.close()
        try:
            atexit.unregister(self.close)
        except Exception:
            pass
        return {"recorded": self.recorded, "dropped": self.dropped}

    def close(self) -> None:
        """Write what is still owed (the calls past --max) and close the file."""
        self.active = False
        out, self.out = self.out, None
        if out is None:
            return
        try:
            owed = self.dropped - self.dropped_written
            if owed > 0:
                out.write(json.dumps({"e": "dropped", "count": owed}) + "\n")
                self.dropped_written = self.dropped
            out.close()
        except Exception:
            pass

    def _forked(self) -> None:
        if self.out is None:
            return
        self.active = False
        self.out = None  # the parent's to write and close
        if sys.getprofile() is self.hook:
            sys.setprofile(self.prev_profile)

    def _untrace(self, call: _Call) -> None:
        """Give a live frame its own local tracer back."""
        local = call.local
        if local is None:
            return
        frame = call.frame
        if frame.f_trace is local:
            frame.f_trace = local.prev
        if local.muted:
            frame.f_trace_lines = False
        call.local = None

    # -- the profile hook ---------------------------------------------------------------

    def _make_hook(self, prev: Profiler | None) -> Profiler:
        codes = self.codes
        live = self.live
        match = self._match
        enter = self._enter
        leave = self._leave
        prev = prev if callable(prev) else None

        def hook(frame: FrameType, event: str, arg: Any) -> None:
            if prev is not None:
                prev(frame, event, arg)
            if not self.active:
                # Uninstalled: a thread that has not run since goes back to
                # what it had.
                sys.setprofile(prev)
                return
            try:
                if event == "call":
                    known = codes.get(id(frame.f_code))
                    if known is None:
                        known = match(frame)
                    if known[1] is not None:
                        enter(frame, known)
                elif event == "return":
                    call = live.get(id(frame))
                    if call is not None and call.frame is frame:
                        leave(call, frame, arg)
            except Exception:
                # (a RecursionError at the program's own limit, say): an
                # exception out of a profile hook would unset it and land in
                # the program.
                pass

        return hook

    def _match(self, frame: FrameType) -> tuple[CodeType, str | None, list[str], str, int]:
        code = frame.f_code
        name = None
        try:
            if code.co_name in self.last_parts and not _debugger_code(code.co_filename,
                                                                      self.skip_files):
                name = self._name_if_asked(code, frame)
        except Exception:
            name = None
        known = (code, name, _argument_names(code) if name else [],
                 os.path.abspath(code.co_filename) if name else "",
                 _first_line(code) if name else 0)
        self.codes[id(code)] = known  # the code is kept alive: its id is not reused
        return known

    def _name_if_asked(self, code: CodeType, frame: FrameType) -> str | None:
        """The function's qualified name if one of the names asked for means
        it (`fee`, `Cart.total`, `module.func`, `pkg.module.Class.method`)."""
        qualname = _qualname(code, frame).replace(".<locals>", "")
        module = str(frame.f_globals.get("__name__") or "")
        stem = os.path.splitext(os.path.basename(code.co_filename))[0]
        full = [qualname, module + "." + qualname, stem + "." + qualname]
        # The standard library's and installed packages' functions never by
        # a bare name (`json.loads`, not `loads`): a bare `get` or `read`
        # means the program's own.
        bare = not _library_file(code.co_filename)
        for wanted in self.functions:
            if "." not in wanted and not bare:
                continue
            if wanted == code.co_name:
                return qualname
            for name in full:
                if name == wanted or name.endswith("." + wanted):
                    return qualname
        return None

    def _enter(self, frame: FrameType, known: tuple[CodeType, str | None, list[str], str, int]
               ) -> None:
        call = self.live.get(id(frame))
        ident = threading.get_ident()
        stack = self.stacks.get(ident)
        if stack is None:
            stack = self.stacks[ident] = []
        if call is not None and call.frame is frame:
            # A generator resumed: the same call goes on.
            call.stack = stack
            stack.append(call)
            self._need_global(ident)
            return
        if self.recorded >= self.max_calls:
            self.dropped += 1
            return
        try:
            self.recorded += 1
            seq = next(self.seq)
            values = frame.f_locals
            args = [[n, self.text(values[n])] for n in known[2] if n in values]
            back = frame.f_back
            caller = [os.path.abspath(back.f_code.co_filename), back.f_lineno,
                      back.f_code.co_name] if back is not None else None
            parent = stack[-1].seq if stack else None
            self.write({"e": "call", "seq": seq, "fn": known[1], "args": args,
                        "file": known[3], "line": known[4], "caller": caller,
                        "thread": threading.current_thread().name, "depth": len(stack),
                        "parent": parent, "n": next(self.order)})
            call = _Call(seq, frame, stack)
            self.live[id(frame)] = call
            stack.append(call)
            local = _Local(self, call, frame.f_trace)
            if self.lines and not frame.f_trace_lines:
                frame.f_trace_lines = True
                local.muted = True
            frame.f_trace = local
            call.local = local
            self._need_global(ident)
            call.started = time.perf_counter_ns()
        except Exception:
            pass

    def _need_global(self, ident: int) -> None:
        # A frame's f_trace is only called while a global trace function is
        # set: the debugger's, else ours (which traces nothing else).
        if sys.gettrace() is None:
            sys.settrace(_global_trace)
            self.own_global.add(ident)

    def _leave(self, call: _Call, frame: FrameType, value: Any) -> None:
        ns = time.perf_counter_ns() - call.started
        try:
            how = _how_it_left(frame)
            stack = call.stack
            if stack and stack[-1] is call:
                stack.pop()
            elif call in stack:
                stack.remove(call)
            if how == "yielded":
                pass  # suspended: the call goes on when it is resumed
            else:
                del self.live[id(frame)]
                local = call.local
                if how == "returned":
                    self.write({"e": "return", "seq": call.seq, "value": self.text(value),
                                "ns": ns, "n": next(self.order)})
                else:
                    exc = local.exc if local is not None else None
                    self.write({"e": "raise", "seq": call.seq,
                                "value": _exception_text(exc, self.value_chars), "ns": ns,
                                "n": next(self.order)})
                self._untrace(call)
            if not stack:
                ident = threading.get_ident()
                if ident in self.own_global:
                    self.own_global.discard(ident)
                    if sys.gettrace() is _global_trace:
                        sys.settrace(None)
        except Exception:
            pass

    # -- lines ----------------------------------------------------------------------------

    def line(self, call: _Call, frame: FrameType) -> None:
        """With --lines: the line ``frame`` reached and the locals changed
        since its previous one (all of them at its first)."""
        now = {}
        for name, value in list(frame.f_locals.items()):
            if not (name.startswith("__") and name.endswith("__")):
                now[name] = self.text(value)
        before = call.shown
        if before is None:
            changed = [[n, v] for n, v in now.items()]
        else:
            changed = [[n, v] for n, v in now.items() if before.get(n) != v]
        call.shown = now
        self.write({"e": "line", "seq": call.seq, "line": frame.f_lineno, "changed": changed,
                    "n": next(self.order)})

    # -- output ---------------------------------------------------------------------------

    def text(self, value: object) -> str:
        try:
            text = self.repr.repr(value)
        except Exception as exc:  # a broken __repr__ must not break the program
            text = f"<repr failed: {type(exc).__name__}: {exc}>"
        limit = self.value_chars
        return text if len(text) <= limit else text[:limit - 1] + "\u2026"

    def write(self, event: dict[str, object]) -> None:
        out = self.out
        if out is None:
            return
        line = json.dumps(event, ensure_ascii=False) + "\n"
        with self.lock:
            out.write(line)


def _global_trace(frame: FrameType, event: str, arg: Any) -> Tracer | None:
    """Ours while a traced call is live and the debugger has none: it traces
    no frame (the traced ones have their own f_trace), and goes when the
    tracer does."""
    if _tracer is None:
        sys.settrace(None)
    return None


def _how_it_left(frame: FrameType) -> str:
    """"returned", "yielded" or "raised": the frame's last instruction says
    which, as the return event's value (None) cannot."""
    code = frame.f_code
    raw = code.co_code
    at = frame.f_lasti
    if not 0 <= at < len(raw):
        return "returned"
    op = raw[at]
    if op in _RETURNS:
        return "returned"
    if code.co_flags & _GENERATOR_FLAGS:
        if op in _YIELDS:
            return "yielded"
        if at + 2 < len(raw) and raw[at + 2] == _YIELD_FROM:
            return "yielded"
    return "raised"


def _exception_text(exc: tuple[object, object] | None, limit: int) -> str | None:
    if exc is None:
        return None
    kind, value = exc
    name = getattr(kind, "__name__", None) or type(value).__name__
    try:
        message = str(value)
    except Exception:
        message = ""
    text = f"{name}: {message}" if message else str(name)
    text = text.splitlines()[0] if text else text
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _qualname(code: CodeType, frame: FrameType) -> str:
    """The function's qualified name: co_qualname from 3.11; before, the
    function object's, found from the frame (a module's function, a method
    of `self`'s or `cls`'s class), else by the objects referring to it."""
    qualname = getattr(code, "co_qualname", None)
    if qualname:
        return str(qualname)
    name = code.co_name
    function = frame.f_globals.get(name)
    if getattr(function, "__code__", None) is code:
        return str(getattr(function, "__qualname__", name))
    values = frame.f_locals
    if code.co_argcount and code.co_varnames:
        first = values.get(code.co_varnames[0])
        owner = first if isinstance(first, type) else type(first)
        for cls in getattr(owner, "__mro__", ()):
            member = cls.__dict__.get(name)
            member = getattr(member, "__func__", member)
            if getattr(member, "__code__", None) is code:
                return str(getattr(member, "__qualname__", name))
    import gc

    for referrer in gc.get_referrers(code):
        if getattr(referrer, "__code__", None) is code:
            return str(getattr(referrer, "__qualname__", name))
    return name


def _first_line(code: CodeType) -> int:
    """The line of the function's first statement: where a breakpoint on
    the function stops (co_firstlineno is its `def` or first decorator)."""
    try:
        later = [line for _, line in dis.findlinestarts(code)
                 if line is not None and line > code.co_firstlineno]
    except Exception:
        later = []
    return min(later) if later else code.co_firstlineno


def _argument_names(code: CodeType) -> list[str]:
    """A function's parameters in the order its `def` line gives them."""
    names = code.co_varnames
    positional = list(names[:code.co_argcount])
    end = code.co_argcount + code.co_kwonlyargcount
    keyword_only = list(names[code.co_argcount:end])
    star = []
    if code.co_flags & 0x04:  # CO_VARARGS
        star.append(names[end])
        end += 1
    double_star = [names[end]] if code.co_flags & 0x08 else []  # CO_VARKEYWORDS
    return [n for n in positional + star + keyword_only + double_star if not n.startswith(".")]


def _library_file(path: str) -> bool:
    """Whether ``path`` is the standard library's or an installed package's
    (dbgcore/inprogram/libfiles.py, beside this file, as ``_dbg_libfiles``)."""
    found: bool = _sibling("_dbg_libfiles", "libfiles.py").library_file(path)
    return found


#: Folders of debuggers' own code in the debuggee (debugpy's, pydevd's).
_DEBUGGER_PARTS = ("pydevd", "_pydevd_bundle", "_pydev_bundle", "debugpy")


def _debugger_code(path: str, files: frozenset[str]) -> bool:
    if path in files:
        return True
    parts = path.replace("\\", "/").split("/")
    return any(p in _DEBUGGER_PARTS for p in parts[:-1])


def _debugger_files() -> frozenset[str]:
    """Files whose functions are never the program's: this one, and the
    debugger's (pdb, bdb, dbg's pdb launcher, debugpy's pydevd)."""
    files = {os.path.abspath(__file__), __file__}
    # The launcher is a package of several modules, each a file of its own.
    for name, module in list(sys.modules.items()):
        if name not in ("bdb", "pdb", "_dbg_pdb_launcher") \
                and not name.startswith("_dbg_pdb_launcher."):
            continue
        path = getattr(module, "__file__", None)
        if path:
            files.add(path)
            files.add(os.path.abspath(path))
    return frozenset(files)
