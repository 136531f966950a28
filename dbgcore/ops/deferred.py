"""The local ops whose modules import much that no other command needs (the
checks' and the bug report's sqlite and tarfile, the MCP SDK): the op table
names these functions, and each loads its module only when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Payload, Via


def doctor(values: Payload, session: str, timeout: float,
           front: Front) -> tuple[Payload, Via | None]:
    from dbgcore.frontends.doctor import doctor as check

    return check(values, session, timeout, front)


def report(values: Payload, session: str, timeout: float,
           front: Front) -> tuple[Payload, Via | None]:
    from dbgcore.frontends.report import report as bundle

    return bundle(values, session, timeout, front)


def mcp(values: Payload, session: str, timeout: float, front: Front) -> None:
    from dbgcore.frontends.mcp.server import serve

    serve(values, session, timeout, front)
