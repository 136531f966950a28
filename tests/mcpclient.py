"""A real `dbg mcp` process driven by the MCP SDK's own client, for the tests
that talk to dbg as an agent does."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

if TYPE_CHECKING:
    from dbgcore.testing import Dbg


def run_mcp(dbg: Dbg, scenario: Callable[[ClientSession], Awaitable[None]]) -> None:
    """Run ``scenario`` against a `dbg mcp` started from the test's folder."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "dbgcore", "mcp"],
                                   env=dict(dbg.env), cwd=str(dbg.cwd))

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams, \
                    ClientSession(*streams) as session:
                await session.initialize()
                await scenario(session)

    anyio.run(main)
