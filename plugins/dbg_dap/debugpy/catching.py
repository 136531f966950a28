"""`dbg catch` on debugpy: exceptions stopped where raised (`raised`, or
classes by name), kept to the first frame of the program's own code each
one reaches, and the stops pydevd makes that dbg does not show.

pydevd stops in every frame an exception passes through, the standard
library's included; dbg stops once, where it reached the program's code,
and says where it was raised (:meth:`ExceptionCatch.noted`)."""

from __future__ import annotations

import re

from dbg_dap.debugpy.answers import exception_call, json_answer
from dbg_dap.debugpy.libraries import ProgramLibraries
from dbg_dap.debugpy.stepping import StepUnderWay
from dbg_dap.debugpy.values import split_exception_note
from dbg_dap.host import AdapterHost
from dbgcore.api import DbgError, Message, UsageError


class ExceptionCatch:
    """The catch in force and the exception stops it makes."""

    def __init__(self, libraries: ProgramLibraries, step: StepUnderWay) -> None:
        self._libraries = libraries
        #: The step under way: a catch stop it goes through names it.
        self._step = step
        #: `dbg catch` of exceptions where raised (`raised`, classes), and
        #: whether in every code's frames (`all-code`); None: no such catch.
        self._raised_catch: bool | None = None
        #: Where the exception of this catch stop was raised, when that is
        #: in a library (the stop is where it reached the program's code).
        self._raised_note = ""

    def catch(self, backend: AdapterHost, filters: list[str], timeout: float) -> list[str] | None:
        # debugpy's filters stop on every exception (`raised`) in every
        # frame it passes through, the standard library's included. Classes
        # by name go to pydevd as exceptionOptions (it matches subclasses
        # of the classes it can import when they are set); dbg then keeps
        # the stops to the first frame of the program's own code each one
        # reaches (see skip_stop).
        chosen = list(dict.fromkeys(filters))
        names = [f for f in chosen if f not in _CATCH_WORDS]
        if not names and "raised" not in chosen:
            if ALL_CODE in chosen:
                raise UsageError("all-code goes with raised or an exception class",
                                 "e.g. dbg catch raised --all-code")
            self._raised_catch = None
            return None  # debugpy's own filters, as they are
        bad = [n for n in names if not _EXCEPTION_CLASS_RE.fullmatch(n)]
        if bad:
            raise UsageError(f"{bad[0]!r} is neither an exception class nor a filter",
                             "give class names (ValueError, mypkg.errors.ParseError) or "
                             "raised, uncaught, userUnhandled, all-code")
        classes = ["BaseException"] if "raised" in chosen else self._classes(backend, names,
                                                                                  timeout)
        python = {"names": ["Python Exceptions"]}
        options: list[Message] = [
            {"path": [python, {"names": classes}], "breakMode": "always"}]
        for word, mode in (("uncaught", "unhandled"), ("userUnhandled", "userUnhandled")):
            if word in chosen:
                options.append({"path": [python], "breakMode": mode})
        dap = backend.dap_session()
        dap.request("setExceptionBreakpoints", {"filters": [], "exceptionOptions": options},
                    timeout)
        all_code = ALL_CODE in chosen
        if not all_code:
            # pydevd leaves a library's exceptions out of these breakpoints
            # only when justMyCode is on, which would also keep steps out of
            # libraries: set it on the breakpoints themselves.
            try:
                dap.request("evaluate", {"context": "repl", "expression": _USER_CODE_ONLY},
                            timeout)
            except DbgError:
                backend.ctx.log.note("could not keep exception stops to the program's code")
        self._raised_catch = all_code
        backend.exception_filters = [f for f in chosen if f in _CATCH_WORDS and f != ALL_CODE]
        return chosen

    def _classes(self, backend: AdapterHost, names: list[str], timeout: float) -> list[str]:
        """The names pydevd is given: a qualified one as it is; a bare one is
        a builtin, or every class of that name the program has loaded."""
        bare = [n for n in names if "." not in n]
        found: dict[str, list[str]] = {}
        if bare:
            expression = _BARE_CLASSES_EXPRESSION.replace("NAMES", repr(bare))
            try:
                body = backend.dap_session().request(
                    "evaluate", {"context": "repl", "expression": expression}, timeout)
                found = json_answer(body)
            except (DbgError, ValueError, TypeError):
                found = {}
        out: list[str] = []
        for name in names:
            if "." in name:
                out.append(name)
                continue
            classes = found.get(name) or []
            if not classes:
                raise UsageError(f"no exception class {name} is loaded in the program yet",
                                 unknown_class_hint(name, "raised, uncaught, userUnhandled"))
            out += classes
        return list(dict.fromkeys(out))

    def skip_stop(self, backend: AdapterHost, reason: str, text: str, description: str,
                  timeout: float) -> bool:
        # Ending with exit() is not a failure (pdb does not stop there either).
        if reason != "exception":
            return False
        name, note = split_exception_note(text)
        if name == "SystemExit":
            return True
        if self._raised_catch is not None and not note and "userUnhandled" not in \
                backend.exception_filters and self._caught_before(backend, timeout):
            return True
        self._worker_note(backend, timeout)
        return False

    def _worker_note(self, backend: AdapterHost, timeout: float) -> None:
        """At an exception stop in a library's code: where a worker process
        raised it, for the stop's description. multiprocessing (and
        concurrent.futures) re-raise a worker's exception in the parent, in
        their own code, with the worker's traceback as the text of a cause
        that was never raised (RemoteTraceback)."""
        frames = backend.stack_frames(timeout)
        if self._raised_note or not frames or not self._libraries.library_file(
                str((frames[0].get("source") or {}).get("path") or "")):
            return
        try:
            found = json_answer(backend.dap_session().request("evaluate", {
                "expression": exception_call("worker_place"), "context": "watch",
                "frameId": int(frames[0]["id"])}, timeout))
        except (DbgError, ValueError, TypeError):
            return
        if isinstance(found, str) and found:
            self._raised_note = f"{found}, in a worker process"

    def _caught_before(self, backend: AdapterHost, timeout: float) -> bool:
        """At an exception stop of `dbg catch raised` (or a class): whether
        the exception stopped already, in a frame it came out of. pydevd
        stops in every frame it passes through; dbg, in the first one."""
        frames = backend.stack_frames(timeout)
        if not frames:
            return False
        try:
            body = backend.dap_session().request("evaluate", {
                "expression": _TRACEBACK_FILES_EXPRESSION, "context": "watch",
                "frameId": int(frames[0]["id"])}, timeout)
            files = [f for f in json_answer(body) if isinstance(f, list) and len(f) == 4]
        except (DbgError, ValueError, TypeError):
            return False
        if not files:
            return False
        inner = [str(f[0]) for f in files[1:]]
        path, line, function, said = files[-1]
        if inner and (self._raised_catch
                      or any(not self._libraries.library_file(f) for f in inner)):
            if self._step.op:
                # A step goes on through it (resume_after_skip); its stop
                # names it even where nothing handles it in an except.
                self._step.note = f"{said} (raised in {function} at {path}:{line})"
            return True
        if inner:
            # Raised in a library's code, it stops where it reaches the program's.
            self._raised_note = f"{function} at {path}:{line}"
        return False

    def noted(self, said: str) -> str:
        """A stop's description ``said``, with where its exception was
        raised when the stop is not there (once: the note is then used)."""
        note, self._raised_note = self._raised_note, ""
        return f"{said} (raised in {note})" if note and said else said


def unknown_class_hint(name: str, filters: str) -> str:
    """What to do about `dbg catch NAME` when no class NAME is loaded."""
    return (f"give its module too (mypkg.errors.{name}, or __main__.{name} for a script's "
            f"own), or a filter: {filters}")


#: `dbg catch`'s word for "in the standard library's and installed packages'
#: code too" (`dbg catch raised --all-code`), and debugpy's filters.
ALL_CODE = "all-code"
_CATCH_WORDS = frozenset({"raised", "uncaught", "userUnhandled", ALL_CODE})
#: An exception class as `dbg catch` takes it: a name, with its module or not.
_EXCEPTION_CLASS_RE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
#: Run in pydevd after exception breakpoints are set: they stop only where
#: an exception is in the program's own code (pydevd's "project scope").
_USER_CODE_ONLY = ("[setattr(b, 'ignore_libraries', True) for b in "
                   "__import__('pydevd').get_global_debugger()"
                   ".break_on_caught_exceptions.values()] and None")
#: For `dbg catch NAME` without a module: each NAME's classes (JSON).
_BARE_CLASSES_EXPRESSION = (
    "__import__('json').dumps({n: ([n] if isinstance(vars(__import__('builtins')).get(n), type) "
    "else sorted({c.__module__ + '.' + c.__qualname__ for m in list(__import__('sys')"
    ".modules.values()) for c in [getattr(m, '__dict__', {}).get(n)] if isinstance(c, type) "
    "and issubclass(c, BaseException)})) for n in NAMES})")
#: At an exception stop: its traceback so far, this frame first, as JSON
#: [file, line, function, the exception's class and message] rows.
_TRACEBACK_FILES_EXPRESSION = (
    "(lambda e, tb: __import__('json').dumps([[f.f_code.co_filename, n, f.f_code.co_name, "
    "type(e).__name__ + (': ' + str(e).strip().splitlines()[0] if str(e).strip() else '')] "
    "for f, n in __import__('traceback').walk_tb(tb)]))(__exception__[1], __exception__[2])")
