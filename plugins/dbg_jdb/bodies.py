"""Which class's body holds a line of a Java or Kotlin source file, as jdb
names the class for `stop at CLASS:LINE` (nested ones as Outer$Inner)."""

from __future__ import annotations

import re


def blanked(text: str, noise: re.Pattern[str]) -> str:
    """``text`` with what cannot hold code (comments, strings) blanked out,
    keeping its newlines so that lines still count."""
    return noise.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def enclosing_class(code: str, line: int, declaration: re.Pattern[str],
                    body_on_its_line: bool = False) -> str:
    """The class whose body holds ``line`` of ``code`` ("" for none): the
    braces are counted, and a declaration's body is the first brace after
    it. With ``body_on_its_line`` (Kotlin), a declaration with no brace by
    the end of its line, outside its constructor's parentheses and not
    continued (``:``), has no body (``data class Item(val name: String)``)."""
    stack: list[tuple[str, int]] = []  # (class name, depth of its body)
    depth, parens, pending = 0, 0, None
    for number, row in enumerate(code.splitlines(), 1):
        declared = {m.start(): m.group(1) for m in declaration.finditer(row)}
        for at, char in enumerate(row):
            if at in declared:
                pending = declared[at]
            if char == "(":
                parens += 1
            elif char == ")":
                parens = max(parens - 1, 0)
            elif char == "{":
                depth += 1
                if pending is not None:
                    outer = stack[-1][0] + "$" if stack else ""
                    stack.append((outer + pending, depth))
                    pending = None
            elif char == "}":
                if stack and stack[-1][1] == depth:
                    stack.pop()
                depth -= 1
        if body_on_its_line and parens == 0 and not row.rstrip().endswith(":"):
            pending = None
        if number == line:
            return stack[-1][0] if stack else ""
    return ""
