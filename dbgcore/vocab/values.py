"""An op's values checked against its arguments' declarations (:class:`Arg`):
the one place each argument's rule is written (a number within its bounds,
UTF-8 text of a bounded size, the one newline rule of :attr:`Arg.one_line`,
an expression's nesting, a parsed location).

Every path a call takes asks these: the front ends' shared call
(:func:`dbgcore.ops.call.call_op`, in the client for the click CLI and MCP, in
the daemon for the fast path) checks all of an op's values with
:func:`check_values`, and a daemon handler that guards an argument a wire
client sent asks :func:`check_value` of the same declaration, so the two
cannot drift apart.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from dbgcore.shared.bounds import (
    MAX_WHOLE,
    check_nesting,
    check_size,
    shortened,
    too_large,
    whole_number,
)
from dbgcore.shared.errors import UsageError
from dbgcore.shared.jsontypes import Json, JsonObject
from dbgcore.vocab.opspec import breaks_line

if TYPE_CHECKING:
    from dbgcore.vocab.opspec import Arg, Op

#: An argument's value once checked: a flag, a number, a line of text, a
#: parsed location (:func:`dbgcore.vocab.location.location_arg`) or None.
CheckedValue = bool | int | float | str | JsonObject | None


def check_values(op: Op, values: JsonObject, cwd: str | None = None) -> JsonObject:
    """The values checked against the op's arguments, with defaults; a
    location parsed and anchored to ``cwd`` (default: this process's folder)."""
    known = {a.name for a in op.args}
    unknown = sorted(set(values) - known)
    if unknown:
        raise UsageError(f"{op.name} takes no argument {', '.join(unknown)}",
                         f"its arguments: {', '.join(sorted(known)) or 'none'}")
    checked: JsonObject = {}
    for arg in op.args:
        value = values.get(arg.name)
        if value is None or (arg.multiple and value == []) or (arg.kind == "bool" and not value):
            if arg.required:
                raise UsageError(f"{op.name} needs {arg.label}", arg.help)
            checked[arg.name] = [] if arg.multiple else (
                False if arg.kind == "bool" else arg.default)
            continue
        if arg.multiple:
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                value = [value]
            checked[arg.name] = [check_value(op.name, arg, v, cwd) for v in value]
        else:
            checked[arg.name] = check_value(op.name, arg, value, cwd)
    return checked


def check_value(op_name: str, arg: Arg, value: Json, cwd: str | None = None) -> CheckedValue:
    """One given value (not None) of the op ``op_name``'s argument ``arg``
    checked against its declaration; a UsageError naming the op and the
    option when it breaks a rule."""
    where = f"{op_name} {arg.flags[0] if arg.flags else arg.label}"
    kind = arg.kind
    if kind == "bool":
        if not isinstance(value, bool):
            raise UsageError(f"{where} is a flag: true or false")
        return value
    if kind in ("int", "float"):
        return _number(arg, value, where)
    if not isinstance(value, str):
        raise UsageError(f"{where} must be text")
    # Before anything reads it: a path the kernel would refuse with
    # ENAMETOOLONG, a word no program can be given (bounds.MAX_ARGUMENT).
    check_size(value, where, arg.path)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        # The shell's bytes arrive as lone surrogates (Python's surrogateescape).
        raise UsageError(f"{where} is not UTF-8 text (at character {exc.start + 1})",
                         "dbg takes UTF-8 text; write other bytes as escapes of the "
                         "program's language") from None
    if arg.one_line and breaks_line(value):
        # The one newline rule (Arg.one_line): checked before anything is
        # sent, so a stopping op never runs the program and then refuses.
        name = arg.flags[0] if arg.flags else arg.label
        raise UsageError(f"{op_name} {name} must be a single line (it has a "
                         f"{'NUL' if chr(0) in value else 'newline'})",
                         "join the lines with spaces, or send one line per command")
    if arg.expression:
        check_nesting(value, where)
    if kind == "location":
        # Only for an op that takes one: the location parser is not every call's.
        from dbgcore.vocab.location import location_arg

        return location_arg(value, cwd)
    if kind == "json":
        try:
            json.loads(value)
        except ValueError as exc:
            raise UsageError(f"{where} is not JSON: {exc}") from None
    if kind == "text" and not value.strip() and arg.required:
        raise UsageError(f"{op_name} needs {arg.label}", arg.help)
    return value


def _number(arg: Arg, value: Json, where: str) -> int | float:
    """A number argument's value (a word of the command line, or a JSON
    number) within its bounds; an int argument without a maximum of its own
    has :data:`dbgcore.shared.bounds.MAX_WHOLE`."""
    whole = arg.kind == "int"
    upper = arg.maximum if arg.maximum is not None else (MAX_WHOLE if whole else None)
    number: object = value
    if isinstance(value, str):
        if whole:
            number = whole_number(value, where, int(upper or MAX_WHOLE))
        else:
            try:
                number = float(value)
            except ValueError:
                raise UsageError(f"{where}: {shortened(value)!r} is not a number") from None
    # isfinite() of an int past a float's range (a JSON number of 400
    # digits) raises OverflowError: only a float can be NaN or infinite.
    if isinstance(number, bool) or not isinstance(number, (int, float)) or (
            whole and not isinstance(number, int)) or (
            isinstance(number, float) and not math.isfinite(number)):
        shown = shortened(value) if isinstance(value, str) else value
        raise UsageError(f"{where}: {shown!r} is not "
                         f"{'a whole number' if whole else 'a number'}")
    if arg.minimum is not None and number < arg.minimum:
        raise UsageError(f"{where} must be at least {arg.minimum:g}")
    if upper is not None and number > upper:
        raise too_large(where, number, upper)
    return number
