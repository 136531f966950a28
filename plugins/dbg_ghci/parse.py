"""Reading ghci's answers: source spans, stops, bindings, history lines and
how an evaluation of ``main`` ended.

ghci writes a place as a source span: ``cart.hs:18:19-39`` (one line, two
columns), ``cart.hs:18:19`` (one column) or ``cart.hs:(16,31)-(18,18)``
(several lines); dbg's line is the span's first. A stop is
``Stopped in Main.applyDiscount.discount, cart.hs:18:19-39`` followed by the
stopped expression's free variables, one ``name :: Type = value`` each
(``_`` for a value not evaluated yet). ``:history`` lists the evaluation
steps it traced, most recent first: ``-1  : applyDiscount (cart.hs:19:6-21)``,
a local binding written ``cartTotal:costs``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SPAN_RE = re.compile(r"(?P<file>[^\s,()][^,()]*?):(?:\((?P<l1>\d+),\d+\)-\(\d+,\d+\)"
                     r"|(?P<l2>\d+):\d+(?:-\d+)?)")
STOP_RE = re.compile(r"^Stopped in (?P<name>.+?), (?P<span>\S+)\s*$", re.M)
#: What -fbreak-on-error (or -on-exception) makes of an exception: a stop
#: with no place of its own.
EXCEPTION_STOP = "<exception thrown>"
BINDING_RE = re.compile(r"^(?P<name>[^\s:][^\s]*) :: (?P<type>.*?)(?: = (?P<value>.*))?$")
HISTORY_RE = re.compile(r"^-(?P<index>\d+)\s+: (?P<name>\S+) \((?P<span>.*)\)\s*$")
BREAK_SET_RE = re.compile(r"^Breakpoint (?P<number>\d+) activated at (?P<span>.+?)\s*$", re.M)
EXCEPTION_RE = re.compile(r"^\*\*\* Exception: (?P<what>.*?)\s*$", re.M | re.S)
EXIT_FAILURE_RE = re.compile(r"^ExitFailure (?P<code>-?\d+)$")
#: An error ghci reports for an expression: "<interactive>:3:1: error: ..."
ERROR_RE = re.compile(r"^<interactive>:[\d:()\-,]+: error:\s*(?P<message>.*)", re.M | re.S)
#: The names dbg binds in ghci's interactive context itself (see print).
OWN_NAME = "dbg'value"
#: A Haskell module header.
MODULE_RE = re.compile(r"^module\s+(?P<name>[A-Z][\w.']*)", re.M)


@dataclass(frozen=True)
class Span:
    file: str
    line: int


def span(text: str) -> Span | None:
    """The file and first line of a ghci source span, None for ``<unknown>``."""
    found = SPAN_RE.search(text)
    if found is None:
        return None
    return Span(found["file"], int(found["l1"] or found["l2"]))


@dataclass(frozen=True)
class Stop:
    name: str  # Main.applyDiscount.discount, or <exception thrown>
    where: Span | None
    span_text: str

    @property
    def exception(self) -> bool:
        return self.name == EXCEPTION_STOP


def last_stop(text: str) -> Stop | None:
    """The last stop an answer reports, if it reports one."""
    stops = list(STOP_RE.finditer(text))
    if not stops:
        return None
    found = stops[-1]
    return Stop(found["name"], span(found["span"]), found["span"])


def top_level(name: str) -> str:
    """The top-level function a qualified ghci name is in:
    ``Main.applyDiscount.discount`` -> ``Main.applyDiscount`` (module names'
    parts begin with a capital, a function's with anything else)."""
    parts = name.split(".")
    for index, part in enumerate(parts):
        if part and not part[0].isupper():
            return ".".join(parts[:index + 1])
    return name


def bindings(text: str) -> list[tuple[str, str, str]]:
    """``:show bindings``' lines as (name, type, value); a long type or value
    goes on over indented lines, joined here."""
    found: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        if line.startswith((" ", "\t")) and found:
            name, kind, value = found[-1]
            more = line.strip()
            found[-1] = (name, kind, f"{value} {more}") if value else (name, f"{kind} {more}", "")
            continue
        match = BINDING_RE.match(line.rstrip())
        if match:
            found.append((match["name"], match["type"], match["value"] or ""))
    return found


@dataclass(frozen=True)
class Step:
    index: int
    name: str  # applyDiscount, cartTotal:costs
    where: Span | None


def history(text: str) -> list[Step]:
    steps = []
    for line in text.splitlines():
        match = HISTORY_RE.match(line.strip("\r"))
        if match:
            steps.append(Step(int(match["index"]), match["name"], span(match["span"])))
    return steps


def exit_code(answer: str) -> tuple[int, str]:
    """How an evaluation of main that did not stop ended: its exit code, as
    the compiled program's would be, and the message of an exception that
    ended it (what the program would have written on its stderr)."""
    found = EXCEPTION_RE.search(answer)
    if found is None:
        return 0, ""
    what = found["what"].strip()
    if what == "ExitSuccess":
        return 0, ""
    failure = EXIT_FAILURE_RE.match(what)
    if failure:
        return int(failure["code"]) & 0xFF, ""
    return 1, what


def error(answer: str) -> str | None:
    """ghci's error for an expression or a command, on one line."""
    found = ERROR_RE.search(answer)
    if found is None:
        return None
    return " ".join(found["message"].split())


MAIN_RE = re.compile(r"^main\b(?!\s*::).*=", re.M)


def main_line(source: str) -> int:
    """The line of ``main``'s definition (``main = do``), 1 if none is found."""
    found = MAIN_RE.search(source)
    return source.count("\n", 0, found.start()) + 1 if found else 1


def module_of(source: str) -> str:
    """The module a Haskell file holds: its header's, else Main."""
    found = MODULE_RE.search(source)
    return found["name"] if found else "Main"
