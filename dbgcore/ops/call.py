"""One op call, the same whatever path it takes: the click CLI and MCP call
it in the client, the daemon calls it for a fast-path client
(:mod:`dbgcore.entry` sends its words there), so an op is parsed, checked and
rendered by the same functions on every path.

:func:`call_op` checks the values against the op's typed arguments
(:func:`dbgcore.vocab.values.check_values`), parses locations once (anchored to
the caller's folder), prepares what is sent, sends the op to the session's
daemon (or answers it here) and returns an :class:`Answer`: the JSON object
``--json`` prints, the text the CLI prints (the op's renderer), and the exit
code. It lives below the front ends, which only read command lines and
print, so that the daemon's fast path can run it without importing one.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from dbgcore import __version__
from dbgcore.shared.bounds import shortened
from dbgcore.shared.errors import EXIT_OK, DbgError, InternalError
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.secrets import masked, masked_text, reveal_wanted
from dbgcore.shared.timeouts import check_timeout
from dbgcore.vocab.values import check_values

if TYPE_CHECKING:
    from collections.abc import Callable

    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Op, Renderer, Start

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
            start: Start | None = None, reveal: bool | None = None) -> Answer:
    """Check ``values``, run ``op`` and answer, what looks like a secret
    masked (:mod:`dbgcore.shared.secrets`) unless ``reveal`` (None: as
    DBG_REVEAL in this process's environment says); never raises a DbgError.
    ``send`` hands an op to the session (the daemon answering a fast-path
    client passes its own); by default it goes over the session's socket.
    ``start`` starts a session for the ops that do (:func:`dbgcore.start.spawn.start`,
    passed by the front ends that start sessions: the CLI, MCP)."""
    answer = _call(op, values, session, timeout, front, cwd, send, start)
    if reveal_wanted() if reveal is None else reveal:
        return answer
    return masked_answer(answer)


def masked_answer(answer: Answer) -> Answer:
    """``answer`` with what looks like a secret masked, in its payload and
    its error's message: the one place every front end's answers pass."""
    if answer.error is not None:
        answer.error.message = masked_text(answer.error.message)
        answer.error.hint = masked_text(answer.error.hint)
        return answer
    payload = masked(answer.payload)
    assert isinstance(payload, dict)
    answer.payload = payload
    return answer


def _call(op: Op, values: JsonObject, session: str, timeout: float, front: Front,
          cwd: str | None, send: Send | None, start: Start | None) -> Answer:
    sent = op.name
    try:
        check_timeout(timeout)
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
