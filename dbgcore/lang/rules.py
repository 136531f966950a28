"""What dbg reads from source text itself, for rules that must mean the same
on every backend: which function a line belongs to (`until` refuses a line
behind the current one in the same function), and for Python, which lines
hold code and which functions are generators.

Python is read exactly, with :mod:`ast` and ``compile``; the brace languages
(C, C++, Go, Java, Rust, JavaScript) by counting braces outside comments and
strings, which is enough to find a function's body.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from pathlib import Path

from dbgcore.lang.sourcetext import SourceUnreadable, read_source, read_source_bytes

_BRACE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".go", ".java", ".rs",
                   ".js", ".mjs", ".cjs", ".ts", ".kt", ".scala", ".cs", ".swift")
_NOISE_RE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\'',
                       re.S)
_CONTROL_RE = re.compile(r"^(?:\}\s*)?(?:else\s+)?(?:if|for|while|switch|catch|synchronized"
                         r"|foreach|using|lock|match|select)\b")
_FUNC_WORD_RE = re.compile(r"\b(?:func|fn|function)\b")
_SIGNATURE_END_RE = re.compile(r"\)\s*(?:const\b|noexcept\b|override\b|final\b|mut\b|\s"
                               r"|throws\s+[\w.,\s<>]+|->\s*[^{;]+|:\s*[\w.<>\[\]?, ]+)*$")


def _read(path: str) -> str | None:
    # Bounded: a FIFO or /dev/zero given as a source must not hang or fill memory.
    try:
        return read_source(path)
    except SourceUnreadable:
        return None


def function_span(path: str, line: int) -> tuple[int, int] | None:
    """The first and last line of the innermost function holding ``line`` of
    ``path``; None outside any function or for a language dbg cannot read."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    spans = _function_spans(path, stamp)
    inner = [s for s in spans if s[0] <= line <= s[1]]
    return min(inner, key=lambda s: s[1] - s[0]) if inner else None


@functools.lru_cache(maxsize=64)
def _function_spans(path: str, stamp: int) -> tuple[tuple[int, int], ...]:
    text = _read(path)
    if text is None:
        return ()
    if path.endswith(".py"):
        return tuple(_python_spans(text, path))
    if path.endswith(_BRACE_SUFFIXES):
        return tuple(_brace_spans(text))
    return ()


def _python_spans(text: str, path: str) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError):
        return []
    return [(min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno or n.lineno)
            for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _brace_spans(text: str) -> list[tuple[int, int]]:
    """Function bodies of a brace language: blocks whose header (the text
    since the previous ``;``, ``{`` or ``}``) reads like a signature."""
    code = _NOISE_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    spans: list[tuple[int, int]] = []
    stack: list[tuple[int, bool]] = []  # (line where the block opens, is a function body)
    header: list[str] = []
    line = 1
    for char in code:
        if char == "\n":
            line += 1
            header.append(" ")
        elif char == "{":
            words = " ".join("".join(header).split())
            stack.append((line, _is_signature(words)))
            header = []
        elif char == "}":
            if stack:
                start, is_function = stack.pop()
                if is_function:
                    spans.append((_header_line(code, start), line))
            header = []
        elif char == ";":
            header = []
        else:
            header.append(char)
    return spans


def _header_line(code: str, brace_line: int) -> int:
    # A signature may sit on the line(s) above its "{": the span starts there.
    lines = code.splitlines()
    start = brace_line
    while start > 1 and lines[start - 1].strip().startswith("{") and lines[start - 2].strip():
        start -= 1
    return start


def _is_signature(header: str) -> bool:
    if not header or _CONTROL_RE.match(header):
        return False
    if _FUNC_WORD_RE.search(header):
        return True
    return "(" in header and bool(_SIGNATURE_END_RE.search(header))


# -- Python ---------------------------------------------------------------------------------


def python_code_lines(path: str) -> frozenset[int] | None:
    """The lines of a Python file that hold code (where a line event can
    happen); None when the file cannot be compiled."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    return _python_code_lines(path, stamp)


@functools.lru_cache(maxsize=64)
def _python_code_lines(path: str, stamp: int) -> frozenset[int] | None:
    text = _read(path)
    if text is None:
        return None
    try:
        code = compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    found: set[int] = set()
    todo = [code]
    while todo:
        current = todo.pop()
        found.update(line for _, _, line in current.co_lines() if line is not None)
        todo.extend(c for c in current.co_consts if hasattr(c, "co_lines"))
    # The module's first line is a "line" of the RESUME instruction only.
    return frozenset(found)


def next_python_code_line(path: str, line: int) -> int | None:
    """``line`` if it holds code, else the next line that does within the
    same function (None if there is none)."""
    lines = python_code_lines(path)
    if lines is None or line in lines:
        return line if lines is not None else None
    span = function_span(path, line)
    last = span[1] if span else max(lines, default=0)
    return next((n for n in sorted(lines) if line < n <= last), None)


def python_is_generator(path: str, line: int) -> bool:
    """Whether the innermost function holding ``line`` is a generator (it
    yields, not counting functions nested in it)."""
    text = _read(path)
    if text is None:
        return False
    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError):
        return False
    best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                node.lineno <= line <= (node.end_lineno or node.lineno) and \
                (best is None or node.lineno > best.lineno):
            best = node
    if best is None:
        return False
    todo: list[ast.AST] = list(best.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                          | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))
    return False


def python_function(path: str, qualname: str) -> tuple[int, bool] | None:
    """Where a breakpoint on the function ``qualname`` (``f``, ``Class.m``)
    of a Python file stops: the line of its first statement (after a
    docstring), and whether it is a generator; None if the file has no such
    function. Read from :func:`dbgcore.lang.pyplaces.file_functions`."""
    from dbgcore.lang.pyplaces import file_functions

    line = next((first for first, _, name in file_functions(path) if name == qualname), None)
    return None if line is None else (line, python_is_generator(path, line))


def python_program_problem(program: Path) -> str:
    """Why Python cannot run ``program`` as a program ("" if it can): a file
    that does not compile, a folder without __main__.py."""
    if program.is_dir():
        if not (program / "__main__.py").is_file():
            return f"{program} is a folder without __main__.py, not a Python program"
        return ""
    if program.suffix in (".pyc", ".pyz", ".zip"):
        return ""
    try:
        source = read_source_bytes(str(program))
    except SourceUnreadable as exc:
        if program.is_file():
            return ""  # too large to check here: Python itself will say what is wrong
        return str(exc)
    try:
        compile(source, str(program), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{program} is not a Python program: {exc.msg} at line {exc.lineno}"
    except ValueError as exc:  # null bytes: a binary file
        return f"{program} is not a Python program: {exc}"
    return ""


def no_code_message(path: str, line: int) -> str:
    """Why a breakpoint cannot go at ``path:line``: past the end of the file,
    or no code there (or after it, in its function)."""
    try:
        text: str | None = read_source(path)
    except SourceUnreadable as exc:
        if os.path.exists(path):
            return str(exc)  # a FIFO, a device, a file too large to be a source
        text = None
    count = len(text.splitlines()) if text is not None else 0
    if text is not None and line > count:
        return f"line {line} is past the end of {path} ({count} lines)"
    return f"no code at {path}:{line}"


def split_expressions(text: str) -> list[str]:
    """``a; b + 1`` -> ``["a", "b + 1"]``: a ``;`` outside quotes and brackets
    separates expressions (no expression of Python, C, Go or Java holds one
    there), so ``dbg print x + y`` stays one expression."""
    parts: list[str] = []
    depth, quote, start, i = 0, "", 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        elif c == ";" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_PY_OBJECT_RE = re.compile(r"^<[\w.<>]+ object at 0x[0-9a-fA-F]+>$")


def python_object_repr(value: str) -> bool:
    """``<cart.Cart object at 0x7f...>``: Python's default repr, which names
    an object without showing its attributes."""
    return bool(_PY_OBJECT_RE.match(value.strip()))


#: pytest's assertion rewriting keeps each part of an `assert` in a local of
#: its own (``@py_assert1``, ``@py_format12``): no name a person wrote, and no
#: name an expression can use.
_RUNNER_TEMPORARY_RE = re.compile(r"@py_(?:assert|format)\d+")


def runner_temporary(name: str) -> bool:
    """Whether a local is a test runner's temporary rather than the program's:
    left out of `locals`, stop snapshots and traces."""
    return _RUNNER_TEMPORARY_RE.fullmatch(name) is not None
