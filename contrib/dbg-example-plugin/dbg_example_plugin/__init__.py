"""An example dbg plugin: adds the command ``dbg hello-plugin``.

dbg loads this module through the ``dbg`` entry-point group declared in
pyproject.toml and calls the functions marked ``@hookimpl`` whose names match
its hooks (see dbgcore/hookspecs.py).
"""

from __future__ import annotations

import click

from dbgcore.api import emit, hookimpl


@click.command("hello-plugin")
@click.argument("name", default="world")
def hello_plugin(name: str) -> None:
    """Greet NAME: shows that the example plugin is loaded."""
    # emit() prints the answer the way every dbg command does: text by
    # default, one JSON object with --json, then exits 0.
    emit("hello-plugin", {"greeting": f"hello, {name}", "plugin": "example"})


@hookimpl
def dbg_add_commands(cli: click.Group) -> None:
    cli.add_command(hello_plugin)
