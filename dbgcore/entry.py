"""The `dbg` console entry point, with a fast path for the commands agents
send most.

Stepping and looking around (``next``, ``step``, ``continue``, ``locals``,
``print EXPR``...) are answered by the session daemon in a millisecond or two;
what a client costs is mostly Python starting and importing. Importing click
and every command module roughly doubles that, so a command line of exactly
the shape ``dbg [-s NAME] [--json] [--timeout T] OP [TEXT...]`` for the ops
below is sent straight to the daemon. Anything else — other options,
``--help``, any argument that starts with ``-`` — goes to the full click CLI,
which defines the same commands and is the reference for them.
"""

from __future__ import annotations

import os
import sys

#: Commands that take no arguments -> their op.
NO_ARGS = {
    "continue": "continue", "c": "continue", "step": "step", "s": "step",
    "next": "next", "n": "next", "finish": "finish", "pause": "pause", "wait": "wait",
    "locals": "locals", "threads": "threads", "breaks": "breaks", "status": "status",
    "tool": "tool", "restart": "restart", "up": "up", "down": "down", "stack": "stack",
}
#: Commands whose arguments are joined into one text -> (op, argument name).
TEXT_ARGS = {"print": ("print", "expression"), "raw": ("raw", "text")}


def _parse(argv: list[str]) -> tuple[str, bool, float, str, dict[str, str]] | None:
    session = os.environ.get("DBG_SESSION") or "default"
    as_json, timeout = False, 30.0
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        arg = argv[i]
        if arg == "--json":
            as_json = True
        elif arg in ("-s", "--session", "--timeout") and i + 1 < len(argv):
            value = argv[i + 1]
            i += 1
            if arg == "--timeout":
                try:
                    timeout = float(value)
                except ValueError:
                    return None
                if not timeout > 0:
                    return None
            else:
                session = value
        else:
            return None
        i += 1
    if i >= len(argv):
        return None
    command, rest = argv[i], argv[i + 1 :]
    if any(a.startswith("-") for a in rest):
        return None
    if command in NO_ARGS and not rest:
        return session, as_json, timeout, NO_ARGS[command], {}
    if command in TEXT_ARGS and rest:
        op, name = TEXT_ARGS[command]
        return session, as_json, timeout, op, {name: " ".join(rest)}
    return None


def main() -> None:
    argv = sys.argv[1:]
    parsed = None if os.environ.get("DBG_NO_FAST_PATH") else _parse(argv)
    if parsed is None:
        from dbgcore.cli.app import main as full_main

        full_main(argv)
        return
    session, as_json, timeout, op, args = parsed
    from dbgcore.cli.common import send
    from dbgcore.cli.output import Ctx, fail, set_ctx
    from dbgcore.errors import DbgError
    from dbgcore.paths import check_session_name

    set_ctx(Ctx(session=session, json=as_json, timeout=timeout))
    try:
        check_session_name(session)
    except DbgError as exc:
        fail(op, exc)
    send(op, args)


if __name__ == "__main__":
    main()
