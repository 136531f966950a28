"""valgrind's memcheck as a leak checker of native programs (`dbg leaks`).

The program runs under ``valgrind --leak-check=full --xml=yes``; at its exit
memcheck writes one ``<error>`` per loss record (``Leak_DefinitelyLost``,
``Leak_IndirectlyLost``, ``Leak_PossiblyLost``) with its bytes, its blocks
and the allocation's stack, each frame with its object, function, file and
line. The XML is read here with the standard library. Memory errors that
are not leaks (an invalid read, a use of an uninitialized value) are
counted in the note: reading them at their line is a debugger's job.

A program that dies of a signal is still checked (valgrind finishes its
tool first); one that valgrind had to kill leaves no report, which is said.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

from dbg_profilers import common
from dbg_profilers.massif import read_limited
from dbg_profilers.valgrind import ValgrindProfiler
from dbgcore.api import Leak as LeakRecord
from dbgcore.api import OpFailed, Profile, ProfileFrame, RecordRequest

#: memcheck's leak kinds, in the vocabulary's words.
_KINDS = {"Leak_DefinitelyLost": "definitely", "Leak_IndirectlyLost": "indirectly",
          "Leak_PossiblyLost": "possibly"}


class MemcheckLeaks(ValgrindProfiler):
    id = "memcheck"
    tool_name = "memcheck"
    measures = "leaks"
    summary = "valgrind's memcheck: the blocks a native program never freed, by stack"

    def record(self, request: RecordRequest) -> Profile:
        path = self.valgrind_path()
        report = request.workdir / "memcheck.xml"
        output = request.workdir / "output.txt"
        argv = [path, "--tool=memcheck", "--leak-check=full",
                "--show-leak-kinds=definite,indirect,possible", "--xml=yes",
                f"--xml-file={report}", *request.argv]
        exit_code, cut = common.run_bounded(argv, request, output, request.duration)
        if not report.exists():
            raise OpFailed(f"memcheck wrote no report: {common.tail(output, '==')}",
                           f"does `valgrind {' '.join(request.argv)}` run?")
        text, clipped = read_limited(report, request.file_limit)
        program = os.path.realpath(request.argv[0]) if request.argv else ""
        leaks, others, complete = parse_report(text, program)
        profile = Profile(self.id, "stacks", "bytes", exit_code=exit_code, leaks=leaks)
        notes = []
        if cut:
            notes.append("the program was stopped (SIGINT) when the recording ended")
        if not complete:
            notes.append("memcheck's report ends early (the program was killed before its "
                         "exit was checked, or the file passed the limit"
                         f"{' of ' + str(request.file_limit) + ' bytes' if clipped else ''}): "
                         "what it holds is shown")
        if others:
            said = ", ".join(f"{count} {kind}" for kind, count in others.most_common())
            notes.append(f"memcheck also saw memory errors that are not leaks: {said}")
        profile.note = "; ".join(notes)
        if exit_code and not cut:  # a stop by --duration is no failure to show
            profile.output = common.tail(output, "==")
        return profile


def parse_report(text: str, program: str = "") -> tuple[list[LeakRecord], Counter[str], bool]:
    """memcheck's XML as loss records, the count of its other errors by
    kind, and whether the report is whole (a cut one is read up to its
    last complete error)."""
    complete = "</valgrindoutput>" in text
    if not complete:
        last = text.rfind("</error>")
        text = (text[:last + len("</error>")] if last >= 0 else
                text[:text.find("<error>")] if "<error>" in text else text)
        text += "\n</valgrindoutput>\n"
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise OpFailed(f"memcheck's report is not XML: {exc}") from exc
    leaks: list[LeakRecord] = []
    others: Counter[str] = Counter()
    for error in root.iter("error"):
        kind = error.findtext("kind") or "?"
        if kind not in _KINDS:
            others[kind] += 1
            continue
        what = error.find("xwhat")
        leaked = int(what.findtext("leakedbytes") or 0) if what is not None else 0
        blocks = int(what.findtext("leakedblocks") or 0) if what is not None else 0
        stack = error.find("stack")
        frames = tuple(_frame(f, program) for f in stack.iter("frame")) if stack is not None \
            else ()
        leaks.append(LeakRecord(_KINDS[kind], leaked, blocks, frames))
    return leaks, others, complete


def _frame(frame: ElementTree.Element, program: str) -> ProfileFrame:
    function = frame.findtext("fn") or frame.findtext("ip") or "??"
    obj = frame.findtext("obj") or ""
    file = frame.findtext("file")
    line = frame.findtext("line")
    if file:
        folder = frame.findtext("dir")
        where = str(Path(folder) / file) if folder else file
        # valgrind's own malloc and the system's libraries have files too
        # (their debug info): the program's own code is what is left.
        own = not obj or (program and os.path.realpath(obj) == program) or \
            ("vgpreload" not in obj and not obj.startswith(("/lib", "/usr/lib")))
        return ProfileFrame(function, where, int(line) if line and line.isdigit() else None,
                            None if own else Path(obj).name.split(".so")[0])
    if obj and program and os.path.realpath(obj) == program:
        return ProfileFrame(function, obj)
    return ProfileFrame(function, obj or None, None,
                        Path(obj).name.split(".so")[0] if obj else "native")
