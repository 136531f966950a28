"""What debugpy's collaborators share to talk to the program: the
expressions that load dbg's own helpers into it (dbgcore/inprogram), and how
pydevd's answers to evaluates are read back.

pydevd evaluates in the stopped thread; what an evaluate gives back is the
repr of a string (in a frame) or the string itself (without one), so every
helper that answers in JSON is read through :func:`json_answer`."""

from __future__ import annotations

import ast
import json

from dbg_dap.host import AdapterHost, JsonValue
from dbgcore.api import Message

#: dbgcore/inprogram/pywatch.py as a module of the program's, and the prefixes of
#: pydevd's and debugpy's own modules (frames between a condition and the
#: frame it is evaluated for).
PYWATCH_MODULE = "_dbg_pywatch"
PYDEVD_MODULES = ("pydevd", "_pydevd", "_pydev", "debugpy")
#: Where pyboot/dbg_boot.py puts a stop's facts in the `stopped` event.
STOP_FACTS_KEY = "dbgStopFacts"


def pyrepr_expression() -> str:
    """An expression for dbgcore/inprogram/pyrepr.py in the program (loaded once)."""
    from dbgcore.api import pyrepr, pywatch

    return pywatch.load_expression(pyrepr.__file__, pyrepr.MODULE_NAME)


def program_repr() -> str:
    """An expression for a bounded repr in the values' own order."""
    return f"{pyrepr_expression()}.keep_order(__import__('reprlib').Repr())"


def exception_call(function: str) -> str:
    """An expression for pyrepr's ``function`` of the exception at this stop
    (pydevd's ``__exception__`` in the stopped frame), as JSON."""
    return f"__import__('json').dumps({pyrepr_expression()}.{function}(__exception__[1]))"


def pywatch_expression() -> str:
    """An expression for dbgcore/inprogram/pywatch.py in the program (loaded once)."""
    from dbgcore.api import pywatch

    return pywatch.load_expression(pywatch.__file__, PYWATCH_MODULE)


def json_answer(body: Message) -> JsonValue:
    """The JSON text an evaluate of pydevd's gave back: as the string's repr
    (in a frame) or as it is (without one)."""
    text = str(body.get("result", ""))
    try:
        inner = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        inner = text
    return json.loads(inner if isinstance(inner, str) else text)


def stop_facts(backend: AdapterHost) -> Message | None:
    """The facts of the current stop that our sitecustomize put in pydevd's
    ``stopped`` event (pyboot/dbg_boot.py's _stop_facts), or None (a
    debuggee without it: ask with an evaluate)."""
    dap = backend.dap
    if dap is None or dap.state != "stopped":
        return None
    facts = dap.stop.body.get(STOP_FACTS_KEY)
    return facts if isinstance(facts, dict) else None


def asyncio_tasks(backend: AdapterHost, limit: int, timeout: float) -> Message:
    """`dbg tasks`: dbgcore/inprogram/pytasks.py's listing, evaluated in the
    stopped thread's innermost frame (pydevd evaluates in that thread, where
    its running event loop is set)."""
    from dbgcore.api import OpFailed, pytasks, pywatch

    frames = backend.stack_frames(timeout)
    if not frames:
        raise OpFailed("the stopped thread has no Python frame to read the tasks in",
                       "`dbg threads` lists the threads; `dbg thread ID` selects one")
    module = pywatch.load_expression(pytasks.__file__, pytasks.MODULE_NAME)
    text = backend.evaluate_in(frames[0], f"__import__('json').dumps({module}.listing({limit}))",
                               timeout)
    return _json_object(text, "cannot list the asyncio tasks")


def value_tree(backend: AdapterHost, expression: str, depth: int, timeout: float) -> Message:
    """`dbg print EXPR --depth N`: dbgcore/inprogram/pytree.py's tree of the
    value, evaluated once in the selected frame (its globals and locals), as
    pdb answers it."""
    from dbgcore.api import OpFailed, pytree, pywatch

    frames = backend.stack_frames(timeout)
    if not frames:
        raise OpFailed("the stopped thread has no Python frame to evaluate in")
    frame = frames[min(backend.frame_index, len(frames) - 1)]
    module = pywatch.load_expression(pytree.__file__, pytree.MODULE_NAME)
    # pyrepr first: the tree's reprs keep a dict's keys in the program's order.
    text = backend.evaluate_in(frame, f"({pyrepr_expression()}, __import__('json').dumps("
                                      f"{module}.tree_of({expression!r}, {depth}, globals(), "
                                      "locals())))[1]", timeout)
    answer = _json_object(text, f"cannot show {expression}")
    if "error" in answer:
        raise OpFailed(str(answer["error"]))
    return answer


def _json_object(text: str, failure: str) -> Message:
    """The JSON object an evaluate gave as a Python string's repr; OpFailed
    with ``failure`` and what it gave instead."""
    from dbgcore.api import OpFailed

    try:
        answer = json.loads(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError) as exc:
        raise OpFailed(f"{failure}: {text[:200]}") from exc
    if not isinstance(answer, dict):
        raise OpFailed(f"{failure}: {text[:200]}")
    return answer
