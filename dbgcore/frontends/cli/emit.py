"""Turning answers and errors into output and an exit code, in one place.

With ``--json`` every command prints exactly one JSON object on stdout:
``{"ok", "op", "session", "via": {"tool", "version"}, ...payload}``, plus
``"error": {"kind", "message", "hint"}`` when ``ok`` is false. Without it, the
text renderers of the op groups (:mod:`dbgcore.ops.stops`, ...) print a concise
answer whose first line is ``[via <tool> <version>]`` when a debugger answered.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

from dbgcore.ops.call import Answer
from dbgcore.shared.errors import DbgError
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Renderer


class Ctx:
    """The global options of this invocation, and the click CLI's
    :class:`~dbgcore.backends.registry.Front` (its op table and backends)."""

    __slots__ = ("front", "json", "reveal", "session", "timeout")

    def __init__(self, session: str, json: bool, timeout: float,
                 front: Front | None = None, reveal: bool = False) -> None:
        self.session = session
        self.json = json
        #: --reveal: values shown unmasked (dbgcore.shared.secrets).
        self.reveal = reveal
        self.timeout = timeout
        self.front = front


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


def print_answer(answer: Answer) -> NoReturn:
    """Print an answer (text, or one JSON object with --json) and exit with its code."""
    try:
        as_json = get_ctx().json
    except RuntimeError:
        as_json = False
    text, err = answer.output(as_json)
    if text:
        echo(text, err=err)
    sys.exit(answer.exit_code)


def emit(op: str, payload: JsonObject, via: dict[str, str] | None = None,
         render: Renderer | None = None) -> NoReturn:
    """Print a successful answer (its text by ``render``, default the
    generic one) and exit 0."""
    print_answer(Answer(op, _session(), via, payload, render=render))


def fail(op: str, error: DbgError, via: dict[str, str] | None = None,
         session: str | None = None, as_json: bool | None = None) -> NoReturn:
    """Print an error and exit with its code; never a traceback, except for
    dbg's own bugs, where the traceback is the useful part."""
    if as_json is not None:
        try:
            get_ctx()
        except RuntimeError:
            set_ctx(Ctx(session=session or "default", json=as_json, timeout=DEFAULT_TIMEOUT))
    print_answer(Answer(op, session or _session(), via, error=error))


def _session() -> str:
    try:
        return get_ctx().session
    except RuntimeError:
        return "default"


def print_kill(session: str, as_json: bool, timeout: float) -> NoReturn:
    """A bare `dbg kill` answered as the click CLI answers it, without
    building that CLI (dbgcore.entry's fast path; every session ends by one)."""
    from dbgcore.ops.sessions import kill_answer

    set_ctx(Ctx(session=session, json=as_json, timeout=timeout))
    print_answer(kill_answer(session, timeout))
