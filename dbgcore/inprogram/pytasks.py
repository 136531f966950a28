"""`dbg tasks`: a stopped Python program's asyncio tasks, read inside it.

At a stop the event loop is in the middle of running one task's step, so
the tasks are read the way ``python -m asyncio ps`` (3.14) reads them, but
from within: the loop running in the stopped thread
(``asyncio.events._get_running_loop()``, set while a loop runs even when
the thread is stopped inside it), its tasks (``asyncio.all_tasks``, the
pending ones, and the weak set of every task still alive, for the done and
cancelled ones), and for each its coroutine's chain of awaits: the
coroutine, the coroutines it awaits in turn (``cr_await``), each
suspended at a line, down to the future or task it waits on
(``_fut_waiter``). Without a loop in that thread (a stop in another
thread), every live task of every loop is listed.

It runs in the *debuggee* (the pdb launcher loads it by its path, as
``_dbg_pytasks``; so does a debugpy evaluate), so it imports only the
standard library, keeps to Python 3.8's syntax, and never imports asyncio
into a program that has not.
"""

from __future__ import annotations

import reprlib
import sys
from typing import Any

#: Its name as a module of the program's.
MODULE_NAME = "_dbg_pytasks"

#: Awaits followed down one task's chain (a deeper one is cut).
CHAIN_LIMIT = 20

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 120


def _safe(value: Any) -> str:
    try:
        return _short.repr(value)
    except Exception as exc:  # a repr that raises is the program's bug, not ours
        return f"<repr failed: {type(exc).__name__}>"


def _name(code_object: Any) -> str:
    for attribute in ("__qualname__", "__name__"):
        name = getattr(code_object, attribute, None)
        if isinstance(name, str):
            return name
    return type(code_object).__name__


def _frame_of(awaitable: Any) -> Any:
    for attribute in ("cr_frame", "gi_frame", "ag_frame"):
        frame = getattr(awaitable, attribute, None)
        if frame is not None:
            return frame
    return None


def _chain(coro: Any) -> list[Any]:
    """The coroutine and those it awaits in turn, each with where it is
    suspended (or runs): [{function, file, line}], outermost first; and
    what the innermost awaits when that is no coroutine (a future, a task,
    a plain awaitable), or None."""
    rows = []
    current = coro
    for _ in range(CHAIN_LIMIT):
        frame = _frame_of(current)
        if frame is None:
            break
        rows.append({"function": _name(current), "file": frame.f_code.co_filename,
                     "line": frame.f_lineno})
        inner = None
        for attribute in ("cr_await", "gi_yieldfrom", "ag_await"):
            inner = getattr(current, attribute, None)
            if inner is not None:
                break
        if inner is None:
            return [rows, None]
        if _frame_of(inner) is None and not hasattr(inner, "cr_await"):
            return [rows, inner]
        current = inner
    return [rows, None]


def _task_name(task: Any) -> str:
    try:
        return str(task.get_name())
    except Exception:
        return _safe(task)


def _waited(asyncio: Any, thing: Any, names: dict[int, str]) -> str:
    """What a task waits on, in words: another task by its name, a gather's
    children, a future (pending, done)."""
    if thing is None:
        return ""
    task_class = getattr(asyncio, "Task", None)
    if task_class is not None and isinstance(thing, task_class):
        return f"task {names.get(id(thing)) or _task_name(thing)} ({_name(thing.get_coro())})"
    children = getattr(thing, "_children", None)
    if isinstance(children, (list, tuple)):
        return "gather({})".format(", ".join(_waited(asyncio, c, names) for c in children))
    done = getattr(thing, "done", None)
    if callable(done):
        try:
            state = "cancelled" if thing.cancelled() else "done" if done() else "pending"
        except Exception:
            state = "?"
        return f"{type(thing).__name__} {state}"
    return _safe(thing)


def _state(task: Any) -> list[Any]:
    """pending, done or cancelled, and for a done task its result or exception."""
    if not task.done():
        return ["pending", ""]
    if task.cancelled():
        return ["cancelled", ""]
    error = task.exception()
    if error is not None:
        return ["done", f"raised {type(error).__name__}: {str(error)[:120]}"]
    return ["done", f"returned {_safe(task.result())}"]


def _every_task(asyncio: Any, loop: Any) -> list[Any]:
    """The tasks of ``loop`` (None: of every loop): pending ones, and the
    done ones still alive, which asyncio.all_tasks leaves out."""
    found: dict[int, Any] = {}
    tasks_module = getattr(asyncio, "tasks", None)
    for holder in ("_all_tasks", "_scheduled_tasks"):
        for task in list(getattr(tasks_module, holder, None) or ()):
            found[id(task)] = task
    if loop is not None:
        for task in list(asyncio.all_tasks(loop)):
            found[id(task)] = task
        return [t for t in found.values() if t.get_loop() is loop]
    return list(found.values())


def _order(task: Any) -> tuple[int, int, str]:
    """asyncio's own names (Task-1, Task-2...) in creation order, then the
    named ones by name."""
    name = _task_name(task)
    if name.startswith("Task-") and name[5:].isdigit():
        return (0, int(name[5:]), "")
    return (1, 0, name)


def listing(limit: int = 50) -> dict[str, Any]:
    """The program's tasks, at most ``limit`` of them (``more``: how many
    more), for `dbg tasks`; ``none_why`` says why there are none."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return {"tasks": [], "more": 0, "none_why": "the program has not imported asyncio"}
    loop = asyncio.events._get_running_loop()
    tasks = sorted(_every_task(asyncio, loop), key=_order)
    current = asyncio.current_task(loop) if loop is not None else None
    names = {id(t): _task_name(t) for t in tasks}
    rows = []
    for task in tasks[:limit]:
        coro = task.get_coro()
        chain, inner = _chain(coro)
        state, outcome = _state(task)
        waiter = getattr(task, "_fut_waiter", None)
        awaits = [row["function"] for row in chain[1:]]
        waited = _waited(asyncio, waiter if waiter is not None else inner, names)
        if waited:
            awaits.append(waited)
        rows.append({"name": names[id(task)], "coro": _name(coro), "state": state,
                     "outcome": outcome, "current": task is current,
                     "file": chain[0]["file"] if chain else None,
                     "line": chain[0]["line"] if chain else None,
                     "awaits": " -> ".join(awaits), "chain": chain})
    why = "" if tasks or loop is not None else "no asyncio task is alive"
    if not tasks and loop is not None:
        why = "the running loop has no tasks"
    return {"tasks": rows, "more": max(len(tasks) - limit, 0), "none_why": why,
            "loop": loop is not None}
