"""`dbg exception` on debugpy: the exception's traceback as Python prints
it, causes first, and its chain.

pydevd's exceptionInfo gives a stack text that is not quite Python's (the
stop's own frames innermost first, the runner's among them, a chain that
ends at a cause that was never raised); what it cannot say is asked of the
program (dbgcore/inprogram/pyrepr.py)."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from dbg_dap.debugpy.answers import exception_call, pyrepr_expression
from dbg_dap.debugpy.libraries import ProgramLibraries
from dbg_dap.debugpy.values import internal_frame
from dbg_dap.host import AdapterHost
from dbgcore.api import DbgError


class ExceptionChain:
    """The traceback and chain of the exception a program stopped at."""

    def __init__(self, libraries: ProgramLibraries) -> None:
        self._libraries = libraries

    def exception_stack(self, backend: AdapterHost, text: str,
                        timeout: float) -> tuple[str, list[dict[str, str]]]:
        """The traceback (without its last line) and the chain, cause first."""
        # pydevd's text ends the chain at a cause that was never raised (it
        # has no traceback): multiprocessing's RemoteTraceback, which holds
        # the traceback of the worker where the exception was raised. And a
        # failing test stops in the test's own frame (pyboot/dbg_testhook.py),
        # where pydevd's frames end, though it was raised further in (a
        # library's code it called). The causes are asked of the program, as
        # Python prints them; the stop's own exception is pydevd's frames,
        # which lead to the stop, and its traceback's beyond it.
        blocks = _pydevd_blocks(text)
        asked = self._asked(backend, timeout) if blocks else None
        if asked is not None:
            causes, inner = asked
            main = blocks[-1]
            if main.frames:
                stop = main.frames[-1][0]
                heads = [frame[0] for frame in inner]
                if stop in heads:
                    last = len(heads) - 1 - heads[::-1].index(stop)
                    main.frames += inner[last + 1:]
            blocks = [*causes, main]
        return self._traceback(blocks), _chain(blocks)

    def handled(self, backend: AdapterHost, timeout: float) -> dict[str, object] | None:
        """The exception the stopped thread handles (``sys.exc_info()``,
        evaluated in the stopped frame: pydevd evaluates in that thread),
        with its causes; None where it handles none."""
        frames = backend.stack_frames(timeout, 1)
        if not frames:
            return None
        probe = (f"__import__('json').dumps((lambda e: None if e is None else "
                 f"[type(e).__name__, str(e), {pyrepr_expression()}.exception_rows(e)])"
                 f"(__import__('sys').exc_info()[1]))")
        try:
            said = json.loads(ast.literal_eval(backend.evaluate_in(frames[0], probe, timeout)))
        except (DbgError, ValueError, SyntaxError, TypeError):
            return None
        if not isinstance(said, list):
            return None
        name, description, (rows_of_causes, own) = said
        blocks = _cause_blocks(rows_of_causes)
        main = _TracebackBlock()
        main.frames = _traceback_frames(own)
        main.name, main.description = str(name), str(description)
        blocks.append(main)
        return {"exception": str(name), "description": str(description),
                "stack": self._traceback(blocks), "chain": _chain(blocks), "handled": True}

    def _asked(self, backend: AdapterHost, timeout: float
               ) -> tuple[list[_TracebackBlock], list[list[str]]] | None:
        """Of the exception the program stopped at, from the program: its
        causes, outermost first, and its own traceback's frames (None when
        it cannot say)."""
        frames = backend.stack_frames(timeout)
        if not frames:
            return None
        try:
            rows, own = json.loads(ast.literal_eval(
                backend.evaluate_in(frames[0], exception_call("exception_rows"), timeout)))
            return _cause_blocks(rows), _traceback_frames(own)
        except (DbgError, ValueError, SyntaxError, TypeError):
            return None

    def _traceback(self, blocks: list[_TracebackBlock]) -> str:
        """The traceback Python prints, causes first, without the runner's
        frames, and without the last line (`dbg exception` says it first)."""
        lines: list[str] = []
        for index, block in enumerate(blocks):
            if block.frames:
                frames = self._program_frames(block.frames)
                lines += ["Traceback (most recent call last):",
                          *(line for frame in frames for line in frame)]
            if index < len(blocks) - 1:
                lines += [block.error, "", _CHAIN_WORDS[block.relation], ""]
        return "\n".join(lines) if any(b.frames for b in blocks) else ""

    def _program_frames(self, frames: list[list[str]]) -> list[list[str]]:
        """Frames (outermost first) from the first of the program's own code:
        without the runner's (runpy, pytest, unittest) above it."""
        def path(frame: list[str]) -> str:
            found = _TB_FILE_RE.search(frame[0])
            return found.group(1) if found else ""

        mine = [f for f in frames if not internal_frame({"source": {"path": path(f)}})]
        for index, frame in enumerate(mine):
            if not self._libraries.library_file(path(frame)):
                return mine[index:]
        if len(mine) > LIBRARY_TRACEBACK_FRAMES:
            # None of the program's own (a runner's error about the program,
            # whose cause has the program's frames): where it was raised.
            left = len(mine) - LIBRARY_TRACEBACK_FRAMES
            return [[f"  ... {left} frames of the runner and libraries"],
                    *mine[-LIBRARY_TRACEBACK_FRAMES:]]
        return mine


class _TracebackBlock:
    """One exception of a chain: its frames (outermost first), its line as
    Python prints it, and how it leads to the next one ("cause" or
    "context"); its type's name and its text when known apart."""

    def __init__(self) -> None:
        self.frames: list[list[str]] = []
        self.error = ""
        self.relation = ""
        self.name: str | None = None
        self.description = ""


def _chain(blocks: list[_TracebackBlock]) -> list[dict[str, str]]:
    """`dbg exception`'s chain: the exceptions before the last, cause first."""
    chain = []
    for block in blocks[:-1]:
        if block.name is None:
            name, _, message = block.error.partition(": ")
        else:
            name, message = block.name, block.description
        chain.append({"exception": name, "description": message, "relation": block.relation})
    return chain



def _cause_blocks(rows: list[Any]) -> list[_TracebackBlock]:
    """pyrepr's exception_rows, outermost cause first, as traceback blocks."""
    blocks = []
    for name, description, relation, entries, only in rows:
        block = _TracebackBlock()
        block.frames = _traceback_frames(entries)
        block.error = str(only).rstrip("\n")
        block.name, block.description = str(name), str(description)
        block.relation = str(relation)
        blocks.append(block)
    return blocks

def _traceback_frames(entries: list[list[object]]) -> list[list[str]]:
    """Traceback entries [file, line, function, code] as frames of a block."""
    return [[f'  File "{path}", line {line}, in {function}', *([f"    {code}"] if code else [])]
            for path, line, function, code in entries]


#: Python's words between the exceptions of a chain, by relation.
_CHAIN_WORDS = {
    "cause": "The above exception was the direct cause of the following exception:",
    "context": "During handling of the above exception, another exception occurred:",
    "": "",
}
_CHAIN_RELATIONS = {words: relation for relation, words in _CHAIN_WORDS.items() if words}


def _pydevd_blocks(text: str) -> list[_TracebackBlock]:
    """pydevd's exceptionInfo stack text, exception by exception, causes
    first. pydevd lists a cause's frames as its traceback has them,
    outermost first, but the stop's own exception's from the stopped frame
    out, innermost first (the runner's and its own among them, one marked
    "(Current frame)"), code underlined with carets, each exception ended by
    its line."""
    blocks = [_TracebackBlock()]
    for line in text.splitlines():
        block = blocks[-1]
        head = _TB_FRAME_RE.match(line)
        stripped = line.strip()
        if head:
            block.frames.append([f"  {head.group(1)}"])
        elif stripped in _CHAIN_RELATIONS:
            block.relation = _CHAIN_RELATIONS[stripped]
            blocks.append(_TracebackBlock())
        elif not stripped or block.error:
            continue  # a blank line, or more of a message that has several
        elif line.startswith("    ") and block.frames:
            if stripped.strip("^~ ") and len(block.frames[-1]) == 1:
                block.frames[-1].append(line)  # the frame's line of code, not carets
        elif block.frames:
            block.error = stripped.removesuffix(":")
    blocks = [b for b in blocks if b.frames or b.error]
    if blocks:
        blocks[-1].frames.reverse()
    return blocks


#: A frame of pydevd's stack text, without its "(Current frame)" mark.
_TB_FRAME_RE = re.compile(r"^\s*(File \".*?\", line \d+, in .*?)(?: \(Current frame\))?\s*$")
_TB_FILE_RE = re.compile(r'File "(.*?)"')

#: The innermost frames a traceback part with none of the program's keeps.
LIBRARY_TRACEBACK_FRAMES = 3

