"""What most commands do: send one op to the session's daemon and print the answer."""

from __future__ import annotations

from typing import Any, NoReturn

from dbgcore import client
from dbgcore.cli.output import emit_response, fail, get_ctx
from dbgcore.errors import DbgError


def send(op: str, args: dict[str, Any] | None = None) -> NoReturn:
    ctx = get_ctx()
    try:
        response = client.call(ctx.session, op, args or {}, ctx.timeout)
    except DbgError as exc:
        fail(op, exc)
    emit_response(op, response)
