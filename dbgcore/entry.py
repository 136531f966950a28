"""The `dbg` console entry point, with a fast path for the commands agents
send most.

Stepping and looking around (``next``, ``step``, ``continue``, ``locals``,
``print EXPR``...) are answered by the session daemon in a millisecond or two;
what a client costs is mostly Python starting and importing. Importing click
and every command module roughly doubles that, so a command line of the shape
``dbg [-s NAME] [--json] [--timeout T] OP [WORD...]``, for a built-in op sent
as it is to the daemon, whose words are all positional arguments, is read
here from the op table (:mod:`dbgcore.ops`) and sent straight to the daemon.
Anything else (options, ``--help``, a word that starts with ``-``, words that
do not fit) goes to the full click CLI, which is made from the same table.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def _globals(argv: list[str]) -> tuple[str, bool, float, int] | None:
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
    return session, as_json, timeout, i


def _parse(argv: list[str]) -> tuple[str, bool, float, Any, dict[str, Any]] | None:
    found = _globals(argv)
    if found is None or found[3] >= len(argv):
        return None
    session, as_json, timeout, i = found
    from dbgcore.ops import builtin_table

    op = builtin_table().find(argv[i])
    words = argv[i + 1 :]
    if op is None or op.send != "call" or op.prepare is not None or len(op.path) != 1 \
            or any(w.startswith("-") for w in words):
        return None
    values: dict[str, Any] = {}
    positional = [a for a in op.args if a.positional and not a.hidden]
    for arg in positional:
        if arg.kind == "text" or arg.multiple:
            if not words and arg.required:
                return None
            if words:
                values[arg.name] = " ".join(words) if arg.kind == "text" else list(words)
            words = []
        elif words:
            values[arg.name] = words.pop(0)
        elif arg.required:
            return None
    if words:
        return None
    return session, as_json, timeout, op, values


def main() -> None:
    argv = sys.argv[1:]
    parsed = None if os.environ.get("DBG_NO_FAST_PATH") else _parse(argv)
    if parsed is None:
        from dbgcore.cli.app import main as full_main

        full_main(argv)
        return
    session, as_json, timeout, op, values = parsed
    from dbgcore.cli.output import Ctx, print_answer, set_ctx
    from dbgcore.errors import DbgError
    from dbgcore.frontend import Answer, call_op
    from dbgcore.paths import check_session_name

    set_ctx(Ctx(session=session, json=as_json, timeout=timeout))
    try:
        check_session_name(session)
    except DbgError as exc:
        print_answer(Answer(op.name, session, None, error=exc))
    print_answer(call_op(op, values, session, timeout))


if __name__ == "__main__":
    main()
