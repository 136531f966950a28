"""Inspection commands: stack, frames, variables, threads, source, output, raw."""

from __future__ import annotations

import click

from dbgcore.cli.common import send
from dbgcore.cli.output import fail
from dbgcore.errors import UsageError
from dbgcore.location import location_arg


@click.command()
@click.option("--levels", type=click.IntRange(min=1), metavar="N", help="Show at most N frames.")
@click.option("--all", "show_all", is_flag=True,
              help="Also the runner's and the runtime's own frames (runpy, libc, runtime.main).")
def stack(levels: int | None, show_all: bool) -> None:
    """Show the call stack of the current thread."""
    send("stack", {"levels": levels, "all": show_all})


@click.command()
@click.argument("index", type=click.IntRange(min=0))
def frame(index: int) -> None:
    """Select frame INDEX (0 is where the target stopped)."""
    send("frame", {"index": index})


@click.command()
@click.argument("count", type=click.IntRange(min=1), default=1)
def up(count: int) -> None:
    """Select the caller's frame (COUNT levels up)."""
    send("up", {"count": count})


@click.command()
@click.argument("count", type=click.IntRange(min=1), default=1)
def down(count: int) -> None:
    """Select the callee's frame (COUNT levels down)."""
    send("down", {"count": count})


@click.command("locals")
def locals_() -> None:
    """Show the local variables of the selected frame."""
    send("locals")


@click.command("print")
@click.argument("expression", nargs=-1, required=True)
def print_(expression: tuple[str, ...]) -> None:
    """Evaluate EXPRESSION in the selected frame."""
    send("print", {"expression": " ".join(expression)})


@click.command("set")
@click.argument("lhs")
@click.argument("value", nargs=-1, required=True)
def set_(lhs: str, value: tuple[str, ...]) -> None:
    """Assign VALUE (an expression) to LHS in the selected frame."""
    send("set", {"lhs": lhs, "value": " ".join(value)})


@click.command()
def threads() -> None:
    """List threads."""
    send("threads")


@click.command()
@click.argument("thread_id", metavar="ID")
def thread(thread_id: str) -> None:
    """Select thread ID."""
    send("thread", {"id": thread_id})


@click.command("list")
@click.argument("location", required=False)
@click.option("--context", type=click.IntRange(min=0), default=5, show_default=True,
              help="Lines before and after.")
def list_(location: str | None, context: int) -> None:
    """Show source around the current line, or around FILE:LINE / LINE."""
    try:
        where = location_arg(location)
    except UsageError as exc:
        fail("list", exc)
    send("list", {"location": where, "context": context})


@click.command()
@click.option("--since", type=click.IntRange(min=0), default=0, show_default=True,
              help="Cursor from the previous answer; only newer output is shown.")
@click.option("--stdout", "only_stdout", is_flag=True, help="Only the program's stdout.")
@click.option("--stderr", "only_stderr", is_flag=True, help="Only the program's stderr.")
def output(since: int, only_stdout: bool, only_stderr: bool) -> None:
    """Show the program's output (stdout and stderr kept apart), paged by cursor."""
    categories = [c for c, on in (("stdout", only_stdout), ("stderr", only_stderr)) if on]
    send("output", {"since": since, "categories": categories or None})


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("text", nargs=-1, required=True, type=click.UNPROCESSED)
def raw(text: tuple[str, ...]) -> None:
    """Send TEXT to the native debugger and print its answer unparsed."""
    send("raw", {"text": " ".join(text)})


COMMANDS = [stack, frame, up, down, locals_, print_, set_, threads, thread, list_, output, raw]
