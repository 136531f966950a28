"""Turning answers and errors into output and an exit code, in one place.

With ``--json`` every command prints exactly one JSON object on stdout:
``{"ok", "op", "session", "via": {"tool", "version"}, ...payload}``, plus
``"error": {"kind", "message", "hint"}`` when ``ok`` is false. Without it, the
text renderers in :mod:`dbgcore.cli.render` print a concise answer whose first
line is ``[via <tool> <version>]`` when a debugger answered.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

from dbgcore import __version__
from dbgcore.errors import EXIT_OK, DbgError, InternalError

DBG_VIA = {"tool": "dbg", "version": __version__}


class Ctx:
    """The global options of this invocation."""

    __slots__ = ("json", "session", "timeout")

    def __init__(self, session: str, json: bool, timeout: float) -> None:
        self.session = session
        self.json = json
        self.timeout = timeout


# Set once per process by whichever front end parsed the command line (the
# click CLI, or the fast path in dbgcore.entry); kept free of click so the fast
# path never imports it.
_CURRENT: Ctx | None = None


def set_ctx(ctx: Ctx) -> None:
    global _CURRENT
    _CURRENT = ctx


def get_ctx() -> Ctx:
    if _CURRENT is None:
        raise RuntimeError("no command line parsed yet")
    return _CURRENT


def echo(text: str, err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:
        # A terminal that cannot show some character still gets the rest.
        stream.buffer.write((text + "\n").encode(stream.encoding or "ascii", "backslashreplace"))
    stream.flush()


def emit(op: str, payload: dict[str, Any], via: dict[str, str] | None = None,
         exit_code: int = EXIT_OK) -> NoReturn:
    """Print a successful answer and exit."""
    ctx = get_ctx()
    via = via or DBG_VIA
    if ctx.json:
        _print_json({"ok": True, "op": op, "session": ctx.session, "via": via, **payload})
    else:
        from dbgcore.cli.render import render

        text = render(op, payload)
        if via.get("tool") != "dbg":
            text = f"[via {via['tool']} {via.get('version', '')}]".replace(" ]", "]") + (
                "\n" + text if text else "")
        if text:
            echo(text)
    sys.exit(exit_code)


def emit_response(op: str, response: dict[str, Any]) -> NoReturn:
    """Print a daemon response (success or error) and exit."""
    via = response.get("via") or DBG_VIA
    if response.get("ok"):
        emit(op, response.get("result") or {}, via)
    fail(op, DbgError.from_wire(response.get("error") or {}), via)


def fail(op: str, error: DbgError, via: dict[str, str] | None = None,
         session: str | None = None, as_json: bool | None = None) -> NoReturn:
    """Print an error and exit with its code; never a traceback, except for
    dbg's own bugs, where the traceback is the useful part."""
    try:
        ctx: Ctx | None = get_ctx()
    except RuntimeError:
        ctx = None
    use_json = as_json if as_json is not None else (ctx.json if ctx else False)
    name = session or (ctx.session if ctx else "default")
    if use_json:
        data: dict[str, Any] = {"ok": False, "op": op, "session": name, "via": via or DBG_VIA,
                                "error": {"kind": error.kind, "message": error.message,
                                          "hint": error.hint}}
        if isinstance(error, InternalError) and error.traceback:
            data["error"]["traceback"] = error.traceback
        _print_json(data)
    else:
        line = f"error: {error.message}"
        # UnsupportedOp already carries its hint in the message.
        if error.hint and f"({error.hint})" not in error.message:
            line += f" ({error.hint})"
        echo(line, err=True)
        if isinstance(error, InternalError) and error.traceback:
            echo(error.traceback.rstrip(), err=True)
    sys.exit(error.exit_code)


def _print_json(data: dict[str, Any]) -> None:
    echo(json.dumps(data, ensure_ascii=False, default=str))
