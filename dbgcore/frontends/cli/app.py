"""The ``dbg`` click application.

Its commands are made from the op table (:mod:`dbgcore.ops.table`). Plugins add ops
through the ``dbg_add_ops`` hook (and plain click commands through
``dbg_add_commands``); they are loaded only when a command is not a built-in
one (or for ``--help``), so the common commands stay cheap.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from dbgcore import __version__
from dbgcore.frontends.cli.emit import Ctx, fail, set_ctx
from dbgcore.ops.table import builtin_table, front
from dbgcore.shared.bounds import shortened
from dbgcore.shared.errors import DbgError, InternalError, UsageError
from dbgcore.shared.globalopts import global_flag, read_globals
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import check_home, check_session_name
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT, check_timeout

if TYPE_CHECKING:
    from dbgcore.backends.pluginhost import PluginHost


def _host() -> PluginHost:
    from dbgcore.backends.pluginhost import PluginHost

    return PluginHost()


def _start(name: str, op: str, args: JsonObject, timeout: float,
           idle_timeout: float | None) -> JsonObject:
    from dbgcore.start import spawn

    return spawn.start(name, op, args, timeout, idle_timeout)


#: This process's ops and backends: the plugins load only for a command that
#: needs them (a plugin's, `dbg --help`, choosing a backend).
FRONT = front(_host, _start)


class DbgGroup(click.Group):
    _plugins_loaded = False

    def _load_plugin_commands(self) -> None:
        if DbgGroup._plugins_loaded:
            return
        DbgGroup._plugins_loaded = True
        from dbgcore.frontends.cli.build import add_ops

        builtin = builtin_table()
        add_ops(self, [op for op in FRONT.table if builtin.find(op.name) is None])
        FRONT.host.add_commands_once(self)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            self._load_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands()
        return super().list_commands(ctx)


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=DbgGroup, context_settings=CONTEXT)
@click.option("-s", "--session", default="default", envvar="DBG_SESSION", show_default=True,
              help="Session name (env DBG_SESSION).")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object.")
@click.option("--reveal", is_flag=True,
              help="Show values that look like secrets unmasked (env DBG_REVEAL=1).")
@click.option("--timeout", type=float, default=DEFAULT_TIMEOUT, show_default=True,
              help="Seconds to wait for the target to stop or the debugger to answer.")
@click.version_option(__version__, prog_name="dbg")
@click.pass_context
def cli(ctx: click.Context, session: str, as_json: bool, reveal: bool, timeout: float) -> None:
    """One debugger vocabulary over many real debuggers.

    Start a session with `dbg start PROGRAM`, then break, step and inspect.
    Exit codes: 0 ok, 1 failed op, 2 usage error, 3 unsupported by the backend.
    """
    ctx.obj = Ctx(session=session, json=as_json, timeout=timeout, front=FRONT, reveal=reveal)
    set_ctx(ctx.obj)
    try:
        check_session_name(session)
        if ctx.invoked_subcommand != "doctor":  # which says what is wrong with it
            check_home()
        check_timeout(timeout)
    except DbgError as exc:
        fail(ctx.invoked_subcommand or "dbg", exc)


def _register() -> None:
    from dbgcore.frontends.cli.build import add_ops

    add_ops(cli, builtin_table())


_register()


def lift_globals(args: list[str]) -> list[str]:
    """``args`` with the global options put after the op (``dbg continue
    --timeout 5``) moved before it, where the group reads them; which of
    the op's words they are, the op table says, as it says for the fast path
    (:meth:`dbgcore.vocab.opspec.OpTable.lift_globals`). A plugin's op is
    looked up (its plugins loaded) only when one of its words could be one."""
    found = read_globals(args, "", False, DEFAULT_TIMEOUT)
    at = found[3] if found is not None else len(args)
    words = args[at:]
    if not any(global_flag(word) for word in words[1:]):
        return args
    table = builtin_table() if builtin_table().find_path(words) is not None else FRONT.table
    lifted, kept = table.lift_globals(words)
    return args[:at] + lifted + kept


def main(argv: list[str] | None = None) -> None:
    args = lift_globals(list(sys.argv[1:] if argv is None else argv))
    try:
        cli.main(args=args, prog_name="dbg", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        hint = ""
        ctx: click.Context | None = getattr(exc, "ctx", None)
        if ctx is not None:
            hint = f"see `{ctx.command_path} --help`"
        fail(_op_name(args), UsageError(_one_line(exc.format_message()), hint),
             session=os.environ.get("DBG_SESSION", "default"), as_json="--json" in args)
    except DbgError as exc:
        fail(_op_name(args), exc)
    except OSError as exc:
        # A write of dbg's own that the disk refused, wherever it was made:
        # one line, not a traceback (any other OSError is a bug, and says so).
        from dbgcore.shared.diskspace import refused
        from dbgcore.shared.paths import dbg_home

        disk = refused(exc, dbg_home(), f"{_op_name(args)} failed")
        if disk is None:
            raise
        fail(_op_name(args), disk)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as exc:
        # A bug of dbg's outside an op's call (call_op answers its own):
        # still one answer, the one JSON object --json promises.
        import traceback

        fail(_op_name(args), InternalError(
            f"internal error in dbg: {type(exc).__name__}: {shortened(str(exc), 100)}",
            "this is a bug in dbg", traceback=traceback.format_exc()),
             session=os.environ.get("DBG_SESSION", "default"), as_json="--json" in args)
    sys.exit(0)


def _one_line(message: str) -> str:
    """click's message as one line of an error: its long words (what it
    quotes back: an option of 10,000 dashes) and the whole shortened."""
    words = [shortened(word, 30) for word in message.split()]
    return shortened(" ".join(words), 150)


def _op_name(args: list[str]) -> str:
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg in ("-s", "--session", "--timeout"):
            skip_next = True
            continue
        if not arg.startswith("-"):
            return arg
    return "dbg"
