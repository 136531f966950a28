"""Built-in plugin: the DAP backend (debugpy today; gdb, lldb-dap and delve use
the same class with their own profiles), and its expert commands."""

from __future__ import annotations

from collections.abc import Callable

import click

from dbgcore.backend import Backend
from dbgcore.hookspecs import hookimpl


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_dap.backend import DapBackend

    register(DapBackend)


@hookimpl
def dbg_add_commands(cli: click.Group) -> None:
    from dbg_dap.commands import COMMANDS

    for command in COMMANDS:
        cli.add_command(command)
