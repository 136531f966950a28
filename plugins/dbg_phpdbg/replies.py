"""What phpdbg says, and how dbg reads it: the patterns of its reports and
answers, and the PHP code dbg has it run."""

from __future__ import annotations

import base64
import os
import re

from dbgcore.api import Frame, Variable

HIT_RE = re.compile(r"\[(?:Conditional breakpoint|Breakpoint) #(?P<id>\d+)\b[^\n]*?"
                    r" at (?P<file>[^\n]+?):(?P<line>\d+), hits: \d+\]")
UNCAUGHT_RE = re.compile(r"\[Uncaught (?P<type>\S+) in (?P<file>[^\n]+?) on line (?P<line>\d+)"
                         r"(?:: (?P<message>[^\n]*))?\]")
RESOLVED_RE = re.compile(r"^\[Breakpoint #0 resolved at [^\n]*\]\n", re.M)
ENDED_RE = re.compile(r"\[Script ended normally\]")
#: A whole line the program wrote while it runs: none of phpdbg's reports
#: (``[Breakpoint ...]``, a listing's ``>00018:`` and `` 00019:``), which
#: stay for the stop's reading.
OUTPUT_LINE_RE = re.compile(r"(?m)^((?!\[|[> ]\d{5,}: )[^\r\n]*\r?\n)")
#: The current line of a stop's listing.
CURRENT_RE = re.compile(r">(?P<line>\d{5,}): ")
FRAME_RE = re.compile(r"^frame #(?P<index>\d+): (?P<call>.*?) "
                      r"at (?P<file>[^\n]+?):(?P<line>\d+)\s*$", re.M)
ADDED_RE = re.compile(r"\[(?:Conditional breakpoint|Breakpoint|Pending breakpoint) #(?P<id>\d+)")
VERSION_RE = re.compile(r"^phpdbg (\S+)", re.M)
#: Where PHPUnit fails a test: a constraint that does not hold, `$this->fail()`.
FAILURE_FUNCTIONS = ("PHPUnit\\Framework\\Constraint\\Constraint::fail",
                     "PHPUnit\\Framework\\Assert::fail")
#: The message of the failure, asked in the frame of FAILURE_FUNCTIONS.
FAILURE_MESSAGE = ("return str_replace(\"\\n\", '; ', trim(isset($this) ? $description . "
                   "\"\\n\" . 'Failed asserting that ' . $this->failureDescription($other) . '.' "
                   ": $message));")
#: `print opline`: "L0053 0046 EXT_FCALL_END", "L0018 0005 T6 = FETCH_DIM_R ...".
OPLINE_RE = re.compile(r"^L\d+ (\d+) (?:\S+ = )?(\w+)[^\n]*\n?", re.M)
MARKED_RE = re.compile("\x1d([^\x1d]*)\x1d")
#: Commands that let the program run, as `dbg raw` may send them.
RUN_WORDS = {"run", "r", "continue", "c", "step", "s", "next", "n", "finish", "F", "leave", "L",
             "until", "u"}


#: phpdbg reads a command into a buffer of 500 bytes, and ends when a longer
#: line comes: dbg never sends one.
MAX_COMMAND = 490
#: The two helpers that take longer code in parts (so that no command is too
#: long): the code of every other helper, and long expressions.
TAKER = ("function __dbg_phpdbg_put(string $part, bool $take = false): string { "
         "static $held = ''; $held .= $part; if (!$take) return ''; "
         "$all = $held; $held = ''; return base64_decode($all); }")


def php_string(text: str) -> str:
    """PHP code that is ``text`` as a string, whatever it holds."""
    return "base64_decode('" + base64.b64encode(text.encode()).decode() + "')"


def _arguments(listed: str) -> list[str]:
    """`back`'s "name=value" items, split at the ", " before a name outside
    a quoted string."""
    items, start, quoted, escaped = [], 0, False, False
    for i, char in enumerate(listed):
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif not quoted and listed.startswith(", ", i) and ARG_NAME_RE.match(listed, i + 2):
            items.append(listed[start:i])
            start = i + 2
    return [*items, listed[start:]] if listed else items


#: An argument's start in `back`: its name and "=".
ARG_NAME_RE = re.compile(r"\w+=")


def frames_of(answer: str) -> list[Frame]:
    """The frames of `back`'s answer, innermost first; PHPUnit's are a library's."""
    frames = []
    for found in FRAME_RE.finditer(answer.replace("\r\n", "\n")):
        call = found["call"]
        name = call.split("(", 1)[0] if call.endswith(")") else call
        index = int(found["index"])
        frame = Frame(index, name, found["file"], int(found["line"]), index == 0)
        if call.endswith(")") and "(" in call:
            # phpdbg's short words for each argument: "amount=19.25", "argv=array(1)".
            listed = call[call.index("(") + 1:-1]
            frame.args = [Variable("$" + item.partition("=")[0], item.partition("=")[2])
                          for item in _arguments(listed) if "=" in item]
        if name.startswith("PHPUnit\\") or "/PHPUnit/" in found["file"] \
                or os.path.basename(found["file"]).startswith("phpunit"):
            frame.library, frame.library_name = True, "phpunit"
        frames.append(frame)
    return frames
