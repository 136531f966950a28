"""Click commands made from the op table (:mod:`dbgcore.ops.table`).

Each op becomes a command whose parameters are its arguments: positional
ones as click arguments (``text`` ones take every remaining word, joined
with spaces), flagged ones as options. The command checks nothing itself:
it hands its values to :func:`dbgcore.ops.call.call_op`, as every front end does.
"""

from __future__ import annotations

from collections.abc import Iterable

import click

from dbgcore.frontends.cli.emit import get_ctx, print_answer
from dbgcore.ops.call import call_op
from dbgcore.ops.table import Arg, Op
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.vocab.opspec import plain_whole


# Not click.ParamType[object]: click before 8.2 (pyproject takes 8.1) has no
# subscript for it at run time.
class _Whole(click.ParamType):  # type: ignore[type-arg]
    """A whole number, checked and bounded by :func:`dbgcore.vocab.values.check_values`
    as every front end's are (a word of 5000 digits is too large there, in
    one line): click passes the word on, as a number when it is plain
    digits (as the fast path's :meth:`dbgcore.vocab.opspec.OpTable.read_start_words`
    reads it)."""

    name = "integer"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> object:
        number = plain_whole(value) if isinstance(value, str) else None
        return value if number is None else number


WHOLE = _Whole()

#: What click converts an argument with: the op's kind, bounded where it has bounds.
ClickType = (click.types.UnprocessedParamType | _Whole | click.FloatRange
             | type[float] | type[str])


def _type(arg: Arg) -> ClickType:
    if arg.passthrough:
        return click.UNPROCESSED
    if arg.kind == "int":
        return WHOLE
    if arg.kind == "float":
        if arg.minimum is None and arg.maximum is None:
            return float
        return click.FloatRange(arg.minimum, arg.maximum)
    return str


def _param(arg: Arg) -> click.Parameter:
    if arg.positional:
        many = arg.multiple or arg.kind == "text"
        return click.Argument([arg.name], nargs=-1 if many else 1,
                              required=arg.required,
                              type=_type(arg), metavar=arg.metavar,
                              default=None if many else arg.default)
    if arg.kind == "bool":
        return click.Option([*arg.flags, arg.name], is_flag=True, help=arg.help)
    return click.Option([*arg.flags, arg.name], type=_type(arg), multiple=arg.multiple,
                        required=arg.required, default=arg.default, metavar=arg.metavar,
                        help=arg.help + (" Repeatable." if arg.multiple else ""),
                        show_default=arg.default not in (None, 0, False))


def _values(op: Op, params: dict[str, object]) -> JsonObject:
    """click's values (a tuple for a many-word argument) as the op's JSON values."""
    values: JsonObject = {}
    for arg in op.args:
        if arg.hidden:
            continue
        value = params.get(arg.name)
        if isinstance(value, tuple):
            if arg.kind == "text" and not arg.multiple:
                value = " ".join(str(word) for word in value) if value else None
            else:
                value = list(value)
        values[arg.name] = value
    return values


def make_command(op: Op, name: str | None = None, hidden: bool = False) -> click.Command:
    def callback(**params: object) -> None:
        ctx = get_ctx()
        assert ctx.front is not None  # the group's callback sets it before any command
        # No --reveal: DBG_REVEAL in this process's environment says.
        print_answer(call_op(op, _values(op, params), ctx.session, ctx.timeout, ctx.front,
                             start=ctx.front.start, reveal=True if ctx.reveal else None))

    passthrough = any(a.passthrough for a in op.args)
    settings: dict[str, bool] = {}
    if passthrough:
        settings["ignore_unknown_options"] = True
        if any(a.passthrough and a.name != "text" for a in op.args):
            # A program's own options (start PROGRAM -v) are its arguments.
            settings["allow_interspersed_args"] = False
    # An indented paragraph (examples) keeps its lines: click's \b marker.
    details = "\n\n".join("\b\n" + part if part.startswith("  ") else part
                          for part in op.details.split("\n\n"))
    help_text = op.summary + (f"\n\n{details}" if details else "")
    return click.Command(name or op.path[-1], callback=callback,
                         params=[_param(a) for a in op.args if not a.hidden],
                         help=help_text, short_help=op.summary, context_settings=settings,
                         hidden=hidden)


class _OpGroup(click.Group):
    """The first word of ops whose command line has two (`dbg memory read`):
    without the second, one usage line that names them, as an op missing
    an argument answers (click's group prints its whole usage)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args:
            raise click.UsageError(f"{self.name} needs a command: "
                                   f"{' or '.join(sorted(self.commands))}", ctx)
        return super().parse_args(ctx, args)


def add_ops(group: click.Group, table: Iterable[Op]) -> None:
    """Add a command for each op (and its aliases) that has a command line."""
    ops = list(table)
    for op in ops:
        if not op.path:
            continue
        parent = group
        for word in op.path[:-1]:
            sub = parent.commands.get(word)
            if not isinstance(sub, click.Group):
                subs = [o.summary for o in ops if o.path[:1] == (word,)]
                sub = _OpGroup(word, help=" ".join(subs) or word)
                parent.add_command(sub)
            parent = sub
        command = make_command(op)
        parent.add_command(command)
        if len(op.path) == 1:
            for alias in op.aliases:
                parent.add_command(make_command(op, alias, hidden=True))
