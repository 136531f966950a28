"""Each check of an op's values is written once and every path asks it: a
breakpoint's --if, --hit and --log refused by the front end's check and
preparation (what call_op runs, in the client or, for the fast path, in the
daemon) and by the daemon's handler (a wire client's arguments) in the same
words; a timeout refused by the one check the front ends raise from."""

from __future__ import annotations

import pytest

from dbgcore.backends.pluginhost import PluginHost
from dbgcore.ops.breakpoints import break_options
from dbgcore.ops.table import builtin_table, front
from dbgcore.shared.errors import UsageError
from dbgcore.shared.timeouts import MAX_TIMEOUT, check_timeout, timeout_problem
from dbgcore.vocab.values import check_values

#: Options of `dbg break` that no path may take, and the words that say so.
BAD_BREAK_OPTIONS = [
    ({"hit": 0}, "break --hit must be at least 1"),
    ({"hit": -3}, "break --hit must be at least 1"),
    ({"hit": True}, "break --hit: True is not a whole number"),
    ({"condition": "x > 1\nq"}, "break --if must be a single line (it has a newline)"),
    ({"log": "a\0b"}, "break --log must be a single line (it has a NUL)"),
    ({"condition": "   "}, "--if and --log take one non-empty line"),
    ({"log": ""}, "--if and --log take one non-empty line"),
]


def _front_end_error(options: dict[str, object]) -> str:
    """What the front end's path says of ``options`` (check_values, then
    the op's preparation: call_op's steps before anything is sent)."""
    op = builtin_table().find("break")
    assert op is not None and op.prepare is not None
    with pytest.raises(UsageError) as refused:
        op.prepare(check_values(op, {"location": "cart.py:3", **options}, cwd="/nowhere"),
                   front(PluginHost))
    return refused.value.message


@pytest.mark.parametrize(("options", "words"), BAD_BREAK_OPTIONS, ids=repr)
def test_a_bad_breakpoint_option_is_refused_in_the_same_words_on_every_path(
        options: dict[str, object], words: str) -> None:
    assert _front_end_error(options) == words
    # The daemon's handler reads what a client of the socket sent.
    with pytest.raises(UsageError) as refused:
        break_options({"location": {"file": "cart.py", "line": 3}, **options})
    assert refused.value.message == words


def test_good_breakpoint_options_pass_as_they_are() -> None:
    assert break_options({"condition": "x > 1", "hit": 2, "log": "x={x}"}) == ("x > 1", 2, "x={x}")
    assert break_options({"condition": None, "hit": None}) == (None, None, None)


@pytest.mark.parametrize("value", [0, -1, 1e10, MAX_TIMEOUT + 1, float("nan"), float("inf"),
                                   "5", None, True])
def test_a_timeout_is_refused_with_its_one_line(value: object) -> None:
    with pytest.raises(UsageError) as refused:
        check_timeout(value, "timeout")
    assert refused.value.message == timeout_problem(value, "timeout")
    assert refused.value.message.startswith("timeout must be ")


def test_a_timeout_is_seconds() -> None:
    assert check_timeout(5) == 5.0 and isinstance(check_timeout(5), float)
    assert check_timeout(MAX_TIMEOUT) == MAX_TIMEOUT
