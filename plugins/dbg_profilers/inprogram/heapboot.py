"""Run inside the profiled Python program's own interpreter, before the
program: tracemalloc's snapshots of its heap, by allocation traceback.

``python heapboot.py OUT INTERVAL DEPTH LIMIT PROGRAM ARGS...`` starts
tracemalloc (DEPTH frames a traceback), runs PROGRAM as ``__main__``, and
writes one JSON line to OUT every INTERVAL seconds and one at the end
(however the program ends: its return, SystemExit, an exception, the
KeyboardInterrupt of Ctrl-C): the time, the traced bytes, tracemalloc's
peak so far, and the heaviest tracebacks with their bytes and blocks, each
frame ``[file, line]`` (which function a line is in is read afterwards, by
dbg: parsing files here would be traced, and slow the program down). Each
line is flushed as it is written, so a program that dies of a signal keeps
the snapshots before it; past LIMIT bytes of OUT no more snapshots are
written, and the last line says so.

Standard library only: it runs in whatever Python the program uses.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import threading
import time
import tracemalloc

#: Tracebacks a snapshot keeps, the heaviest first (the rest are summed).
TOP = 40


class Recorder:
    def __init__(self, out: str, limit: int, entry: tuple[str, int], program: str) -> None:
        # Open for the program's whole run: closed by main()'s finally.
        self.out = open(out, "w", encoding="utf-8")  # noqa: SIM115
        self.limit = limit
        self.written = 0
        self.full = False
        self.began = time.monotonic()
        #: This script's call of the program, and the program's file: the
        #: allocations under this script but not under that call are the
        #: recorder's own; those under it but not in the program's file,
        #: runpy's loading of it.
        self.entry = entry
        self.program = program
        self.lock = threading.Lock()
        # This recorder's frames and runpy's (frozen in Python 3.11 on).
        self.own = {os.path.abspath(__file__), runpy.__file__, tracemalloc.__file__,
                    threading.__file__, "<frozen runpy>"}

    def snapshot(self) -> None:
        with self.lock:
            if self.full or self.out.closed:
                return
            current, peak = tracemalloc.get_traced_memory()
            stats = tracemalloc.take_snapshot().statistics("traceback")
            stacks: list[object] = []
            rest = 0
            for stat in stats:
                if not self._the_programs(stat.traceback):
                    continue
                frames = [f for f in stat.traceback if f.filename not in self.own]
                if not frames:
                    continue
                if len(stacks) >= TOP:
                    rest += stat.size
                    continue
                stacks.append([[[f.filename, f.lineno] for f in frames], stat.size,
                               stat.count])
            line = json.dumps({"t": round(time.monotonic() - self.began, 4), "heap": current,
                               "peak": peak, "stacks": stacks, "rest": rest}) + "\n"
            if self.written + len(line) > self.limit:
                self.full = True
                line = json.dumps({"limit": self.limit}) + "\n"
            self.out.write(line)
            self.out.flush()
            self.written += len(line)

    def _the_programs(self, traceback: tracemalloc.Traceback) -> bool:
        """Whether an allocation is the program's (a thread of its own has
        neither frame; a traceback cut at its depth may have lost both)."""
        here = self.entry[0]
        if any(f.filename == here and f.lineno not in (self.entry[1], MAIN_LINE)
               for f in traceback):
            return False
        under = any((f.filename, f.lineno) == self.entry for f in traceback)
        return not under or any(f.filename == self.program for f in traceback)

    def every(self, interval: float, done: threading.Event) -> None:
        # A snapshot of a large heap takes a while, the program held still:
        # the wait is at least three snapshots' time, a quarter of the run at most.
        wait = interval
        while not done.wait(wait):
            began = time.monotonic()
            self.snapshot()
            wait = max(interval, 3 * (time.monotonic() - began))


def main() -> None:
    out, interval, depth, limit, program = sys.argv[1:6]
    sys.argv = sys.argv[5:]
    program = os.path.abspath(program)
    sys.path[0] = os.path.dirname(program)
    recorder = Recorder(out, int(limit), (os.path.abspath(__file__), RUN_LINE), program)
    done = threading.Event()
    ticker = threading.Thread(target=recorder.every, args=(float(interval), done),
                              name="dbg-heap-snapshots", daemon=True)
    tracemalloc.start(int(depth))
    ticker.start()
    try:
        runpy.run_path(program, run_name="__main__")  # RUN_LINE
    finally:
        done.set()
        recorder.snapshot()
        recorder.out.close()


def _marked(marker: str) -> int:
    with open(__file__, encoding="utf-8") as f:
        return next(number for number, text in enumerate(f, 1)
                    if text.rstrip().endswith(marker) and "(" in text)


RUN_LINE = _marked("# RUN_LINE")
MAIN_LINE = _marked("# MAIN_LINE")
main()  # MAIN_LINE
