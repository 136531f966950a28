"""Which files of a debugpy session are the standard library's or an
installed package's, not the program's own: a stack's frames are marked by
it, a catch stops at the first frame of the program's code, and a
traceback starts there.

One answer a session, made by whoever asks first: the stack (the
debuggee's interpreter names its standard library, in one evaluate), or a
question about a file before any stack (the interpreter dbg probed before
the launch)."""

from __future__ import annotations

from collections.abc import Callable

from dbg_dap.host import AdapterHost, program_root
from dbgcore.api import Message, PythonLibraries, PythonSetup


class ProgramLibraries:
    """The session's one :class:`PythonLibraries`, made on first use."""

    def __init__(self, python_setup: Callable[[], PythonSetup]) -> None:
        self._python_setup = python_setup
        self._libraries: PythonLibraries | None = None

    def library_file(self, path: str) -> bool:
        """Whether ``path`` is the standard library's or an installed package's."""
        if self._libraries is None:
            self._libraries = PythonLibraries(self._python_setup().stdlib, None)
        return self._libraries.library_of(path) is not None

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        """Each frame's library (None: the program's own code)."""
        if self._libraries is None and frames:
            # The debuggee's interpreter names its standard library (asked
            # once a session: one evaluate).
            from dbgcore.api import STDLIB_EXPRESSION, DbgError, PythonLibraries

            try:
                answer = backend.evaluate_in(frames[0], STDLIB_EXPRESSION, timeout)
            except DbgError:
                answer = "[]"
            self._libraries = PythonLibraries(PythonLibraries.stdlib_from(answer),
                                              program_root(backend.program) or backend.cwd)
        if self._libraries is None:
            return [None] * len(frames)
        return [self._libraries.library_of((f.get("source") or {}).get("path")) for f in frames]
