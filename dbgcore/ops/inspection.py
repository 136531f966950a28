"""The ops that look at a stopped program's frames and values: `dbg stack`,
`frame`, `up`, `down`, `locals`, `print`, `display`, `undisplay`, `set`,
`threads` and `thread`, with the text of each answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.backends.contract import Backend
from dbgcore.ops.stops import shown_text, source_lines, variable_text
from dbgcore.shared.bounds import number_or_name
from dbgcore.shared.errors import (
    DbgError,
    OpFailed,
    UsageError,
)
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:

    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.vocab.model import Frame
    from dbgcore.vocab.opspec import Payload


#: Frames `dbg stack` shows without --levels (a deep recursion has thousands).
STACK_SHOWN = 100


#: Threads `dbg threads` lists.
THREADS_SHOWN = 200

#: asyncio tasks `dbg tasks` lists (the rest are counted).
TASKS_SHOWN = 50

#: Locals whose children `dbg locals --depth` shows (the first ones).
LOCALS_TREES = 30


def handle_stack(session: Session, args: Payload, timeout: float) -> Payload:
    """The frames, each with its arguments; without `--all`, library and
    internal frames (other than frame 0 and the selected one) are left
    out and counted, by the runs they form."""
    from dbgcore.ops.inspecting import fold_recursion, program_frames, shown_frames

    assert session.backend is not None
    frames = session.backend.stack(None, timeout)
    try:
        callers = session.backend.async_callers(timeout)
    except DbgError:
        callers = []  # the live stack still says where the program is
    hidden: list[Payload] = []
    if args.get("all"):
        shown = frames + callers
    else:
        shown, hidden = fold_recursion(*shown_frames(program_frames(frames) + callers))
    levels = int(args.get("levels") or STACK_SHOWN)
    cut = max(len(shown) - levels, 0)
    if cut:
        shown = shown[:levels]
        # Runs past the last frame shown were cut by the budget, not hidden.
        hidden = [run for run in hidden if shown and run["first"] < shown[-1].index]
    _fill_args(session, shown, timeout)
    answer: Payload = {"frames": [f.to_dict() for f in shown], "hidden": hidden,
                       "hidden_frames": sum(run["count"] for run in hidden)}
    if cut and not args.get("levels"):
        answer["cut"] = cut  # (asked with --levels, the rest was not wanted)
    return answer


def _fill_args(session: Session, frames: list[Frame], timeout: float) -> None:
    """Each frame's arguments, values cut short; a debugger that fails to
    say leaves them unknown rather than failing the op."""
    from dbgcore.ops.inspecting import ARG_VALUE_CHARS, cut_value

    assert session.backend is not None
    try:
        session.backend.frame_args(frames, timeout)
    except DbgError:
        return
    for frame in frames:
        if frame.args is not None:
            frame.args = [cut_value(v, ARG_VALUE_CHARS) for v in frame.args]


def handle_frame(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    return _frame_payload(session, session.backend.select_frame(int(args["index"]), timeout),
                               timeout)


def _move_frame(session: Session, delta: int, timeout: float) -> Payload:
    """`up` and `down` move among the frames `dbg stack` shows (numbered
    as in `dbg stack --all`); `dbg frame N` selects a hidden one."""
    from dbgcore.ops.inspecting import program_frames, shown_frames

    assert session.backend is not None
    everything = session.backend.stack(None, timeout)
    # The selected frame may be one `program_frames` leaves out (`frame N`).
    current = next((f.index for f in everything if f.current), 0)
    frames = program_frames(everything)
    shown, _ = shown_frames(frames)
    indexes = sorted({f.index for f in shown} | {current})
    target = indexes.index(current) + delta
    if target < 0:
        raise OpFailed(f"already at the innermost frame ({indexes[0]})",
                       "use `dbg up` to go to callers")
    if target >= len(indexes):
        hint = "use `dbg down` to go back toward the stop"
        if len(shown) < len(frames):
            hint += "; `dbg stack --all` lists the hidden frames, `dbg frame N` selects one"
        raise OpFailed(f"already at the outermost frame shown ({current})", hint)
    return _frame_payload(session, session.backend.select_frame(indexes[target], timeout), timeout)


def handle_up(session: Session, args: Payload, timeout: float) -> Payload:
    return _move_frame(session, int(args.get("count", 1)), timeout)


def handle_down(session: Session, args: Payload, timeout: float) -> Payload:
    return _move_frame(session, -int(args.get("count", 1)), timeout)


def _frame_payload(session: Session, frame: Frame, timeout: float) -> Payload:
    from dbgcore.lang.sourcetext import source_window

    _fill_args(session, [frame], timeout)
    payload: Payload = {"frame": frame.to_dict()}
    if frame.file and frame.line:
        payload["source"] = [
            {"line": n, "text": t, "current": n == frame.line}
            for n, t in source_window(frame.file, frame.line, 2, 2)
        ]
    return payload


def handle_locals(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.lang.rules import runner_temporary
    from dbgcore.ops.inspecting import LOCALS_VALUE_CHARS, cap_variables

    assert session.backend is not None
    variables, cut = cap_variables(
        [v for v in session.backend.locals(timeout) if not runner_temporary(v.name)], None,
        LOCALS_VALUE_CHARS)
    rows = [v.to_dict() for v in variables]
    depth = args.get("depth")
    if depth is not None:
        # Each local's children, as `print NAME --depth N` shows them.
        for row in rows[:LOCALS_TREES]:
            if not row["name"].isidentifier():
                continue  # an adapter's pseudo-variable, no name to evaluate
            tree = session.backend.value_tree(row["name"], int(depth), timeout)
            row.update({k: tree[k] for k in ("children", "more") if k in tree})
    return {"variables": rows, "truncated": cut}


def handle_print(session: Session, args: Payload, timeout: float) -> Payload:
    """One expression: its value, or a failed op. Several (split at
    ``;``): each with its value or its own error, in one answer."""
    from dbgcore.lang.rules import split_expressions
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    text = one_line(args["expression"])
    expressions = split_expressions(text)
    depth = args.get("depth")
    if depth is not None:
        if len(expressions) > 1:
            raise UsageError("--depth shows one expression's children, not several",
                             "print one expression at a time with --depth")
        return {"expression": text, "depth": depth,
                **session.backend.value_tree(text, int(depth), timeout)}
    if len(expressions) <= 1:
        value = session.backend.evaluate(text, timeout)
        return {"expression": text, **value.to_dict()}
    return {"values": session.evaluate_each(expressions, timeout)}


def handle_display(session: Session, args: Payload, timeout: float) -> Payload:
    """Add an expression shown at every later stop; none: list them."""
    from dbgcore.lang.rules import split_expressions
    from dbgcore.ops.inspecting import one_line

    text = args.get("expression")
    if text:
        for expression in split_expressions(one_line(text)):
            session.displays.append((session.display_ids, expression))
            session.display_ids += 1
    return {"display": [{"number": n, "expression": e} for n, e in session.displays]}


def handle_undisplay(session: Session, args: Payload, timeout: float) -> Payload:
    number = args.get("number")
    if number is None:
        session.displays.clear()
    elif not any(n == number for n, _ in session.displays):
        raise OpFailed(f"no display expression {number}", "list them with `dbg display`")
    else:
        session.displays[:] = [(n, e) for n, e in session.displays if n != number]
    return {"display": [{"number": n, "expression": e} for n, e in session.displays]}


def handle_set(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    lhs, value = one_line(args["lhs"]), one_line(args["value"])
    result = session.backend.set_variable(lhs, value, timeout)
    return {"lhs": lhs, **result.to_dict()}


def handle_threads(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    threads = session.backend.threads(timeout)
    answer: Payload = {"threads": [t.to_dict() for t in threads[:THREADS_SHOWN]]}
    if len(threads) > THREADS_SHOWN:
        answer["cut"] = len(threads) - THREADS_SHOWN
    return answer


def handle_tasks(session: Session, args: Payload, timeout: float) -> Payload:
    """The backend's listing of the asyncio tasks, the first
    :data:`TASKS_SHOWN` of them (``more``: the rest, counted)."""
    assert session.backend is not None
    answer = session.backend.op_tasks({**args, "limit": TASKS_SHOWN}, timeout)
    tasks = list(answer.get("tasks") or [])
    more = int(answer.get("more") or 0) + max(len(tasks) - TASKS_SHOWN, 0)
    return {**answer, "tasks": tasks[:TASKS_SHOWN], "more": more}


def handle_thread(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    ident = number_or_name(str(args["id"]), "thread ID")
    return {"thread": session.backend.select_thread(ident, timeout).to_dict()}


#: A frame's arguments together are cut at this length in `dbg stack`.
ARGS_TEXT_CHARS = 160


def render_stack(p: Payload) -> str:
    runs = sorted(p.get("hidden") or [], key=lambda r: r["first"])
    lines = []
    for f in p.get("frames", []):
        while runs and runs[0]["first"] < f["index"]:
            lines.append(_hidden(runs.pop(0)))
        if f.get("async_boundary"):
            lines.append(f"   -- {f['async_boundary']} --")
        mark = ">" if f.get("current") else " "
        lines.append(f"{mark} #{f['index']:<2} {_call(f)} at "
                     f"{f.get('file') or '?'}:{f.get('line') or '?'}{_frame_tag(f)}")
    lines += [_hidden(run) for run in runs]
    if p.get("cut"):
        lines.append(f"... {p['cut']} outer frames not shown (--levels N shows more)")
    return "\n".join(lines) or "no frames"


def _call(f: Payload) -> str:
    """``function(name=value, ...)``; the bare name when the arguments are
    unknown, or for code that takes none and is no function (``<module>``)."""
    name = f.get("function") or "??"
    args = f.get("args")
    if args is None or (not args and name.startswith("<")):
        return name
    text = ", ".join(f"{a['name']}={a['value']}" for a in args)
    if len(text) > ARGS_TEXT_CHARS:
        text = text[: ARGS_TEXT_CHARS - 3] + "..."
    return f"{name}({text})"


def _frame_tag(f: Payload) -> str:
    if f.get("internal"):
        return "  [internal]"
    if f.get("library"):
        return f"  [library{' ' + f['library_name'] if f.get('library_name') else ''}]"
    return ""


def _hidden(run: Payload) -> str:
    count = run["count"]
    if run.get("recursion"):
        calls = f"call{'s' if count != 1 else ''}"
        return (f"   ... {count} more recursive {calls} of {run['recursion']}"
                " (dbg stack --all shows them)")
    names = run.get("of") or []
    whose = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    frames = f"frame{'s' if count != 1 else ''}"
    what = f"{count} {frames} of {whose}" if whose else f"{count} more {frames}"
    return f"   ... {what} (dbg stack --all shows them)"


def render_frame(p: Payload) -> str:
    f = p["frame"]
    head = f"frame #{f['index']}: {_call(f)} at {f.get('file')}:{f.get('line')}{_frame_tag(f)}"
    return "\n".join([head, *source_lines(p.get("source") or [])])


def render_locals(p: Payload) -> str:
    variables = p.get("variables") or []
    lines = [line for v in variables for line in [variable_text(v), *_tree_lines(v, 1)]] \
        or ["no locals"]
    if p.get("truncated"):
        lines.append("(long values cut short; `dbg print NAME` shows one in full)")
    return "\n".join(lines)


def render_print(p: Payload) -> str:
    if "values" in p:
        return "\n".join(shown_text(v) for v in p["values"])
    kind = f" ({p['type']})" if p.get("type") else ""
    return "\n".join([f"{p['value']}{kind}", *_tree_lines(p, 1)])


def _tree_lines(row: Payload, level: int) -> list[str]:
    """`print --depth`'s children, one a line, indented by their level:
    ``  'a' = {'b': {...}} (dict)``; ``... N more`` where a level was cut."""
    lines = []
    pad = "  " * level
    for child in row.get("children") or []:
        kind = f" ({child['type']})" if child.get("type") else ""
        lines.append(f"{pad}{child['name']} = {child['value']}{kind}")
        lines += _tree_lines(child, level + 1)
    if row.get("more"):
        lines.append(f"{pad}... {row['more']} more")
    return lines


def render_display(p: Payload) -> str:
    rows = p.get("display") or []
    if not rows:
        return "no display expressions"
    return "\n".join(f"{d['number']}: {d['expression']}" for d in rows)


def render_set(p: Payload) -> str:
    return f"{p['lhs']} = {p['value']}" + (f" ({p['type']})" if p.get("type") else "")


def render_threads(p: Payload) -> str:
    lines = [f"{'*' if t.get('current') else ' '} {t['id']} {t['name']}{_thread_place(t)}"
             for t in p.get("threads", [])]
    if p.get("cut"):
        lines.append(f"... {p['cut']} more threads not listed")
    return "\n".join(lines) or "no threads"


def _thread_place(thread: Payload) -> str:
    """Where a thread's own code is and why it waits, where the backend said:
    "  at main.go:12 in main.tally (waiting: chan send)"."""
    place = ""
    if thread.get("file") and thread.get("line"):
        place = f"  at {thread['file']}:{thread['line']}"
        if thread.get("function"):
            place += f" in {thread['function']}"
    if thread.get("waits"):
        place += f" ({thread.get('state') or 'waiting'}: {thread['waits']})"
    return place


def render_tasks(p: Payload) -> str:
    """One line a task: ``* reporter  report()  pending  at app.py:28``,
    then what it awaits or how it ended; ``*`` marks the task running at
    the stop."""
    lines = []
    for t in p.get("tasks") or []:
        place = f"  at {t['file']}:{t['line']}" if t.get("file") else ""
        then = f"  awaits {t['awaits']}" if t.get("awaits") else \
            f"  {t['outcome']}" if t.get("outcome") else ""
        lines.append(f"{'*' if t.get('current') else ' '} {t['name']}  {t['coro']}()  "
                     f"{t['state']}{place}{then}")
    if p.get("more"):
        lines.append(f"+{p['more']} more tasks not listed")
    return "\n".join(lines) or f"no asyncio tasks ({p.get('none_why') or 'none alive'})"


def render_thread(p: Payload) -> str:
    t = p["thread"]
    return f"thread {t['id']} {t['name']}"


#: The inspection ops, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("stack", "Show the call stack of the current thread.", (
        Arg("levels", "int", "Show at most N frames.", flags=("--levels",), minimum=1,
            metavar="N"),
        Arg("all", "bool", "Also the frames it hides: libraries' and test runners' (the "
            "standard library, site-packages, Go's testing, java.*), the runtime's (runpy, "
            "libc, runtime.main).", flags=("--all",)),
    ), needs="stopped", handler=handle_stack, method=Backend.stack, title="stack traces",
       own_tool=True,
       render=render_stack, details=(
        "Each frame shows its arguments (`fee(amount=1000)`, values cut at 60 characters). "
        "Library and runtime frames are hidden, except frame 0 and the selected one, and "
        "counted in their place (`... 24 frames of _pytest, pluggy`); so is the middle "
        "of a deep recursion (`... 96 more recursive calls of depth`). Frames keep the "
        "numbers `dbg stack --all` gives them; `dbg frame N` selects any of them, `up` "
        "and `down` move among the frames shown and through a recursion.")),
    Op("frame", "Select frame INDEX (0 is where the target stopped).", (
        Arg("index", "int", "The frame's index in `dbg stack` (a hidden one's in "
            "`dbg stack --all`).", required=True, minimum=0),
    ), needs="stopped", handler=handle_frame, method=Backend.select_frame,
       title="frame selection",
       own_tool=True,
       render=render_frame),
    Op("up", "Select the caller's frame (COUNT levels up).", (
        Arg("count", "int", "How many levels.", default=1, minimum=1),
    ), needs="stopped", handler=handle_up, render=render_frame),
    Op("down", "Select the callee's frame (COUNT levels down).", (
        Arg("count", "int", "How many levels.", default=1, minimum=1),
    ), needs="stopped", handler=handle_down, render=render_frame),
    Op("locals", "Show the local variables of the selected frame.", (
        Arg("depth", "int", "Also each one's children, N levels deep, as `print --depth` "
            "shows them (pdb, debugpy).", flags=("--depth",), minimum=1, maximum=10,
            metavar="N"),
    ), needs="stopped", own_tool=True,
       handler=handle_locals, method=Backend.locals, title="locals", render=render_locals),
    Op("print", "Evaluate EXPRESSION in the selected frame; `;` separates several.", (
        Arg("expression", "text", "One expression, or several separated by `;` "
            "(`dbg print 'x; y + 1'`).", required=True, expression=True),
        Arg("depth", "int", "Also the value's children, N levels deep: items, keys, "
            "attributes (20 a level, the rest counted; pdb, debugpy).", flags=("--depth",),
            minimum=1, maximum=10, metavar="N"),
    ), needs="stopped", handler=handle_print, method=Backend.evaluate,
       title="expression evaluation",
       own_tool=True,
       render=render_print),
    Op("display", "Show EXPRESSION at every later stop (no argument: list them).", (
        Arg("expression", "text", "The expression to show.", expression=True),
    ), handler=handle_display, render=render_display, ended_ok=True),
    Op("undisplay", "Stop showing an expression at stops (by its number, or all).", (
        Arg("number", "int", "The number `dbg display` gave it; none: all.", minimum=1),
    ), handler=handle_undisplay, render=render_display, ended_ok=True),
    Op("set", "Assign VALUE (an expression) to LHS in the selected frame.", (
        Arg("lhs", "str", "A variable or field.", required=True, one_line=True,
            expression=True),
        Arg("value", "text", "The new value, an expression.", required=True, expression=True),
    ), needs="stopped", handler=handle_set, method=Backend.set_variable,
       title="setting variables",
       render=render_set, core_ok=False),
    Op("threads", "List threads.", needs="stopped", handler=handle_threads,
       method=Backend.threads, title="thread listing", render=render_threads),
    Op("tasks", "List the asyncio tasks: each one's coroutine, state, where it is suspended "
       "and what it awaits.", needs="stopped", method=Backend.op_tasks,
       handler=handle_tasks, render=render_tasks, details=(
        "Read in the stopped program: the tasks of the event loop running in the stopped "
        "thread (every live task when none runs there), done and cancelled ones that are "
        "still alive too: asyncio's numbered ones (Task-1, Task-2...) first, then the named ones "
        "by name. `*` marks the task running at the stop; "
        "`awaits` follows its coroutine's awaits down to the future or task it waits on "
        "(`Queue.get -> Future pending`, `task sleeper (doze)`). At most 50 are listed, "
        "the rest counted.")),
    Op("thread", "Select thread ID.", (
        Arg("id", "str", "The thread's id from `dbg threads`.", required=True, metavar="ID"),
    ), needs="stopped", handler=handle_thread, method=Backend.select_thread,
       title="thread selection",
       render=render_thread),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
