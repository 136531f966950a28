"""What ocamldebug prints, as dbg reads it (the patterns, and the helpers
that need no debugger), and the command that builds a program for it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from dbgcore.api import BackendMissing

PROMPT = "(ocd) "
#: How long ocamldebug has to load the program and reach its first stop.
START_WAIT = 30.0
TIME_RE = re.compile(r"^Time: (?P<time>\d+)(?: - pc: (?P<pc>\S+) - module (?P<module>\S+))?",
                     re.M)
HIT_RE = re.compile(r"^Breakpoints?: (?P<ids>[\d ]+)", re.M)
EVENT_LINE_RE = re.compile(r"^(?P<line>\d+)\s.*<\|[ab]\|>", re.M)
FRAME_RE = re.compile(r"^#(?P<index>\d+) (?P<module>\S+) (?P<file>\S+?):(?P<line>\d+):\d+", re.M)
BREAK_SET_RE = re.compile(r"^Breakpoint (?P<id>\d+) at (?P<pc>\S+): file (?P<file>\S+), "
                          r"line (?P<line>\d+)", re.M)
EVENT_RE = re.compile(r"^(?P<pc>\d+:\s*\d+)\s+(?P<start>-?\d+)-\S*\s+(?P<kind>\S+)", re.M)
#: A value ocamldebug printed: ``name: type = value`` (the value may go on
#: on indented lines).
PRINTED_RE = re.compile(r"^(?P<name>\S[^:\n]*): (?P<type>.*?) =(?:[ \n]+)(?P<value>.*)", re.S)
UNBOUND_RE = re.compile(r"^Unbound identifier (?P<name>\S+)", re.M)
UNCAUGHT_RE = re.compile(r"^Uncaught exception: (?P<exception>.*)$", re.M)
#: What ocamldebug's `print` takes as one expression: a (module) name or
#: `$1`, dereferenced (`!r`), with fields and items (`r.f`, `a.(0)`,
#: `s.[0]`). Its `print` reads a list of expressions and some names make it
#: crash (an operator: "Cannot find address for: Stdlib.+"), so nothing
#: else is sent.
PRINTABLE_RE = re.compile(r"^!*\s*(?:\$\d+|[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*)"
                          r"(?:\.\(\s*\d+\s*\)|\.\[\s*\d+\s*\]|\.[a-z_][\w']*)*$")
#: ocamldebug asks when it lost the program (a crash of the runtime).
QUESTION_RE = re.compile(r"\(y or n\) ")
#: ocamldebug's stepping commands, forward and back, by dbg's op name.
FORWARD = {"continue": "run", "step": "step", "next": "next", "finish": "finish"}
BACKWARD = {"continue": "reverse", "step": "backstep", "next": "previous"}
#: At most this many of ocamldebug's steps (events) make one of dbg's (a line).
MAX_EVENTS = 200


def ocaml_build_command(program: Path, out: Path) -> tuple[list[str], Path] | None:
    if program.suffix != ".ml" or not program.is_file():
        return None
    if shutil.which("ocamlc") is None:
        raise BackendMissing(f"cannot build {program.name}: ocamlc is not on PATH",
                             "apt-get install ocaml")
    # -g: the events and names ocamldebug needs. ocamlc writes the unit's
    # .cmi and .cmo beside the source it compiles: it compiles a copy in
    # the session's folder, so the user's folder stays as it was (ocamldebug
    # reads the source from the user's folder, given with -I at launch).
    copy = out.parent / program.name
    return ["/bin/sh", "-c", 'cp -- "$1" "$2" && exec ocamlc -g -o "$3" "$2"', "ocamlc",
            str(program.absolute()), str(copy), str(out)], out


def stdlib_dir() -> str:
    try:
        return subprocess.run(["ocamlc", "-where"], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def living(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def entries(answer: str) -> list[str]:
    """The values of one ``print a b c``: each starts at column 0."""
    entries: list[str] = []
    for line in answer.strip("\r\n").splitlines():
        if line[:1].isspace() and entries:
            entries[-1] += "\n" + line
        elif line.strip():
            entries.append(line)
    return entries


def one_line(value: str) -> str:
    return re.sub(r"\s*\n\s*", " ", value.strip())
