"""One op call, the same for every front end (the CLI, its fast path, MCP).

:func:`call_op` checks the values against the op's typed arguments, parses
locations once (anchored to the caller's folder), sends the op to the
session's daemon (or answers it here) and returns an :class:`Answer`: the JSON
object ``--json`` prints, the text the CLI prints, and the exit code.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from dbgcore import __version__
from dbgcore.shared.bounds import (
    MAX_WHOLE,
    check_nesting,
    check_size,
    shortened,
    too_large,
    whole_number,
)
from dbgcore.shared.errors import EXIT_OK, DbgError, InternalError, UsageError
from dbgcore.shared.jsontypes import Json, JsonObject
from dbgcore.vocab.opspec import breaks_line

if TYPE_CHECKING:
    from collections.abc import Callable

    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Arg, Op, Renderer, Start

    #: Sends one op to the session and returns the daemon's response.
    Send = Callable[[str, JsonObject, float], JsonObject]

DBG_VIA = {"tool": "dbg", "version": __version__}


class Answer:
    """An op's answer, as JSON (:meth:`to_json`) and as text (:meth:`text`)."""

    __slots__ = ("code", "error", "op", "payload", "render", "session", "via")

    def __init__(self, op: str, session: str, via: dict[str, str] | None,
                 payload: JsonObject | None = None, error: DbgError | None = None,
                 code: int = EXIT_OK, render: Renderer | None = None) -> None:
        #: The exit code of an answer that is not an error (a check that failed).
        self.code = code
        self.op = op
        self.session = session
        self.via = via or DBG_VIA
        self.payload = payload or {}
        self.error = error
        #: The op's text renderer (None: the generic one).
        self.render = render

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def exit_code(self) -> int:
        return self.code if self.error is None else self.error.exit_code

    def to_json(self) -> JsonObject:
        data: JsonObject = {"ok": self.ok, "op": self.op, "session": self.session,
                                "via": self.via}
        if self.error is None:
            data.update(self.payload)
            return data
        data["error"] = {"kind": self.error.kind, "message": self.error.message,
                         "hint": self.error.hint}
        if isinstance(self.error, InternalError) and self.error.traceback:
            data["error"]["traceback"] = self.error.traceback
        return data

    def json_text(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, default=str)

    def text(self) -> str:
        """The CLI's text: the answer (first line ``[via TOOL VERSION]`` when
        a debugger answered), or the one error line."""
        if self.error is not None:
            return error_line(self.error)
        from dbgcore.ops.stops import text as render_text

        text = render_text(self.render, self.payload)
        if self.via.get("tool") != "dbg":
            head = f"[via {self.via['tool']} {self.via.get('version', '')}]".replace(" ]", "]")
            text = head + ("\n" + text if text else "")
        return text

    def output(self, as_json: bool) -> tuple[str, bool]:
        """What the CLI prints, and whether to stderr: one JSON object (on
        stdout) with ``--json``, else the text (an error on stderr)."""
        if as_json:
            return self.json_text(), False
        return self.text(), not self.ok


def error_line(error: DbgError) -> str:
    line = f"error: {error.message}"
    # UnsupportedOp already carries its hint in the message.
    if error.hint and f"({error.hint})" not in error.message:
        line += f" ({error.hint})"
    if isinstance(error, InternalError) and error.traceback:
        line += "\n" + error.traceback.rstrip()
    return line


def from_response(op: str, session: str, response: JsonObject,
                  render: Renderer | None = None) -> Answer:
    via = response.get("via")
    if response.get("ok"):
        return Answer(op, session, via, response.get("result") or {}, render=render)
    return Answer(op, session, via, error=DbgError.from_wire(response.get("error") or {}))


def call_op(op: Op, values: JsonObject, session: str, timeout: float, front: Front,
            cwd: str | None = None, send: Send | None = None,
            start: Start | None = None) -> Answer:
    """Check ``values``, run ``op`` and answer; never raises a DbgError.
    ``send`` hands an op to the session (the daemon answering a fast-path
    client passes its own); by default it goes over the session's socket.
    ``start`` starts a session for the ops that do (:func:`dbgcore.start.spawn.start`,
    passed by the front ends that start sessions: the CLI, MCP)."""
    from dbgcore.shared.timeouts import timeout_problem

    sent = op.name
    try:
        problem = timeout_problem(timeout)
        if problem is not None:
            raise UsageError(problem)
        args = check_values(op, values, cwd)
        if op.send == "local":
            assert op.run is not None  # an Op that is local has one
            result = op.run(args, session, timeout, front)
            if result is None:
                return Answer(op.name, session, None)
            payload, via = result
            # A local op may answer and still exit non-zero (`doctor`).
            return Answer(op.name, session, via, payload, code=int(payload.pop("_exit", EXIT_OK)),
                          render=op.render)
        if op.prepare is not None:
            sent, args = op.prepare(args, front)
        else:
            args = {k: v for k, v in args.items() if v is not None}
        from functools import partial

        from dbgcore.shared import client

        if op.send == "start":
            if start is None:
                raise InternalError(f"{op.name} starts a session, which this front end "
                                    "does not do")
            response = start(session, sent, args, timeout, values.get("idle_timeout"))
        else:
            response = (send or partial(client.call, session))(sent, args, timeout)
    except DbgError as exc:
        return Answer(sent, session, None, error=exc)
    except Exception as exc:
        # A bug of dbg's in this process (a check, a preparation, a local
        # op): still one answer, the one JSON object --json promises, and
        # the fast path's daemon keeps its client's connection.
        import traceback

        return Answer(sent, session, None, error=InternalError(
            f"internal error in dbg while running {op.name}: {type(exc).__name__}: "
            f"{shortened(str(exc), 100)}",
            "this is a bug in dbg", traceback=traceback.format_exc()))
    # What is sent may be another op than the one called (`break --instruction`).
    answered = op if sent == op.name else front.table.find(sent)
    return from_response(sent, session, response, answered.render if answered else None)


def _number(arg: Arg, value: Json, where: str) -> int | float:
    """A number argument's value (a word of the command line, or a JSON
    number) within its bounds; an int argument without a maximum of its own
    has :data:`dbgcore.shared.bounds.MAX_WHOLE`."""
    whole = arg.kind == "int"
    upper = arg.maximum if arg.maximum is not None else (MAX_WHOLE if whole else None)
    number: object = value
    if isinstance(value, str):
        if whole:
            number = whole_number(value, where, int(upper or MAX_WHOLE))
        else:
            try:
                number = float(value)
            except ValueError:
                raise UsageError(f"{where}: {shortened(value)!r} is not a number") from None
    # isfinite() of an int past a float's range (a JSON number of 400
    # digits) raises OverflowError: only a float can be NaN or infinite.
    if isinstance(number, bool) or not isinstance(number, (int, float)) or (
            whole and not isinstance(number, int)) or (
            isinstance(number, float) and not math.isfinite(number)):
        shown = shortened(value) if isinstance(value, str) else value
        raise UsageError(f"{where}: {shown!r} is not "
                         f"{'a whole number' if whole else 'a number'}")
    if arg.minimum is not None and number < arg.minimum:
        raise UsageError(f"{where} must be at least {arg.minimum:g}")
    if upper is not None and number > upper:
        raise too_large(where, number, upper)
    return number


#: An argument's value once checked: a flag, a number, a line of text, a
#: parsed location (:func:`dbgcore.vocab.location.location_arg`) or None.
CheckedValue = bool | int | float | str | JsonObject | None


def check_values(op: Op, values: JsonObject, cwd: str | None = None) -> JsonObject:
    """The values checked against the op's arguments, with defaults; a
    location parsed and anchored to ``cwd`` (default: this process's folder)."""
    known = {a.name for a in op.args}
    unknown = sorted(set(values) - known)
    if unknown:
        raise UsageError(f"{op.name} takes no argument {', '.join(unknown)}",
                         f"its arguments: {', '.join(sorted(known)) or 'none'}")
    checked: JsonObject = {}
    for arg in op.args:
        value = values.get(arg.name)
        if value is None or (arg.multiple and value == []) or (arg.kind == "bool" and not value):
            if arg.required:
                raise UsageError(f"{op.name} needs {arg.label}", arg.help)
            checked[arg.name] = [] if arg.multiple else (
                False if arg.kind == "bool" else arg.default)
            continue
        if arg.multiple:
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                value = [value]
            checked[arg.name] = [_one(op, arg, v, cwd) for v in value]
        else:
            checked[arg.name] = _one(op, arg, value, cwd)
    return checked


def _one(op: Op, arg: Arg, value: Json, cwd: str | None) -> CheckedValue:
    where = f"{op.name} {arg.flags[0] if arg.flags else arg.label}"
    kind = arg.kind
    if kind == "bool":
        if not isinstance(value, bool):
            raise UsageError(f"{where} is a flag: true or false")
        return value
    if kind in ("int", "float"):
        return _number(arg, value, where)
    if not isinstance(value, str):
        raise UsageError(f"{where} must be text")
    # Before anything reads it: a path the kernel would refuse with
    # ENAMETOOLONG, a word no program can be given (bounds.MAX_ARGUMENT).
    check_size(value, where, arg.path)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        # The shell's bytes arrive as lone surrogates (Python's surrogateescape).
        raise UsageError(f"{where} is not UTF-8 text (at character {exc.start + 1})",
                         "dbg takes UTF-8 text; write other bytes as escapes of the "
                         "program's language") from None
    if arg.one_line and breaks_line(value):
        # The one newline rule (Arg.one_line): checked here, before anything
        # is sent, so a stopping op never runs the program and then refuses.
        name = arg.flags[0] if arg.flags else arg.label
        raise UsageError(f"{op.name} {name} must be a single line (it has a "
                         f"{'NUL' if chr(0) in value else 'newline'})",
                         "join the lines with spaces, or send one line per command")
    if arg.expression:
        check_nesting(value, where)
    if kind == "location":
        from dbgcore.vocab.location import location_arg

        return location_arg(value, cwd)
    if kind == "json":
        try:
            json.loads(value)
        except ValueError as exc:
            raise UsageError(f"{where} is not JSON: {exc}") from None
    if kind == "text" and not value.strip() and arg.required:
        raise UsageError(f"{op.name} needs {arg.label}", arg.help)
    return value
