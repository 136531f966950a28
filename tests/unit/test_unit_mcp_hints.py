"""dbg's CLI commands named in errors and notes, told as MCP tool calls
(dbgcore/frontends/mcp/hints.py), read against the built-in op table."""

from __future__ import annotations

import pytest

from dbgcore.frontends.mcp.hints import in_mcp_words
from dbgcore.ops.table import builtin_table

TABLE = builtin_table()


@pytest.mark.parametrize(("said", "told"), [
    # An op with a tool of its own, its positional arguments and options by name.
    ("try `dbg break app.py:12 --if 'x > 3'`",
     'try dbg_break(location="app.py:12", condition="x > 3")'),
    ("`dbg stack --all`", "dbg_stack(all=true)"),
    ("`dbg print 'a; b'`", 'dbg_print(expression="a; b")'),
    # The global options as the call's own session and timeout; --json is dropped.
    ("`dbg -s web kill`", 'dbg_kill(session="web")'),
    ("`dbg continue --timeout 5`", "dbg_continue(timeout=5)"),
    ("`dbg --json -s w2 locals`", 'dbg_locals(session="w2")'),
    # An op behind dbg_more.
    ("`dbg -s web restart`", 'dbg_more(op="restart", session="web")'),
    ("`dbg catch raised --all-code`",
     'dbg_more(op="catch", args={"filters": ["raised"], "all_code": true})'),
    # A hint that is bare command lines, one after another.
    ("dbg profile slow.py ARGS..., or dbg profile --pid 4242",
     'dbg_more(op="profile", args={"program": "slow.py", "args": ["ARGS..."]}), '
     'or dbg_more(op="profile", args={"pid": 4242})'),
    ("dbg doctor --fix (moves it aside)", 'dbg_more(op="doctor", args={"fix": true}) '
     "(moves it aside)"),
])
def test_commands_are_told_as_tool_calls(said: str, told: str) -> None:
    assert in_mcp_words(said, TABLE) == told


@pytest.mark.parametrize("said", [
    "`dbg mcp`",                          # not an agent's op: a shell's command
    "`dbg -s child1 ...` drives it",      # a placeholder that reads as no op's words
    "`dbg calls --sum-by`",               # an option without its value
    "`dbg frame --colour red`",           # an option the op does not have
    "pick another --session name",        # no command at all
    "`dbg print 'unclosed`",              # words the shell could not split
])
def test_what_does_not_read_as_a_call_is_left_as_it_was(said: str) -> None:
    assert in_mcp_words(said, TABLE) == said
