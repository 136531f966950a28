"""CLI transcript tests: tests/transcripts/*.txt replay `$ dbg ...` commands
and compare what they print (stdout, then stderr) with the lines below them.

The format, line by line:

    # target: cart.py        copy a program from tests/targets first
    # anything else          a comment
    $ dbg ARGS...            a command (split like a shell would)
    [exit N]                 the command's exit code (0 when not given)
    ...                      any number of output lines
    anything else            one expected output line, with placeholders:
        {cart.py}            the copied target's absolute path
        {@name}              the line number of a `# @name` marker
        {version}            a version number, like 3.11.7
        {addr}               a memory address, like 0x7f3a2b1c
        {*}                  any text within the line
        {{ and }}            literal braces

Trailing spaces and blank lines are ignored, in the file and in the output.
Whatever happens, the session is killed at the end.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Dbg, Target

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"

pytestmark = pytest.mark.usefixtures("pdb_ready")


@dataclass
class Step:
    command: str
    line: int
    expected: list[str] = field(default_factory=list)
    exit: int = 0


def parse(path: Path) -> tuple[list[str], list[Step]]:
    targets: list[str] = []
    steps: list[Step] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.rstrip()
        if line.startswith("# target:"):
            targets.append(line.split(":", 1)[1].strip())
        elif line.startswith("#") or not line:
            continue
        elif line.startswith("$ "):
            if not line.startswith("$ dbg "):
                raise ValueError(f"{path.name}:{number}: commands start with `$ dbg`")
            steps.append(Step(line[len("$ dbg "):], number))
        elif not steps:
            raise ValueError(f"{path.name}:{number}: output before the first command")
        elif match := re.fullmatch(r"\[exit (\d+)\]", line):
            steps[-1].exit = int(match.group(1))
        else:
            steps[-1].expected.append(line)
    return targets, steps


def substitute(text: str, values: dict[str, str], quote: Callable[[str], str]) -> str:
    """Put the placeholders' values into a command."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"unknown placeholder {{{key}}}")
        return quote(values[key])

    return re.sub(r"\{([^{}]+)\}", one, text)


PATTERNS = {"version": r"\d+(?:\.\d+)+", "addr": r"0x[0-9a-fA-F]+", "*": r".*"}


def line_pattern(expected: str, values: dict[str, str]) -> re.Pattern[str]:
    parts = []
    for piece in re.split(r"(\{\{|\}\}|\{[^{}]+\})", expected):
        if piece in ("{{", "}}"):
            parts.append(re.escape(piece[0]))
        elif piece.startswith("{") and piece.endswith("}"):
            key = piece[1:-1]
            if key in PATTERNS:
                parts.append(PATTERNS[key])
            elif key in values:
                parts.append(re.escape(values[key]))
            else:
                raise KeyError(f"unknown placeholder {piece}")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts))


def matches(expected: list[str], actual: list[str], values: dict[str, str]) -> bool:
    """Do the lines match, with `...` standing for any number of lines?"""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[i:], values) for i in range(len(actual) + 1))
    return bool(actual) and line_pattern(head, values).fullmatch(actual[0]) is not None \
        and matches(rest, actual[1:], values)


def test_matcher_itself() -> None:
    values = {"cart.py": "/w/cart.py", "@loop": "16"}
    assert matches(["at {cart.py}:{@loop} in {*}", "...", "end"],
                   ["at /w/cart.py:16 in total", "x", "y", "end"], values)
    assert matches(["a", "..."], ["a"], values)
    assert not matches(["at {cart.py}:{@loop}"], ["at /w/cart.py:17"], values)
    assert not matches(["a"], ["a", "b"], values)
    assert not matches(["a.b"], ["axb"], values)
    assert matches(["{{x}} {version} {addr}"], ["{x} 3.11.7 0x7fab"], values)


@pytest.mark.parametrize("path", sorted(TRANSCRIPTS.glob("*.txt")), ids=lambda p: p.stem)
def test_transcript(path: Path, dbg: Dbg, target: Any) -> None:
    names, steps = parse(path)
    assert steps, f"{path.name} has no commands"
    values: dict[str, str] = {"work": str(dbg.cwd)}
    for name in names:
        copied: Target = target(name)
        values[name] = str(copied.path)
        values.update({f"@{mark}": str(line) for mark, line in copied.lines.items()})
    try:
        for step in steps:
            argv = shlex.split(substitute(step.command, values, shlex.quote))
            result = dbg(*argv)
            actual = [line.rstrip() for line in (result.out + result.err).splitlines()
                      if line.strip()]
            expected = [line.rstrip() for line in step.expected]
            where = f"{path.name}:{step.line}: $ dbg {step.command}"
            assert matches(expected, actual, values), (
                f"{where}\n--- expected\n" + "\n".join(expected)
                + "\n--- actual\n" + "\n".join(actual))
            assert result.code == step.exit, f"{where}: exit {result.code}, not {step.exit}"
    finally:
        dbg("kill")
