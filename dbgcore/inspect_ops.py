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
from dbgcore.source import source_window

if TYPE_CHECKING:
    from dbgcore.backend import Backend, LaunchRequest

#: ``dbg locals`` cuts single values at this length: a frame holding a
#: million-element list and a 10 MB string still answers in a few KB.
LOCALS_VALUE_CHARS = 1000
#: Values shown for several expressions at once are cut at this length.
SHOWN_VALUE_CHARS = 400


class InspectOps:
    backend: Backend | None
    #: `dbg display` expressions, by number.
    displays: list[tuple[int, str]]
    _display_ids: int
    last: StopSnapshot | None
    output: OutputBuffer
    launch_request: LaunchRequest | None

    def _snapshot(self, event: StopEvent) -> StopSnapshot:
        raise NotImplementedError

    def op_stack(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        levels = args.get("levels")
        frames = self.backend.stack(None)
        if not args.get("all"):
            frames = program_frames(frames)
        if levels:
            frames = frames[:int(levels)]
        return {"frames": [f.to_dict() for f in frames]}

    def op_frame(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._frame_payload(self.backend.select_frame(int(args["index"])))

    def _move_frame(self, delta: int) -> dict[str, Any]:
        assert self.backend is not None
        frames = program_frames(self.backend.stack(None))
        current = next((f.index for f in frames if f.current), 0)
        target = current + delta
        if target < 0:
            raise OpFailed("already at the innermost frame (0)", "use `dbg up` to go to callers")
        if target >= len(frames):
            raise OpFailed(f"already at the outermost frame ({current})",
                           "use `dbg down` to go back toward the stop")
        return self._frame_payload(self.backend.select_frame(target))

    def op_up(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return self._move_frame(int(args.get("count", 1)))

    def op_down(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return self._move_frame(-int(args.get("count", 1)))

    def _frame_payload(self, frame: Frame) -> dict[str, Any]:
        payload: dict[str, Any] = {"frame": frame.to_dict()}
        if frame.file and frame.line:
            payload["source"] = [
                {"line": n, "text": t, "current": n == frame.line}
                for n, t in source_window(frame.file, frame.line, 2, 2)
            ]
        return payload

    def op_locals(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        variables, cut = cap_variables(self.backend.locals(), None, LOCALS_VALUE_CHARS)
        return {"variables": [v.to_dict() for v in variables], "truncated": cut}

    def op_print(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One expression: its value, or a failed op. Several (split at
        ``;``): each with its value or its own error, in one answer."""
        assert self.backend is not None
        text = one_line(args["expression"])
        expressions = split_expressions(text)
        if len(expressions) <= 1:
            value = self.backend.evaluate(text)
            return {"expression": text, **value.to_dict()}
        return {"values": self.evaluate_each(expressions)}

    def evaluate_each(self, expressions: list[str]) -> list[dict[str, Any]]:
        """Each expression's value, or the reason it has none."""
        assert self.backend is not None
        out: list[dict[str, Any]] = []
        for expression in expressions:
            try:
                value = self.backend.evaluate(expression)
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
        result = self.backend.set_variable(lhs, value)
        return {"lhs": lhs, **result.to_dict()}

    def op_threads(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return {"threads": [t.to_dict() for t in self.backend.threads()]}

    def op_thread(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        ident = args["id"]
        return {"thread": self.backend.select_thread(int(ident) if str(ident).isdigit() else ident)
                .to_dict()}

    def op_list(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        spec = args.get("location")
        context = int(args.get("context", 5))
        current = self.last.location if self.last is not None else None
        if self.backend is not None and self.backend.state() == "stopped":
            # The selected frame (after `dbg up` / `dbg frame N`), not just the stop.
            try:
                selected = next((f for f in self.backend.stack(None) if f.current), None)
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
            raise OpFailed(f"cannot read line {line} of {resolved}")
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
            payload["stop"] = self._snapshot(event).to_dict()
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
    the debugger's, the runtime's: runpy, __libc_start_main, runtime.main)."""
    end = len(frames)
    while end > 1 and frames[end - 1].internal:
        end -= 1
    return frames[:end]


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
