"""The inspection ops of a session (stack, frames, variables, threads,
source, output, raw), and the helpers they share with :mod:`dbgcore.session`.

A mixin of :class:`dbgcore.session.Session`: the ops read the session's
backend and last stop, and never move the target (except `dbg raw`, whose
command may).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from dbgcore.errors import DbgError, OpFailed, TargetExited, UsageError
from dbgcore.lang import split_expressions
from dbgcore.model import BreakLoc, Frame, Location, StopEvent, StopSnapshot, Variable
from dbgcore.output import OutputBuffer
from dbgcore.source import source_problem, source_window

if TYPE_CHECKING:
    from dbgcore.backend import Backend, LaunchRequest

#: ``dbg locals`` cuts single values at this length: a frame holding a
#: million-element list and a 10 MB string still answers in a few KB.
LOCALS_VALUE_CHARS = 1000
#: Values shown for several expressions at once are cut at this length.
SHOWN_VALUE_CHARS = 400
#: `dbg stack` cuts each argument's value at this length.
ARG_VALUE_CHARS = 60


class InspectOps:
    backend: Backend | None
    #: `dbg display` expressions, by number.
    displays: list[tuple[int, str]]
    _display_ids: int
    last: StopSnapshot | None
    output: OutputBuffer
    launch_request: LaunchRequest | None

    def _snapshot(self, event: StopEvent, timeout: float) -> StopSnapshot:
        raise NotImplementedError

    def op_stack(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The frames, each with its arguments; without `--all`, library and
        internal frames (other than frame 0 and the selected one) are left
        out and counted, by the runs they form."""
        assert self.backend is not None
        frames = self.backend.stack(None, timeout)
        hidden: list[dict[str, Any]] = []
        if args.get("all"):
            shown = frames
        else:
            shown, hidden = shown_frames(program_frames(frames))
        levels = args.get("levels")
        if levels:
            shown = shown[:int(levels)]
            # Runs past the last frame shown were cut by --levels, not hidden.
            hidden = [run for run in hidden if shown and run["first"] < shown[-1].index]
        self._fill_args(shown, timeout)
        return {"frames": [f.to_dict() for f in shown], "hidden": hidden,
                "hidden_frames": sum(run["count"] for run in hidden)}

    def _fill_args(self, frames: list[Frame], timeout: float) -> None:
        """Each frame's arguments, values cut short; a debugger that fails to
        say leaves them unknown rather than failing the op."""
        assert self.backend is not None
        try:
            self.backend.frame_args(frames, timeout)
        except DbgError:
            return
        for frame in frames:
            if frame.args is not None:
                frame.args = [cut_value(v, ARG_VALUE_CHARS) for v in frame.args]

    def op_frame(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._frame_payload(self.backend.select_frame(int(args["index"]), timeout),
                                   timeout)

    def _move_frame(self, delta: int, timeout: float) -> dict[str, Any]:
        """`up` and `down` move among the frames `dbg stack` shows (numbered
        as in `dbg stack --all`); `dbg frame N` selects a hidden one."""
        assert self.backend is not None
        everything = self.backend.stack(None, timeout)
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
        return self._frame_payload(self.backend.select_frame(indexes[target], timeout), timeout)

    def op_up(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return self._move_frame(int(args.get("count", 1)), timeout)

    def op_down(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return self._move_frame(-int(args.get("count", 1)), timeout)

    def _frame_payload(self, frame: Frame, timeout: float) -> dict[str, Any]:
        self._fill_args([frame], timeout)
        payload: dict[str, Any] = {"frame": frame.to_dict()}
        if frame.file and frame.line:
            payload["source"] = [
                {"line": n, "text": t, "current": n == frame.line}
                for n, t in source_window(frame.file, frame.line, 2, 2)
            ]
        return payload

    def op_locals(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        variables, cut = cap_variables(self.backend.locals(timeout), None, LOCALS_VALUE_CHARS)
        return {"variables": [v.to_dict() for v in variables], "truncated": cut}

    def op_print(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One expression: its value, or a failed op. Several (split at
        ``;``): each with its value or its own error, in one answer."""
        assert self.backend is not None
        text = one_line(args["expression"])
        expressions = split_expressions(text)
        if len(expressions) <= 1:
            value = self.backend.evaluate(text, timeout)
            return {"expression": text, **value.to_dict()}
        return {"values": self.evaluate_each(expressions, timeout)}

    def evaluate_each(self, expressions: list[str], timeout: float) -> list[dict[str, Any]]:
        """Each expression's value, or the reason it has none."""
        assert self.backend is not None
        out: list[dict[str, Any]] = []
        for expression in expressions:
            try:
                value = self.backend.evaluate(expression, timeout)
            except DbgError as exc:
                out.append({"expression": expression, "error": exc.message})
                if exc.kind not in ("failed", "usage"):
                    break  # the debugger is gone or wedged: do not ask again
                continue
            row = {"expression": expression, **value.to_dict()}
            if len(row["value"]) > SHOWN_VALUE_CHARS:
                row["value"] = row["value"][: SHOWN_VALUE_CHARS - 3] + "..."
            out.append(row)
        return out

    def op_display(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Add an expression shown at every later stop; none: list them."""
        text = args.get("expression")
        if text:
            for expression in split_expressions(one_line(text)):
                self.displays.append((self._display_ids, expression))
                self._display_ids += 1
        return {"display": [{"number": n, "expression": e} for n, e in self.displays]}

    def op_undisplay(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        number = args.get("number")
        if number is None:
            self.displays.clear()
        elif not any(n == number for n, _ in self.displays):
            raise OpFailed(f"no display expression {number}", "list them with `dbg display`")
        else:
            self.displays[:] = [(n, e) for n, e in self.displays if n != number]
        return {"display": [{"number": n, "expression": e} for n, e in self.displays]}

    def op_set(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        lhs, value = one_line(args["lhs"]), one_line(args["value"])
        result = self.backend.set_variable(lhs, value, timeout)
        return {"lhs": lhs, **result.to_dict()}

    def op_threads(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return {"threads": [t.to_dict() for t in self.backend.threads(timeout)]}

    def op_thread(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        ident = args["id"]
        return {"thread": self.backend.select_thread(int(ident) if str(ident).isdigit() else ident,
                                                      timeout)
                .to_dict()}

    def op_list(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        spec = args.get("location")
        context = int(args.get("context", 5))
        current = self.last.location if self.last is not None else None
        if self.backend is not None and self.backend.state() == "stopped":
            # The selected frame (after `dbg up` / `dbg frame N`), not just the stop.
            try:
                selected = next((f for f in self.backend.stack(None, timeout) if f.current),
                                None)
            except DbgError:
                selected = None
            if selected is not None and selected.file and selected.line:
                current = Location(selected.file, selected.line, selected.function)
        if spec:
            loc = BreakLoc.from_wire(spec)
            if loc.line is None:
                raise UsageError("list takes FILE:LINE or LINE", "e.g. dbg list app.py:20")
            file = loc.file or (current.file if current else None)
            line = loc.line
        elif current is not None and current.file and current.line:
            file, line = current.file, current.line
        else:
            raise OpFailed("no current location to list", "give one: dbg list FILE:LINE")
        if not file:
            raise OpFailed("no current file to list", "give one: dbg list FILE:LINE")
        resolved = _resolve_file(file, self.launch_request)
        lines = source_window(resolved, line, context, context)
        if not lines:
            problem = source_problem(resolved)
            raise OpFailed(problem or f"cannot read line {line} of {resolved}")
        here = current.line if current is not None and current.file == resolved else None
        return {"file": resolved,
                "lines": [{"line": n, "text": t, "current": n == here} for n, t in lines]}

    def op_output(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        cats = args.get("categories") or [
            c for c in ("stdout", "stderr") if args.get(c)]
        return self.output.read(int(args.get("since", 0)), set(cats) if cats else None,
                                int(args.get("limit", 1000)))

    def op_raw(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        text = one_line(args["text"])
        if self.backend.state() == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        output, event = self.backend.raw(text, timeout)
        payload: dict[str, Any] = {"output": output}
        if event is not None:
            payload["stop"] = self._snapshot(event, timeout).to_dict()
        return payload


def one_line(text: str) -> str:
    # A newline would let a second command reach a line-oriented debugger.
    if any(c in text for c in "\r\n\0"):
        raise UsageError("the text must be a single line",
                         "remove the newline; send one command at a time")
    if not text.strip():
        raise UsageError("the text is empty")
    return text


def program_frames(frames: list[Frame]) -> list[Frame]:
    """The stack without its outermost run of internal frames (the runner's,
    the debugger's, the runtime's: runpy, __libc_start_main, runtime.main).
    Library frames stay: stop snapshots record this stack, and `finish`
    checks against it (a test's caller is the test runner's frame)."""
    end = len(frames)
    while end > 1 and frames[end - 1].internal:
        end -= 1
    return frames[:end]


def shown_frames(frames: list[Frame]) -> tuple[list[Frame], list[dict[str, Any]]]:
    """The frames `dbg stack` shows: the program's own, frame 0 and the
    selected one; and each run of the others (library and internal frames)
    as ``{"first", "last", "count", "of"}``, ``of`` naming whose they were."""
    shown: list[Frame] = []
    hidden: list[dict[str, Any]] = []
    run: list[Frame] = []
    for position, frame in enumerate(frames):
        if (frame.library or frame.internal) and position > 0 and not frame.current:
            run.append(frame)
            continue
        if run:
            hidden.append(_hidden_run(run))
            run = []
        shown.append(frame)
    if run:
        hidden.append(_hidden_run(run))
    return shown, hidden


def _hidden_run(run: list[Frame]) -> dict[str, Any]:
    names = list(dict.fromkeys(f.library_name for f in run if f.library_name))
    return {"first": run[0].index, "last": run[-1].index, "count": len(run), "of": names}


def cut_value(variable: Variable, chars: int) -> Variable:
    """``variable`` with its value cut to ``chars`` (``cut``: its length)."""
    if len(variable.value) <= chars:
        return variable
    return Variable(variable.name, variable.value[: chars - 3] + "...", variable.type,
                    cut=len(variable.value))


def cap_variables(variables: list[Variable], count: int | None,
         chars: int) -> tuple[list[Variable], bool]:
    cut = count is not None and len(variables) > count
    kept = variables[:count] if count is not None else list(variables)
    out = []
    for v in kept:
        if len(v.value) > chars:
            cut = True
            out.append(Variable(v.name, v.value[: chars - 3] + "...", v.type))
        else:
            out.append(v)
    return out, cut


def _resolve_file(file: str, launch: LaunchRequest | None) -> str:
    if os.path.isabs(file) or launch is None:
        return file
    base = launch.cwd or os.getcwd()
    return os.path.join(base, file)
