"""Where a Python program's code is, for breakpoints: the files of its
loaded modules by name, and where a function starts in its sources.

pydevd stops at a function's `def` line and never in a generator, and
verifies a function breakpoint of any name; so dbg finds the function in
the program's sources itself and sets a line breakpoint at its first
statement, as gdb and pdb stop there. Stateless: each answer is read
from the files and the stopped program."""

from __future__ import annotations

import ast
import os

from dbg_dap.host import AdapterHost, program_root
from dbgcore.api import CodePlace, DbgError, OpFailed


def source_files(backend: AdapterHost, name: str, timeout: float) -> list[str]:
    """The files of the modules the program has loaded, named ``name``."""
    expression = ("[f for m in list(__import__('sys').modules.values()) "
                  "for f in [getattr(m, '__file__', None)] "
                  f"if f and f.endswith({'/' + name!r})]")
    answer = backend.evaluate_with(expression, "repl", timeout).value
    try:
        files = ast.literal_eval(answer)
    except (ValueError, SyntaxError):
        return []
    return [str(f) for f in files if isinstance(f, str)]


def python_functions(backend: AdapterHost, module: str | None,
                     function: str) -> list[tuple[str, int]] | None:
    """Where ``function`` (in ``module``, a dotted name or its last
    parts) starts in the program's sources; None: no folder to search."""
    places = function_places(backend, module, function)
    return None if places is None else [(p.file, p.line) for p in places]


def function_places(backend: AdapterHost, module: str | None,
                    function: str) -> list[CodePlace] | None:
    """The functions and methods of the program's sources ``function``
    names (dbgcore.lang.pyplaces): below the program's folder, or the run's
    folder when the program is a module (`dbg test` runs pytest's)."""
    from dbgcore.api import python_places

    root = program_root(backend.program) or backend.cwd or os.getcwd()
    if not root:
        return None
    return python_places([root], function, module)


#: The modules of debugpy and dbg in the program, not a library's code to stop in.
DEBUGGER_MODULES = ("_dbg", "debugpy", "pydevd", "_pydev", "_pydevd")


def functions_elsewhere(backend: AdapterHost, function: str,
                        timeout: float) -> list[CodePlace]:
    """The loaded functions named ``function`` outside the program's
    sources (a library's, the test runner's), read from the stopped program."""
    from dbgcore.api import loaded_functions_expression, outside_program

    if backend.state() != "stopped":
        return []
    try:
        answer = ast.literal_eval(backend.evaluate_with(
            loaded_functions_expression(function, DEBUGGER_MODULES), "repl", timeout).value)
    except (DbgError, ValueError, SyntaxError):
        return []
    root = program_root(backend.program) or backend.cwd or os.getcwd()
    return outside_program(answer, [root])


def function_line(backend: AdapterHost, module: str | None, function: str,
                  timeout: float) -> tuple[str, int] | None:
    """Where a function breakpoint goes as a line breakpoint (None: as a
    function breakpoint); OpFailed where it cannot be told apart."""
    # pydevd stops at a function's `def` line, and never in a generator;
    # gdb and pdb stop at its first statement. So a function found in the
    # program's sources gets a line breakpoint there.
    found = python_functions(backend, module, function)
    if found is None:
        return None
    if len(found) == 1:
        return found[0]
    if module or "." in function:
        # pydevd matches a function breakpoint against a code object's bare
        # name: sent as "mod.f" or "C.m" it would never stop.
        where = f" in module {module}" if module else ""
        if not found:
            bare = function.rsplit(".", 1)[-1]
            raise OpFailed(f"no function {function}{where} in the program's sources",
                           f"nothing was set; `dbg break {bare}` stops in any function "
                           f"named {bare} that runs")
        raise OpFailed(f"{function}{where} is in {len(found)} files: "
                       f"{', '.join(path for path, _ in found)}",
                       "nothing was set; give FILE:LINE")
    return None


def check_function(backend: AdapterHost, module: str | None, function: str,
                   timeout: float) -> None:
    """Refuse (OpFailed) a function breakpoint that would never stop."""
    # pydevd verifies any name and stops in whatever function of that name
    # runs. As on pdb, a bare name binds when it is in the program's
    # sources (function_line placed it) or names a function in scope where
    # the program is stopped (a library's); anything else is refused.
    if module or "." in function or python_functions(backend, None, function) != []:
        return  # function_line placed it, refused it, or found it twice
    in_scope = ""
    if function.isidentifier():
        try:
            frames = backend.stack_frames(timeout)
            if frames:
                frame = frames[min(backend.frame_index, len(frames) - 1)]
                in_scope = backend.evaluate_in(frame, f"type({function}).__name__", timeout)
        except DbgError:
            in_scope = ""  # running, or not defined there
    if in_scope.strip("'\"") in ("function", "method"):
        return
    raise OpFailed(f"no function {function} in the program's sources, nor in scope "
                   "where the program is stopped",
                   "nothing was set; a library's function: stop where it is in scope, "
                   "or give MODULE!FUNCTION of the program, or FILE:LINE")
