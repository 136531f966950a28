"""CLI commands for the DAP-level ops (added through the dbg_add_commands hook).

Each sends an op by name; on a backend without it the session answers
`unsupported`, naming the tool and `dbg raw`.
"""

from __future__ import annotations

import click

from dbgcore.cli.common import send


@click.command()
@click.argument("frame", type=click.IntRange(min=0), required=False)
def scopes(frame: int | None) -> None:
    """List the scopes of the selected frame (or FRAME), with their references."""
    send("scopes", {"frame": frame})


@click.command("vars")
@click.argument("ref", metavar="REF|PATH")
@click.option("--start", type=click.IntRange(min=0), default=0, help="First child to show.")
@click.option("--count", type=click.IntRange(min=0), default=0, help="How many (0: all).")
def vars_(ref: str, start: int, count: int) -> None:
    """Children of a variable, by reference number or value path (cart.items[2])."""
    send("vars", {"ref": ref, "start": start, "count": count})


@click.command()
@click.argument("address", required=False)
@click.option("--count", type=click.IntRange(min=1, max=10000), default=10, show_default=True)
def disasm(address: str | None, count: int) -> None:
    """Disassemble around ADDRESS (default: the current instruction)."""
    send("disasm", {"address": address, "count": count})


@click.group()
def memory() -> None:
    """Read or write the target's memory."""


@memory.command("read")
@click.argument("address")
@click.argument("count", type=click.IntRange(min=1, max=1 << 20))
def memory_read(address: str, count: int) -> None:
    """Read COUNT bytes at ADDRESS."""
    send("memory-read", {"address": address, "count": count})


@memory.command("write")
@click.argument("address")
@click.argument("hex_bytes", metavar="HEX")
def memory_write(address: str, hex_bytes: str) -> None:
    """Write HEX bytes (e.g. deadbeef) at ADDRESS."""
    send("memory-write", {"address": address, "hex": hex_bytes})


@click.command()
def modules() -> None:
    """List loaded modules (shared libraries)."""
    send("modules")


@click.command()
def sources() -> None:
    """List loaded source files."""
    send("sources")


@click.command()
def exception() -> None:
    """Details of the exception the target stopped on."""
    send("exception")


@click.command("dap")
@click.argument("command")
@click.argument("arguments", required=False, metavar="[JSON]")
def dap_request(command: str, arguments: str | None) -> None:
    """Send any DAP request and print the raw response body."""
    send("dap", {"command": command, "arguments": arguments})


COMMANDS = [scopes, vars_, disasm, memory, modules, sources, exception, dap_request]
