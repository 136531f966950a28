"""What the native profiles read about a frame that their adapters do not
say: whether it is a library's (C's libc, Go's standard packages and module
cache), what a Go function's parameters are called (delve lists them among
the locals), and lldb's answer to ``frame variable --no-locals``.
"""

from __future__ import annotations

import os
import re

from dbgcore.api import Message, Variable, function_span

#: The scopes of a frame's own variables, by their hint or name (others:
#: registers, globals): what a stop snapshot shows.
LOCAL_SCOPE_HINTS = ("locals", "arguments", "parameters")

#: Folders of the system's own code: libc's sources and headers, installed
#: libraries, a toolchain's headers.
SYSTEM_FOLDERS = ("/usr/", "/lib/", "/lib64/", "/opt/")

#: One variable of lldb's `frame variable`: "(TYPE) NAME = VALUE".
_LLDB_VARIABLE_RE = re.compile(r"^\((.+?)\) ([A-Za-z_$][\w$]*) = ?(.*)$")


def native_library(frame: Message, program_root: str | None) -> str | None:
    """The shared object a C/C++/Rust frame belongs to when it is not the
    program's own code ("" when the adapter does not name it), or None:
    frames without source of their own, or with system sources (libc built
    elsewhere shows relative paths such as ``csu/libc-start.c``)."""
    path = str((frame.get("source") or {}).get("path") or "")
    if path and os.path.isabs(path):
        if program_root and path.startswith(program_root.rstrip(os.sep) + os.sep):
            return None
        if not path.startswith(SYSTEM_FOLDERS):
            return None
    module = str(frame.get("moduleId") or "")
    return os.path.basename(module) if module else ""


def lldb_arguments(answer: str) -> list[Variable]:
    """The variables of lldb's `frame variable` text; a struct's lines
    (its fields, one a line, up to the closing brace) joined into one."""
    out: list[Variable] = []
    for line in answer.splitlines():
        head = _LLDB_VARIABLE_RE.match(line)
        piece = line.strip()
        if head:
            out.append(Variable(head.group(2), head.group(3).strip(), head.group(1)))
        elif out and piece:
            value = out[-1].value
            glue = "" if value.endswith("{") or piece.startswith("}") else ", "
            out[-1].value = value + glue + piece
    return out


def go_package(function: str) -> str:
    """A Go function's package path: ``testing`` for ``testing.tRunner``,
    ``github.com/a/b`` for ``github.com/a/b.(*T).M``."""
    slash = function.rfind("/")
    return function[:slash + 1] + function[slash + 1:].split(".", 1)[0]


def go_goroot(frames: list[Message]) -> str | None:
    """Go's source tree, from a runtime frame's file (.../src/runtime/proc.go)."""
    for frame in frames:
        path = str((frame.get("source") or {}).get("path") or "")
        if str(frame.get("name", "")).startswith("runtime.") and "/src/runtime/" in path:
            return path[:path.index("/src/runtime/") + len("/src/")]
    return None


def go_library(frame: Message, goroot: str | None) -> str | None:
    """The package of a frame of Go's standard library (below ``goroot``) or
    of a module from the module cache; None for the program's own code."""
    path = str((frame.get("source") or {}).get("path") or "")
    function = str(frame.get("name", ""))
    if (goroot and path.startswith(goroot)) or "/pkg/mod/" in path:
        return go_package(function)
    return None


def go_parameters(path: str | None, line: int | None) -> list[str] | None:
    """The receiver's and parameters' names of the Go function (or function
    literal) whose body holds ``line``, from its `func` line; unnamed ones
    (and ``_``) left out. None when the source does not say."""
    if not path or not line or not path.endswith(".go"):
        return None
    span = function_span(path, line)
    if span is None:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            lines = source.read().splitlines()
    except OSError:
        return None
    text = " ".join(lines[span[0] - 1:span[1]])
    start = re.search(r"\bfunc\b\s*", text)
    if start is None:
        return None
    rest = text[start.end():]
    groups: list[str] = []
    if rest.startswith("("):  # a method's receiver, or a function literal's parameters
        first = _paren_group(rest)
        if first is None:
            return None
        groups.append(first)
        rest = rest[len(first) + 2:].lstrip()
    name = re.match(r"[A-Za-z_]\w*\s*(\[[^\]]*\]\s*)?", rest)
    if name and rest[name.end():].startswith("("):
        params = _paren_group(rest[name.end():])
        if params is None:
            return None
        groups.append(params)
    names: list[str] = []
    for group in groups:
        names += _go_names(group)
    return names


def _paren_group(text: str) -> str | None:
    """The text inside the parenthesis ``text`` starts with."""
    if not text.startswith("("):
        return None
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return text[1:i]
    return None


def _go_names(params: str) -> list[str]:
    """Names in a Go parameter list (``a, b int, c ...string``); a list of
    bare types (``int, string``) names nothing."""
    parts, depth, current = [], 0, ""
    for char in params:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    # Go names either every parameter or none: with names, each part holding
    # a type is "NAME TYPE"; a part without a space is a name sharing the next type.
    if not any(re.match(r"[A-Za-z_]\w*\s+\S", p) for p in parts):
        return []
    return [p.split()[0] for p in parts if p.split() and p.split()[0] != "_"]
