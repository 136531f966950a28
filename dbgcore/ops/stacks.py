"""`dbg stacks`: every thread's stack of a program that may be running —
deadlocked, blocked in C, or in an endless loop — without it reaching a
line; and `dbg pause` on a Python program whose threads are all blocked in
C, which no debugger's pause can stop, answered with those stacks at once.

The op's whole story is here: its declaration (:data:`OP`), the front end's
side (:func:`run`: ``--pid`` is read in the client's own process, no
session needed), the daemon's (:func:`handle`, and :func:`beside` while
another client's op waits for the program), and its text (:func:`render`).

How the stacks are read, first that works:

1. The program is a Python process (``--pid``, or the session's program by
   :meth:`Backend.program_pids`): py-spy reads them from outside, while it
   runs (:mod:`dbgcore.backends.pyspy`).
2. The backend reads them by its debugger's own means
   (:meth:`Backend.thread_stacks`).
3. The backend lists threads, selects one and gives its stack: at a stop,
   dbg walks every thread that way and selects the one it found again. A
   running program is paused for the walk and resumed after it (the
   answer says how long it was held); while another client's op waits for
   the program, it is refused, saying it must be stopped first.
4. Else the op is refused (:class:`UnsupportedOp`, naming the tool and
   `dbg raw`).
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any

from dbgcore.backends import pyspy
from dbgcore.backends.contract import Backend
from dbgcore.ops.inspecting import fold_recursion, program_frames, shown_frames
from dbgcore.shared.errors import DbgError, NotStopped
from dbgcore.vocab.model import StopEvent, StopSnapshot, ThreadStack
from dbgcore.vocab.opspec import Arg, Op, Payload, add_ops_hook

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.vocab.opspec import Via

#: Threads an answer shows; the rest are counted.
THREADS_SHOWN = 32
#: Frames each thread shows, after library frames are folded.
FRAMES_SHOWN = 24
#: How long `dbg pause` waits for a Python program to stop before py-spy
#: looks whether its threads are all blocked in C, and between two looks.
PAUSE_TRY = 2.0
#: How long a program paused for its stacks is watched as it resumes (a
#: breakpoint it hits at once is its next stop).
RESUME_WAIT = 0.05


def run(values: Payload, session: str, timeout: float,
        front: Front | None) -> tuple[Payload, Via | None]:
    """``--pid``: py-spy's reading of that process, here; else the session's
    daemon answers (:func:`handle`)."""
    pid = values.get("pid")
    if pid is not None:
        threads = pyspy.dump(int(pid), bool(values.get("locals")), timeout)
        return answer(threads, values, pid=int(pid), source=_pyspy_name()), \
            {"tool": "py-spy", "version": _pyspy_version()}
    from dbgcore.shared import client

    response = client.call(session, "stacks", {k: v for k, v in values.items()
                                                if v is not None}, timeout)
    if not response.get("ok"):
        raise DbgError.from_wire(response.get("error") or {})
    result: Payload = response.get("result") or {}
    return result, response.get("via")


def handle(session: Session, args: Payload, timeout: float) -> Payload:
    """The session's program's stacks, by the first means that works (see
    the module's docstring)."""
    backend = session.backend
    assert backend is not None
    with_locals = bool(args.get("locals"))
    pid = python_pid(session)
    if pid is not None:
        return answer(pyspy.dump(pid, with_locals, timeout), args, pid=pid,
                      source=_pyspy_name())
    own_means = type(backend).thread_stacks is not Backend.thread_stacks
    running = session.state() == "running"
    if own_means and (running or not backend.has_fallback("thread_stacks")):
        # The debugger's own means (jstack), which need no stop; at a stop,
        # dbg's walk reads what the debugger shows.
        return answer(backend.thread_stacks(with_locals, timeout), args,
                      source=_means(backend))
    if not backend.has_fallback("thread_stacks"):
        raise backend.unsupported("stacks", "a Python program's stacks are read with py-spy; "
                                  f"for this one: `dbg raw` with {backend.tool_name}'s own "
                                  "command, at a stop")
    if running:
        return _paused_walk(session, args, timeout)
    threads = walk_threads(backend, timeout)
    payload = answer(threads, args, source=backend.tool_name)
    if with_locals:
        payload["note"] = "--locals: only for Python programs (py-spy); `dbg locals` at a frame"
    return payload


def beside(session: Session, args: Payload, timeout: float,
           busy: str) -> tuple[Payload | None, Payload]:
    """While another client's op waits for the program: a Python program's
    stacks at once (py-spy needs no debugger); any other is refused, since
    the debugger can read stacks only at a stop."""
    pid = python_pid(session)
    backend = session.backend
    if pid is None and backend is not None \
            and type(backend).thread_stacks is not Backend.thread_stacks:
        return answer(backend.thread_stacks(bool(args.get("locals")), timeout), args,
                      source=_means(backend)), {}
    if pid is None:
        tool = backend.tool_name if backend is not None else "the debugger"
        raise _must_stop(tool, f"another call's `{busy}` waits for the program; ")
    threads = pyspy.dump(pid, bool(args.get("locals")), timeout)
    return answer(threads, args, pid=pid, source=_pyspy_name()), {}


def _means(backend: Backend) -> str:
    """What read the stacks by the backend's own means (jstack for jdb)."""
    return backend.stacks_tool or backend.tool_name


def python_pid(session: Session) -> int | None:
    """The session's program's process, when it is a Python one py-spy can
    read (the first of its processes; an attached one's pid); else None."""
    backend = session.backend
    if backend is None or pyspy.find() is None:
        return None
    pids = [p for p in backend.program_pids() if p > 0]
    attached = session.attach_request.pid if session.attach_request is not None else None
    if not pids and attached:
        pids = [attached]
    return next((p for p in pids if pyspy.is_python(p)), None)


def _paused_walk(session: Session, args: Payload, timeout: float) -> Payload:
    """A running program's stacks where its debugger reads them only at a
    stop (gdb, lldb...): paused for as long as the walk takes, then resumed,
    so that to the user it keeps running. The pause is no stop of the
    session's: it is not recorded, and the session's last stop stays
    "running". Should the program stop again at once (a breakpoint hit as
    it resumed), that stop is the session's, as after `dbg continue`."""
    backend = session.backend
    assert backend is not None
    if type(backend).pause is Backend.pause:
        raise _must_stop(backend.tool_name)
    began = time.monotonic()
    event = backend.pause(timeout)
    if event.state != "stopped":
        if event.state == "exited":
            session.snapshot(event, timeout)
            raise NotStopped("the program ended before its stacks were read",
                             "`dbg status`; `dbg restart` runs it again")
        raise _must_stop(backend.tool_name, "it did not pause in time; ")
    try:
        threads = walk_threads(backend, timeout)
    finally:
        held = time.monotonic() - began
        resumed = backend.cont(RESUME_WAIT)
    payload = answer(threads, args, source=backend.tool_name)
    note = f"the program was paused for {held * 1000:.0f} ms to read them, then resumed"
    if resumed.state != "running":
        again = session.snapshot(resumed, timeout)
        note += f"; it stopped again at once ({again.state}" + (
            f": {again.reason}" if again.reason else "") + ")"
    payload["note"] = "; ".join(n for n in (payload.get("note"), note) if n)
    return payload


def walk_threads(backend: Backend, timeout: float) -> list[ThreadStack]:
    """Every thread's stack at a stop, by selecting each in turn; the thread
    and frame selected before are selected again, so the walk leaves the
    session where it was."""
    threads = backend.threads(timeout)
    own = backend.stack(None, timeout)
    current = next((t for t in threads if t.current), None)
    selected = next((f.index for f in own if f.current), 0)
    out: list[ThreadStack] = []
    moved = False
    try:
        for thread in threads[:THREADS_SHOWN]:
            if thread is current:
                frames = own
            else:
                backend.select_thread(thread.id, timeout)
                moved = True
                frames = backend.stack(None, timeout)
            wait = backend.thread_wait(timeout)
            out.append(ThreadStack(thread.id, thread.name, frames,
                                   state=wait[0] if wait else "stopped",
                                   current=thread is current, waits=wait[1] if wait else None))
    finally:
        if moved and current is not None:
            backend.select_thread(current.id, timeout)
            if selected:
                backend.select_frame(selected, timeout)
    return out


def _must_stop(tool: str, why: str = "") -> NotStopped:
    return NotStopped(f"{why}{tool} reads stacks only at a stop: it must stop the program "
                      "first", "`dbg pause`, then `dbg stacks` (every thread's)")


# -- `dbg pause` on a Python program blocked in C ----------------------------------------


def pause(session: Session, timeout: float) -> StopEvent | Payload:
    """The backend's pause; but on a Python program whose threads are all
    blocked in C, where neither pdb's SIGINT nor debugpy's pause reaches
    them, "running" soon with every thread's stacks instead of the pause's
    timeout run out. The pause is tried first, for a short while: a program
    that runs Python code (or merely sleeps) stops in it, and py-spy is
    never asked. While it does not stop, py-spy looks every
    :data:`PAUSE_TRY` seconds whether the program's threads are all blocked
    (a look taken once could fall on a moment when one is not yet, or when
    the debugger's own threads are busy with the pause). The pause stays
    asked: a thread that comes back to Python code stops, and `dbg wait` or
    `dbg status` sees it."""
    backend = session.backend
    assert backend is not None
    pid = python_pid(session)
    if pid is None:
        return backend.pause(timeout)
    deadline = time.monotonic() + timeout
    event = backend.pause(min(PAUSE_TRY, timeout))
    while event.state == "running":
        threads = _all_blocked(pid, max(deadline - time.monotonic(), 0.5))
        if threads:
            return blocked_answer(threads, pid)
        left = deadline - time.monotonic()
        if left <= 0:
            break
        stopped = backend.poll(min(PAUSE_TRY, left))
        if stopped is not None:
            return stopped
    return event


def _all_blocked(pid: int, timeout: float) -> list[ThreadStack]:
    """Every thread of ``pid``, when py-spy finds all of the program's idle;
    else []. A thread with none of the program's frames (the debugger's
    own, a pool's idle worker) is not asked to be idle: debugpy's wake up
    on timers and to answer the pause itself."""
    try:
        threads = pyspy.dump(pid, False, min(timeout, 10.0))
    except DbgError:
        return []
    own = [t for t in threads if any(not (f.library or f.internal) for f in t.frames)]
    return threads if own and all(t.state == "idle" for t in own) else []


def blocked_answer(threads: list[ThreadStack], pid: int) -> Payload:
    """A pause's answer when every thread is blocked in C: still running,
    ``blocked``, and the stacks."""
    stacks = answer(threads, {}, pid=pid, source=_pyspy_name())
    return {**StopSnapshot(state="running").to_dict(), "blocked": True, **stacks,
            "note": "the pause stays asked: a thread that gets back to Python code stops "
                    "(`dbg wait`); `dbg kill` ends it"}


# -- the answer -----------------------------------------------------------------------


def answer(threads: list[ThreadStack], args: Payload, *, source: str,
           pid: int | None = None) -> Payload:
    """The JSON answer: each thread with its frames, library and runtime
    frames folded and counted as `dbg stack` folds them (unless ``all``)."""
    shown_threads = []
    folded = [] if args.get("all") else [
        t for t in threads[1:] if not t.current and t.frames
        and all(f.library or f.internal for f in t.frames)]
    for thread in [t for t in threads if t not in folded][:THREADS_SHOWN]:
        frames, hidden = (thread.frames, []) if args.get("all") else \
            fold_recursion(*shown_frames(program_frames(thread.frames)))
        cut = max(len(frames) - FRAMES_SHOWN, 0)
        frames = frames[:FRAMES_SHOWN]
        if cut:
            hidden = [run for run in hidden if frames and run["first"] < frames[-1].index]
        entry: Payload = {
            "id": thread.id, "name": thread.name, "state": thread.state, "gil": thread.gil,
            "current": thread.current, "frames": [f.to_dict() for f in frames],
            "hidden": hidden, "hidden_frames": sum(run["count"] for run in hidden)}
        if cut:
            entry["cut"] = cut
        if thread.waits:
            entry["waits"] = thread.waits
        if thread.locals is not None:
            entry["locals"] = {str(f.index): [v.to_dict() for v in thread.locals[f.index]]
                               for f in frames if thread.locals.get(f.index)}
        shown_threads.append(entry)
    payload: Payload = {"pid": pid, "source": source, "threads": shown_threads}
    if folded:
        # A pool's idle workers, the debugger's own threads: nothing of the
        # program's on their stacks.
        payload["library_threads"] = {"count": len(folded), "names": [t.name for t in folded]}
    if len(threads) - len(folded) > THREADS_SHOWN:
        payload["threads_cut"] = len(threads) - len(folded) - THREADS_SHOWN
    return payload


def render(p: Payload) -> str:
    """One header line (whose process, read by what), then per thread a
    line and its frames, innermost first."""
    lines = [_header(p)]
    for thread in p.get("threads") or []:
        lines += _thread_lines(thread)
    if p.get("threads_cut"):
        lines.append(f"... {p['threads_cut']} more threads not shown")
    folded = p.get("library_threads")
    if folded:
        names = ", ".join(folded["names"][:4]) + (", ..." if len(folded["names"]) > 4 else "")
        lines.append(f"... {folded['count']} thread{'s' if folded['count'] != 1 else ''} "
                     f"with library code only: {names} (--all shows them)")
    return "\n".join(lines)


def blocked_lines(p: Payload) -> list[str]:
    """A pause's "running" answer on a program blocked in C (a stop
    snapshot's text calls this for a ``blocked`` one)."""
    return ["running: every thread is blocked in C (a lock, a read, a sleep), "
            "where the debugger's pause cannot stop it; their stacks:",
            *render(p).splitlines()[1:]]


def _header(p: Payload) -> str:
    whose = f"process {p['pid']}" if p.get("pid") else "the program"
    count = len(p.get("threads") or []) + int(p.get("threads_cut") or 0) + int(
        (p.get("library_threads") or {}).get("count") or 0)
    return f"{whose}: {count} thread{'s' if count != 1 else ''} (read by {p.get('source')})"


def _thread_lines(t: Payload) -> list[str]:
    state = t.get("state") or ""
    if t.get("gil"):
        state += ", holds the GIL"
    elif state == "idle":
        state += ": blocked in C, or waiting"
    head = f"{'*' if t.get('current') else ' '} thread {t['id']} {t['name']!r}"
    lines = [f"{head} ({state})" if state else head]
    if t.get("waits"):
        lines.append(f"    {t['waits']}")
    runs = sorted(t.get("hidden") or [], key=lambda r: r["first"])
    local_values: dict[str, Any] = t.get("locals") or {}
    for f in t.get("frames") or []:
        while runs and runs[0]["first"] < f["index"]:
            lines.append(_folded(runs.pop(0)))
        lines.append(f"    #{f['index']:<2} {_call(f)} at {f.get('file') or '?'}:"
                     f"{f.get('line') or '?'}")
        for v in local_values.get(str(f["index"])) or []:
            lines.append(f"          {v['name']} = {v['value']}")
    lines += [_folded(run) for run in runs]
    if t.get("cut"):
        lines.append(f"    ... {t['cut']} outer frames not shown")
    return lines


def _call(f: Payload) -> str:
    name = str(f.get("function") or "??")
    given = f.get("args")
    if not given:
        return name
    text = ", ".join(f"{a['name']}={a['value']}" for a in given)
    return f"{name}({text})"[:120]


def _folded(run: Payload) -> str:
    if run.get("recursion"):
        return f"    ... {run['count']} more recursive calls of {run['recursion']}"
    whose = ", ".join(run.get("of") or []) or "libraries"
    return f"    ... {run['count']} frame{'s' if run['count'] != 1 else ''} of {whose}"


@functools.cache
def _pyspy_version() -> str:
    """py-spy's version, asked once per process."""
    path = pyspy.find()
    return pyspy.version(path) if path else ""


def _pyspy_name() -> str:
    found = _pyspy_version()
    return f"py-spy {found}" if found else "py-spy"


OP = Op(
    "stacks", "Every thread's stack of a running program, without stopping it "
    "(--pid: any Python process).", (
        Arg("pid", "int", "A Python process to read (no session needed).", flags=("--pid",),
            minimum=1),
        Arg("locals", "bool", "Also each frame's local variables (Python).",
            flags=("--locals",)),
        Arg("all", "bool", "Also the library and runtime frames each stack folds.",
            flags=("--all",)),
    ), needs="none", send="local", run=run, handler=handle, beside=beside,
    method=Backend.thread_stacks, title="all-thread stacks", render=render, details=(
        "For a deadlock, a thread blocked in C, an endless loop: what every thread is "
        "doing now. A Python program's stacks are read by py-spy from outside, while it "
        "runs, with each thread's state (idle: blocked in C or waiting; running; holds "
        "the GIL); no breakpoint or stop is needed. A running Java program's are read "
        "by jstack, with what each thread waits for and who holds it. Other programs: "
        "the debugger's threads and stacks, read at a stop (a running program is paused "
        "for the read and resumed, which the answer says; `dbg caps` row stacks). Library "
        "frames are folded as `dbg stack` folds them (--all shows them).\n\n"
        "  dbg stacks\n"
        "  dbg stacks --pid 4242 --locals"))

dbg_add_ops = add_ops_hook((OP,))
