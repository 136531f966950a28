"""`dbg memcheck`: the program runs under valgrind's memcheck, and gdb drives
it through valgrind's own gdb server (``target remote | vgdb --pid=PID``).

Facts this rests on (valgrind 3.19, gdb 18.1's DAP; measured):

- With ``--vgdb=yes --vgdb-error=0`` valgrind stops the program before its
  first instruction and after each error it reports, and waits for gdb. The
  first stop comes about 1 s after valgrind starts (the log line "TO DEBUG
  THIS PROCESS USING GDB" says the server is up); gdb, attached by DAP with
  ``target``, then says ``attach``.
- An error's stop is a SIGTRAP that gdb's DAP reports as reason "stopped",
  nothing more: what the error was is only in valgrind's log, written before
  the stop, and followed by the line "(action on error) vgdb me ...". So a
  stop after a new such line is that error's, and one without is the
  user's (a breakpoint, a step).
- The message's frames are "at 0xADDR: FUNCTION (FILE:LINE)", or "(in
  LIBRARY)" for a frame without debug info (valgrind's malloc and free, in
  its preloaded library): the first frame with a line is the one a person
  wants in a one-line summary.
- At the program's end valgrind writes the heap, leak and error summaries,
  then exits; gdb's ``exited`` event may come before they are written, so
  they are read once valgrind itself has ended.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from dbgcore.api import OpFailed, UsageError

#: The memcheck command line before the program (valgrind's log goes to a
#: file of the session's, the program's own streams stay the program's).
VALGRIND_OPTIONS = ("--tool=memcheck", "--vgdb=yes", "--vgdb-error=0", "--track-origins=yes")

#: Install words for a machine without it.
VALGRIND_INSTALL = "apt-get install valgrind (it brings vgdb)"

#: How long valgrind may take to start its gdb server: it loads the program
#: and its libraries' debug info first (about 1 s here; more on a big binary).
SERVER_WAIT = 20.0

#: How long the end waits for valgrind to write its summaries and exit (a
#: leak check of a big heap takes a while).
MEMCHECK_SUMMARY_WAIT = 10.0

#: What valgrind logs once its gdb server waits for gdb.
_READY = "TO DEBUG THIS PROCESS USING GDB"
#: What it logs after an error, just before it stops for gdb.
_ERROR_MARK = "(action on error) vgdb me"
#: "==1234== " (or "--1234-- " for its own notices) at the start of each line.
_PREFIX_RE = re.compile(r"^(?:==|--)\d+(?:==|--) ?", re.MULTILINE)
#: A frame line: "at 0x1091C9: main (prog.c:23)", "by 0x48417B4: malloc (in /usr/...)".
_FRAME_RE = re.compile(r"^\s*(at|by) 0x[0-9A-Fa-f]+: (.*)$")
_HAS_LINE_RE = re.compile(r"\([^()]+:\d+\)$")


@dataclass
class MemcheckError:
    """One error valgrind reported: its kind ("Invalid read of size 4") and
    what it says of the memory involved, each part with the frame of the
    program's own code it names."""

    kind: str
    #: Each part after the error's own stack: "Address 0x... is 0 bytes after a
    #: block of size 16 alloc'd at main (prog.c:26)", "Uninitialised value was
    #: created by a stack allocation at main (prog.c:20)".
    notes: list[str] = field(default_factory=list)
    #: The error's own first frame, as valgrind words it: "main (prog.c:23)".
    where: str = ""

    def description(self) -> str:
        """The stop's description: "memcheck: KIND", then each note."""
        return "\n".join([f"memcheck: {self.kind}", *self.notes])


def parse_error(lines: list[str]) -> MemcheckError:
    """One error block of valgrind's log (prefixes removed): the kind, then
    its stack, then parts that start one space in (" Address ...", " Block
    was alloc'd at"), each with a stack of its own."""
    kind = lines[0].strip()
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in lines[1:]:
        frame = _FRAME_RE.match(line)
        if frame:
            parts[-1][1].append(frame.group(2).strip())
        elif line.strip():
            parts.append((line.strip(), []))
    error = MemcheckError(kind, where=_own_frame(parts[0][1]))
    for words, frames in parts[1:]:
        own = _own_frame(frames)
        # "Block was alloc'd at" ends in its own "at"; "Address ... alloc'd" does not.
        joined = f"{words} {own}" if words.endswith(" at") else f"{words} at {own}"
        error.notes.append(joined if own else words)
    return error


def _own_frame(frames: list[str]) -> str:
    """The first frame with a source line (the program's), else the first."""
    return next((f for f in frames if _HAS_LINE_RE.search(f)), frames[0] if frames else "")


def valgrind_log_lines(text: str) -> list[str]:
    """The log's lines without valgrind's "==PID== " prefix."""
    return _PREFIX_RE.sub("", text).splitlines()


def errors_in(text: str) -> list[MemcheckError]:
    """Every error the log reports that valgrind stopped for, in order: the
    chunk (lines between blank ones) before each "(action on error)" line,
    from its last line at the margin on (the kind: notes and frames are
    indented; valgrind's "Continuing ..." may precede it with no blank line)."""
    found: list[MemcheckError] = []
    chunk: list[str] = []
    previous: list[str] = []
    for line in [*valgrind_log_lines(text), ""]:
        if line.strip():
            chunk.append(line)
            continue
        if chunk and chunk[0].startswith(_ERROR_MARK) and previous:
            starts = [i for i, said in enumerate(previous) if not said[:1].isspace()]
            found.append(parse_error(previous[starts[-1] if starts else 0:]))
        if chunk:
            previous, chunk = chunk, []
    return found


#: The end's lines worth an answer: the heap in use at exit, each leak
#: class, the no-leak sentence, and the error count.
_SUMMARY_RE = re.compile(r"^\s*(in use at exit: .*|definitely lost: .*|indirectly lost: .*"
                         r"|possibly lost: .*|still reachable: .*|suppressed: .*"
                         r"|All heap blocks were freed -- no leaks are possible"
                         r"|ERROR SUMMARY: .*)$")


def summary_of(text: str) -> list[str]:
    """Valgrind's summaries at the program's end, one line each, the error
    count first ("memcheck: ERROR SUMMARY: 3 errors from 3 contexts ..."),
    then the heap's and the leaks' lines, indented under it."""
    lines = [m.group(1).strip() for line in valgrind_log_lines(text)
             if (m := _SUMMARY_RE.match(line))]
    # "suppressed:" also ends the leak summary, after its classes.
    errors = [f"memcheck: {line}" for line in lines if line.startswith("ERROR SUMMARY")]
    return errors[-1:] + [f"  {line}" for line in lines if not line.startswith("ERROR SUMMARY")]


def vgdb_path() -> str:
    """valgrind's vgdb, which gdb runs to reach valgrind's gdb server."""
    return shutil.which("vgdb") or "/usr/bin/vgdb"


def valgrind_path() -> str:
    found = shutil.which("valgrind")
    if found is None:
        raise UsageError("memcheck needs valgrind, which is not installed", VALGRIND_INSTALL)
    return found


class MemcheckRun:
    """One run of a program under memcheck: valgrind's process and its log
    (in the session's run folder), read at each stop for the error that
    stopped it, and at the end for the summaries."""

    def __init__(self, run_dir: Path) -> None:
        # One per session: a run's log stays for reading after the run, and
        # the next run (`dbg restart`, once this valgrind is gone) replaces it.
        self.log = run_dir / "memcheck.log"
        self.proc: subprocess.Popen[bytes] | None = None
        #: How many of the log's errors were stops already told.
        self.told = 0

    def argv(self, program: str, args: list[str]) -> list[str]:
        return [valgrind_path(), *VALGRIND_OPTIONS, f"--log-file={self.log}", program, *args]

    def spawn(self, program: str, args: list[str], cwd: str | None, env: dict[str, str],
              stdin: str | None) -> subprocess.Popen[bytes]:
        """Valgrind with the program, in a process group of its own (which
        the session's end takes down whole), its streams piped to dbg."""
        # The last run's log must not say "ready" for this one.
        self.log.unlink(missing_ok=True)
        # The program's stdin (dbg's FIFO opens at once: dbg holds its write end).
        with open(stdin or os.devnull, "rb") as source:
            self.proc = subprocess.Popen(self.argv(program, args), cwd=cwd or None,
                                         env={**os.environ, **env}, stdin=source,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=True)
        return self.proc

    @property
    def target(self) -> str:
        """gdb's ``target remote`` words for this run's gdb server."""
        assert self.proc is not None
        return f"| {vgdb_path()} --pid={self.proc.pid}"

    def text(self) -> str:
        try:
            return self.log.read_text("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def wait_ready(self, timeout: float) -> None:
        """Until valgrind's gdb server waits for gdb: its log says so. A
        valgrind that ends first (a program it cannot run) says why there."""
        assert self.proc is not None
        deadline = time.monotonic() + min(timeout, SERVER_WAIT)
        while _READY not in self.text():
            if self.proc.poll() is not None:
                said = [line for line in valgrind_log_lines(self.text()) if line.strip()]
                raise OpFailed(f"valgrind ended before its gdb server started (status "
                               f"{self.proc.returncode}): {' '.join(said[-3:]) or 'no log'}",
                               "check that the program runs: valgrind PROGRAM")
            if time.monotonic() > deadline:
                raise OpFailed(f"valgrind's gdb server did not start within "
                               f"{min(timeout, SERVER_WAIT):g} s",
                               "a big program takes longer: give more --timeout")
            time.sleep(0.05)

    def new_error(self) -> MemcheckError | None:
        """The error this stop is for, if valgrind reported one since the
        last stop (else the stop is the user's: a breakpoint, a step)."""
        found = errors_in(self.text())
        if len(found) <= self.told:
            return None
        self.told = len(found)
        return found[-1]

    def summary(self, wait: float) -> list[str]:
        """The summaries valgrind wrote at the end, once it has ended (within
        ``wait`` seconds; what it wrote by then otherwise)."""
        if self.proc is not None:
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
        return [*summary_of(self.text()), f"  valgrind's whole report: {self.log}"]


def own_frame_index(frames: list[dict[str, object]]) -> int:
    """The stop's frame for an error: the first with a source file, not
    valgrind's replacement of malloc or free (no debug info) it arose in."""
    for index, frame in enumerate(frames):
        source = frame.get("source")
        if isinstance(source, dict) and os.path.isabs(str(source.get("path") or "")):
            return index
    return 0
