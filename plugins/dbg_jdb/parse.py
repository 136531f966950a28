"""What jdb prints, read: its prompts, its events, its listings and errors.

jdb's prompt is ``> `` with no current thread and ``THREAD[FRAME] `` with
one (``main[1] ``, ``main[2] `` after ``up``); events (breakpoint hit, step
completed, method exited, field modified, exception) name the thread and
the location; its errors are prose, sometimes followed by a Java stack.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from dbgcore.api import UsageError

_THREAD_PROMPT = r"[^\s\[\]>][^\r\n\[\]]*\[(\d+)\] "
#: Prompts jdb printed twice on one line while the VM connects ("main[1] main[1] ",
#: measured under load), read past to the last one.
_STRAY = r"(?:> |[^\s\[\]>][^\r\n\[\]]*\[\d+\] )*?"
#: The prompt, at the end of what jdb has printed: "> " or "thread[frame] ".
PROMPT_RE = re.compile(rf"(?:\A|\n){_STRAY}(> |{_THREAD_PROMPT})$")
#: The prompt jdb shows while the program runs.
RUNNING_PROMPT_RE = re.compile(r"(?:\A|\n)(> )$")
#: Only the prompt of a stopped thread ("> " is what a running VM shows).
#: jdb's answer to `suspend` (a pause).
SUSPENDED_RE = re.compile(r"All threads suspended\.")
STOPPED_PROMPT_RE = re.compile(rf"(?:\A|\n){_STRAY}({_THREAD_PROMPT})$")
EVENT_RE = re.compile(
    r"(?P<kind>Breakpoint hit|Step completed|Method entered"
    r"|Method exited(?:: return value = (?P<ret>.*?),)?"
    r"|Field \((?P<field>[^)]*)\) is (?P<old>.*?), will be (?P<new>.*?)"
    r"|Exception occurred: (?P<exc>\S+) \((?P<caught>uncaught|caught)\))"
    r':?\s*"thread=(?P<thread>[^"]*)", (?P<where>[^\r\n]*?), line=(?P<line>-?[\d,.]+) bci=\d+')
EXIT_RE = re.compile(r"The application (?:exited|has been disconnected)")
WHERE_RE = re.compile(r"^\s*\[(\d+)\] (\S+) \(([^:)]*)(?::([\d,.]+))?\)", re.M)
THREAD_RE = re.compile(r"^\s*\(([\w.$]+)\)(\S+)\s+(.*?)\s*$", re.M)
THREAD_STATUS_RE = re.compile(
    r"\s+(running|sleeping|cond\. waiting|waiting in a monitor|waiting|zombie|not started"
    r"|unknown)(\s+\(at breakpoint\))?$")
DEFERRED_SET_RE = re.compile(r"Set deferred breakpoint (\S+)")
DEFERRED_FAIL_RE = re.compile(r"Unable to set deferred breakpoint (\S+) : (.*?)\r?$", re.M)
RESUMING = {"cont", "run", "step", "next", "stepi", "step up"}
#: Commands jdb answers with nothing but its prompt.
SILENT = {"up", "down", "thread", "threadgroup", "use", "sourcepath"}


def check_line(line: str) -> None:
    """Refuse a command jdb cannot take: one with a control character, on
    which jdb's expression parser dies (an Error in its command thread)
    and never answers."""
    bad = next((c for c in line if (ord(c) < 32 and c != "\t") or ord(c) == 127), None)
    if bad is not None:
        raise UsageError(f"jdb cannot take control characters (found {bad!r})",
                         "write them as escapes, e.g. \\u001b in a string")


def jdb_version(exe: str) -> str:
    # The JDK's `release` file says it without starting a JVM (~0.3 s).
    release = Path(os.path.realpath(exe)).parent.parent / "release"
    try:
        found = re.search(r'^JAVA_VERSION="([\d.]+)"', release.read_text(), re.M)
    except OSError:
        found = None
    if found:
        return found.group(1)
    try:
        out = subprocess.run([exe, "-version"], capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    match = re.search(r"Java SE version ([\d.]+)", out) or re.search(r"version ([\d.]+)", out)
    return match.group(1) if match else ""


def jdb_error(answer: str) -> str:
    """jdb's complaint as one line: its first line, without a Java stack."""
    lines = [line.strip() for line in answer.strip().splitlines() if line.strip()]
    first = lines[0] if lines else "no answer"
    if first.endswith(":") and len(lines) > 1:
        first = f"{first} {lines[1]}"
    return "jdb: " + re.split(r" at [\w.$]+\(", first)[0]


#: Packages of the JDK's own classes and of JUnit's runner: a frame of theirs
#: is a library's, hidden by `dbg stack` unless `--all`.
LIBRARY_PACKAGES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "org.junit.", "junit.")


def java_library(function: str) -> str | None:
    """The package of a library method (``java.lang`` for
    ``java.lang.Thread.run``), or None for the program's own."""
    if not function.startswith(LIBRARY_PACKAGES):
        return None
    package = []
    for part in function.split(".")[:-1]:
        if part[:1].isupper():  # a class: the package ended before it
            break
        package.append(part)
    return ".".join(package)


def method_arguments(answer: str) -> list[tuple[str, str]] | None:
    """The "Method arguments:" part of jdb's `locals` answer; None when jdb
    has none to give (a native method, a class without -g)."""
    if "Method arguments:" not in answer:
        return None
    section = answer.split("Method arguments:", 1)[1].split("Local variables:", 1)[0]
    out = []
    for line in section.splitlines():
        name, eq, value = line.partition(" = ")
        if eq and name.strip() and " " not in name.strip():
            out.append((name.strip(), value.strip()))
    return out
