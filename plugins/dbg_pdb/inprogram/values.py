"""Values as the launcher shows them, and the evaluation of the user's
expressions: bounded reprs (a stop's locals short, `print` longer), a
frame's arguments in their `def` order, a breakpoint condition's failure
kept for its stop, and SIGINT turned into an error inside an expression
that ran past --timeout; and the answers of dbg's commands about values
(a stop's locals, frames' arguments, `print`, `set`). Apart from the
debugger class because nothing here needs pdb: they are the rules for one
value or one expression, given the frame they are asked in.
"""

from __future__ import annotations

import ast
import bdb
import dis
import reprlib
import sys
import traceback
from types import CodeType, FrameType, ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    #: What the launcher tells dbg: JSON.
    JsonObject = dict[str, Any]

    #: A SIGINT handler, as signal.signal takes and gives it back.
    SignalHandler = Callable[[int, FrameType | None], object] | int | None

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




def keep_order(pyrepr: ModuleType) -> None:
    """Values as the program holds them: reprlib sorts a dict's keys, and
    dbgcore/inprogram/pyrepr.py's reprs do not."""
    for shown in (_short, _long, _arg_repr):
        pyrepr.keep_order(shown)


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


# -- the value side of dbg's commands: locals, arguments, print, set ------------------------


def local_variables(names: Mapping[str, object]) -> JsonObject:
    """A stop's locals (``names``: the selected frame's), shortly shown;
    dunder names left out but for the value being returned and the
    exception being raised."""
    out = []
    for name, value in list(names.items()):
        if name.startswith("__") and name.endswith("__") and name not in (
                "__return__", "__exception__"):
            continue
        out.append({"name": name, "value": _safe_repr(value, True),
                    "type": _type_name(value)})
    return {"variables": out}


def frame_arguments(frames: list[FrameType], positions: Iterable[int],
                    selected: FrameType | None,
                    selected_locals: Mapping[str, object]) -> JsonObject:
    """The arguments of ``frames`` (innermost first) at these positions, in
    their `def` order; the selected frame's from pdb's copy of its locals
    (what `set` changed there)."""
    out = {}
    for position in positions:
        if 0 <= position < len(frames):
            frame = frames[position]
            names = selected_locals if frame is selected else frame.f_locals
            out[str(position)] = [
                {"name": name, "value": _safe_arg(names[name]), "type": _type_name(names[name])}
                for name in _argument_names(frame.f_code) if name in names]
    return out


def evaluate(frame: FrameType | None, namespace: Mapping[str, object],
             expression: str) -> JsonObject:
    """`dbg print`: the value of ``expression`` in ``frame``, with pdb's
    copy of its locals; interruptible at --timeout."""
    try:
        with _Interruptible():
            value = _evaluated(frame, namespace, expression)
            text = _safe_repr(value, False)
    except BaseException as exc:
        return {"error": _error_line(exc)}
    return {"value": text, "type": _type_name(value)}


def assign(frame: FrameType | None, namespace: Mapping[str, object], lhs: str,
           rhs: str) -> JsonObject:
    """`dbg set`: ``lhs = rhs`` in ``frame``; the value ``lhs`` then has."""
    try:
        with _Interruptible():
            value = _evaluated(frame, namespace, rhs)
            if isinstance(ast.parse(lhs, mode="eval").body, ast.Name):
                # A plain name goes into the frame's own namespace; CPython
                # copies it back into the running frame when pdb resumes.
                namespace[lhs] = value  # type: ignore[index]
            else:
                scope = dict(namespace)
                scope["__dbg_value__"] = value
                assert frame is not None
                exec(compile("%s = __dbg_value__" % lhs, "<dbg set>", "exec"),
                     frame.f_globals, scope)
            result = _evaluated(frame, namespace, lhs)
            text = _safe_repr(result, False)
    except BaseException as exc:
        return {"error": _error_line(exc)}
    return {"value": text, "type": _type_name(result)}


def _evaluated(frame: FrameType | None, namespace: Mapping[str, object],
               expression: str) -> object:
    assert frame is not None
    return eval(expression, frame.f_globals, namespace)
