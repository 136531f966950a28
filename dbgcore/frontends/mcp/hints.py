"""Errors and notes told in MCP's words: an agent on `dbg mcp` calls tools,
not commands, so a hint such as ``run it again with `dbg -s web restart```
reaches it as ``dbg_more(op="restart", session="web")``.

dbg's messages name what to do next as a CLI command in backticks (and a few
hints are a bare command line). Each such command is read against the op
table, as click would read it: the op's words, its options by their flags,
its positional arguments in order, the global ``-s``/``--timeout``/``--json``;
then written as the tool call that does the same. A command that does not
read as one of the agent's ops (``dbg mcp`` itself, a shell pipeline, a
placeholder too loose to place) is left as it was: a CLI command is still a
true answer, a guessed tool call might not be.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import TYPE_CHECKING, Any

from dbgcore.frontends.mcp.tools import MORE, split_ops, tool_name
from dbgcore.shared.globalopts import BOOL_FLAGS, global_flag, option_at

if TYPE_CHECKING:
    from dbgcore.ops.call import Answer
    from dbgcore.vocab.opspec import Op, OpTable

#: A command in backticks.
_QUOTED = re.compile(r"`(dbg [^`]+)`")
#: A bare command in a hint made of them (``dbg profile slow.py ARGS...,
#: or dbg profile --pid 4242``): at its start or after a `,`, `;` or "or",
#: up to the next `,` or `;`.
_BARE = re.compile(r"(?:^|(?<=, )|(?<=or )|(?<=; ))dbg [^,;`(]*[^,;`(\s]")


def in_mcp_words(text: str, table: OpTable) -> str:
    """``text`` with every dbg command it names as the tool call that does
    the same (those that do not read as one left as they are)."""
    if "dbg " not in text:
        return text
    if text.startswith("dbg ") and "`" not in text:
        return _BARE.sub(lambda m: tool_call(m.group(0), table) or m.group(0), text)
    return _QUOTED.sub(lambda m: tool_call(m.group(1), table) or m.group(0), text)


def tool_call(command: str, table: OpTable) -> str | None:
    """``dbg [-s NAME] OP WORDS...`` as ``dbg_OP(name=value, ...)`` (an op
    behind dbg_more as ``dbg_more(op="OP", args={...})``), or None."""
    try:
        words = shlex.split(command)[1:]
    except ValueError:
        return None
    common: dict[str, Any] = {}
    while words and global_flag(words[0]) is not None:
        if not _take_global(words, common):
            return None
    op = table.find_path(words)
    own, more = split_ops(table)
    if op is None or op not in own + more:
        return None
    lifted, kept = table.lift_globals(words)
    while lifted:
        if not _take_global(lifted, common):
            return None
    values = _read(op, kept[len(op.path):])
    if values is None:
        return None
    if op in own:
        return f"{tool_name(op)}({_arguments({**values, **common})})"
    inner = {"op": op.name, **({"args": values} if values else {}), **common}
    return f"{MORE}({_arguments(inner)})"


def _take_global(words: list[str], into: dict[str, Any]) -> bool:
    """The global option at the head of ``words`` into ``into``, taken off
    (``--json`` dropped: an MCP answer is structured already; ``--reveal``
    too: a tool's call has no such argument, DBG_REVEAL in the server's
    environment says it)."""
    found = option_at(words, 0)
    if found is None:
        return False
    flag, value, after = found
    del words[:after]
    if flag in BOOL_FLAGS:
        return True
    if value is None:
        return False
    into["timeout" if flag == "--timeout" else "session"] = \
        _number(value) if flag == "--timeout" else value
    return True


def _read(op: Op, words: list[str]) -> dict[str, Any] | None:
    """The op's values from its words, or None where they do not fit."""
    flags = {flag: arg for arg in op.args if not arg.hidden for flag in arg.flags}
    positional = [arg for arg in op.args if arg.positional and not arg.hidden]
    values: dict[str, Any] = {}
    loose: list[str] = []
    while words:
        word = words.pop(0)
        name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        arg = flags.get(name)
        if arg is None:
            if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
                return None
            loose.append(word)
            continue
        if arg.kind == "bool":
            values[arg.name] = True
            continue
        if not eq:
            if not words:
                return None
            inline = words.pop(0)
        value = _number(inline) if arg.kind in ("int", "float") else inline
        values[arg.name] = [*values.get(arg.name, []), value] if arg.multiple else value
    for arg in positional:
        if not loose:
            break
        if arg.kind == "text":
            values[arg.name] = " ".join(loose)
            loose = []
        elif arg.multiple:
            values[arg.name] = loose
            loose = []
        else:
            values[arg.name] = loose.pop(0)
    if loose:
        return None
    order = [arg.name for arg in op.args]
    return dict(sorted(values.items(), key=lambda item: order.index(item[0])))


def _number(word: str) -> Any:
    for kind in (int, float):
        try:
            return kind(word)
        except ValueError:
            continue
    return word


def _arguments(values: dict[str, Any]) -> str:
    return ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}"
                     for name, value in values.items())


def told_in_mcp_words(answer: Answer, table: OpTable) -> Answer:
    """``answer`` with its error's message and hint, and its note, in MCP's
    words (the answer is the call's own: changed where it is)."""
    if answer.error is not None:
        answer.error.message = in_mcp_words(answer.error.message, table)
        answer.error.hint = in_mcp_words(answer.error.hint, table)
    note = answer.payload.get("note")
    if isinstance(note, str):
        answer.payload["note"] = in_mcp_words(note, table)
    return answer


def described_in_mcp_words(schema: dict[str, Any], table: OpTable) -> dict[str, Any]:
    """A tool's input schema with each argument's description in MCP's words."""
    for one in schema.get("properties", {}).values():
        if "description" in one:
            one["description"] = in_mcp_words(one["description"], table)
    return schema
