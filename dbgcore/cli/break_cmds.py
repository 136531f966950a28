"""Breakpoint commands: break, unbreak, breaks, watch, catch."""

from __future__ import annotations

import click

from dbgcore.cli.common import send
from dbgcore.cli.output import fail
from dbgcore.errors import UsageError
from dbgcore.location import location_arg


@click.command("break")
@click.argument("location", required=False)
@click.option("--instruction", metavar="ADDR", help="Break at an instruction address instead.")
@click.option("--if", "condition", metavar="COND", help="Stop only when COND is true.")
@click.option("--hit", type=int, metavar="N", help="Stop on the Nth hit.")
@click.option("--log", metavar="MSG", help="Log MSG instead of stopping (a logpoint).")
@click.option("--temp", is_flag=True, help="Remove the breakpoint after its first stop.")
def break_(location: str | None, instruction: str | None, condition: str | None,
           hit: int | None, log: str | None, temp: bool) -> None:
    """Set a breakpoint at FILE:LINE, LINE, FUNCTION or MODULE!FUNCTION."""
    try:
        if (location is None) == (instruction is None):
            raise UsageError("give a LOCATION or --instruction ADDR (one of them)")
        where = location_arg(location)
        if hit is not None and hit < 1:
            raise UsageError("--hit must be 1 or more")
        for text in (condition, log):
            if text is not None and (not text.strip() or any(c in text for c in "\r\n")):
                raise UsageError("--if and --log take one non-empty line")
    except UsageError as exc:
        fail("break", exc)
    if instruction is not None:
        send("break-instruction", {"address": instruction, "condition": condition, "hit": hit})
    send("break", {"location": where, "condition": condition, "hit": hit, "log": log,
                   "temp": temp})


@click.command()
@click.argument("target", metavar="ID|LOCATION")
def unbreak(target: str) -> None:
    """Remove a breakpoint by its id or location."""
    text = target.strip()
    if text.isascii() and text.isdigit():
        send("unbreak", {"id": int(text)})
    try:
        where = location_arg(text)
    except UsageError as exc:
        fail("unbreak", exc)
    send("unbreak", {"location": where})


@click.command()
def breaks() -> None:
    """List breakpoints: where each bound, its condition and hit count."""
    send("breaks")


@click.command()
@click.argument("expression")
def watch(expression: str) -> None:
    """Stop when EXPRESSION's value changes (a watchpoint)."""
    send("watch", {"expression": expression})


@click.command()
@click.argument("filters", nargs=-1)
def catch(filters: tuple[str, ...]) -> None:
    """Stop when exceptions matching FILTERS are raised (none: stop catching)."""
    send("catch", {"filters": list(filters)})


COMMANDS = [break_, unbreak, breaks, watch, catch]
