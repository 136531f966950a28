"""Execution commands. Each blocks until the target stops, exits, or
--timeout passes, and answers with a stop snapshot."""

from __future__ import annotations

import click

from dbgcore.cli.common import send
from dbgcore.cli.output import fail
from dbgcore.errors import UsageError
from dbgcore.location import location_arg


@click.command("continue")
def cont() -> None:
    """Resume until the next stop (alias: c)."""
    send("continue")


@click.command()
def step() -> None:
    """Step into the next line, entering calls (alias: s)."""
    send("step")


@click.command("next")
def next_() -> None:
    """Step over to the next line (alias: n)."""
    send("next")


@click.command()
def finish() -> None:
    """Run until the current function returns."""
    send("finish")


@click.command()
@click.argument("location", required=False)
def until(location: str | None) -> None:
    """Run until LOCATION (FILE:LINE or LINE), or past the current loop."""
    try:
        where = location_arg(location)
    except UsageError as exc:
        fail("until", exc)
    send("until", {"location": where})


@click.command()
def pause() -> None:
    """Interrupt the running target."""
    send("pause")


@click.command()
def wait() -> None:
    """Wait for a running target to stop or exit."""
    send("wait")


COMMANDS = [cont, step, next_, finish, until, pause, wait]
