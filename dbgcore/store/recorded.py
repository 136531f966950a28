"""Expressions over recorded values: `dbg calls --where` and `dbg history`
read values the store kept as the debugger's text, long after the program
that had them ended, so no debugger can evaluate them any more.

An expression here is a small, safe subset of Python's: names (a call's
argument names, ``ret``, ``exc``, ``fn``, ``depth``; a stop's locals),
literals, comparisons (chained too), ``and``/``or``/``not``, arithmetic,
``in``, ``len(...)``, and indexing. A recorded value is read as the literal
it looks like (``3``, ``-1.5``, ``'abc'``, ``"abc"``, ``[1, 2]``, ``None``,
``true``/``false``/``nil``/``null``, ``0x1f``), else kept as text; so
``value < 0`` compares numbers whether the program was Python, C, Go or Java.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from typing import Any

from dbgcore.shared.bounds import MAX_EXPRESSION, MAX_NESTING, shortened
from dbgcore.shared.errors import UsageError

_HINT = ("a Python-like expression over recorded values: names, literals, comparisons, "
         "and/or/not, + - * / %, in, len(x), x[i]; e.g. \"n > 3 and ret != 0\"")

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_WORDS: dict[str, object] = {"true": True, "false": False, "nil": None, "null": None,
                             "NULL": None, "None": None, "True": True, "False": False}


class Unknown(Exception):
    """A name the record does not have (the expression does not apply to it)."""


def read_value(text: object) -> object:
    """A recorded value as the literal it looks like, else its text."""
    if not isinstance(text, str):
        return text
    stripped = text.strip()
    if stripped in _WORDS:
        return _WORDS[stripped]
    try:
        value = ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    else:
        if _plain(value):  # not a debugger's `{...}` (a set of Ellipsis)
            return value
    # A C char (65 'A') or a value the debugger follows with its type: the first word.
    head = stripped.split(" ", 1)[0]
    if head != stripped:
        try:
            value = ast.literal_eval(head)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text
        return value if isinstance(value, (int, float)) else text
    return text


def _plain(value: object) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return isinstance(value, (int, float, str, bytes, bool, type(None)))


def _too_deep(what: str, shown: str) -> UsageError:
    return UsageError(f"{what} {shown!r} nests deeper than the {MAX_NESTING} levels an "
                      "expression over recorded values may have", _HINT)


def _depth(node: ast.AST) -> int:
    """How deep ``node``'s tree goes (walked without recursion: it may be
    deeper than Python's recursion limit)."""
    deepest = 0
    pending = [(node, 1)]
    while pending:
        sub, depth = pending.pop()
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(sub))
    return deepest


class RecordedExpression:
    """An expression checked once (bad syntax, or a construct outside the
    subset, is a UsageError) and evaluated against records."""

    def __init__(self, text: str, what: str = "expression") -> None:
        self.text = text
        shown = shortened(text, 30)
        if len(text) > MAX_EXPRESSION:
            raise UsageError(f"{what} {shown!r} is longer than the {MAX_EXPRESSION:,} "
                             "characters an expression over recorded values may have", _HINT)
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise UsageError(f"{what} {shown!r} does not parse: {exc.msg}", _HINT) from None
        except (RecursionError, MemoryError):
            # Python's parser gives up on deep nesting (`not not ... x`, a
            # long `x+x+...`) with these, not a SyntaxError.
            raise _too_deep(what, shown) from None
        if _depth(tree.body) > MAX_NESTING:
            # The evaluator recurses once a level: refused here, not
            # answered as an expression no record fits.
            raise _too_deep(what, shown)
        self._check(tree.body, f"{what} {shown!r}")
        self.tree = tree.body
        #: The names it reads.
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - {"len"}

    def _check(self, node: ast.AST, what: str) -> None:
        """``what``: the expression as an error names it."""
        allowed = (ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd,
                   ast.BinOp, ast.Compare, ast.Name, ast.Load, ast.Constant, ast.Tuple,
                   ast.List, ast.Subscript, ast.Call, *_BINARY, *_COMPARE)
        for sub in ast.walk(node):
            if not isinstance(sub, allowed):
                raise UsageError(f"{what}: {type(sub).__name__.lower()} is not "
                                 "allowed over recorded values", _HINT)
            if isinstance(sub, ast.Call) and not (
                    isinstance(sub.func, ast.Name) and sub.func.id == "len"
                    and len(sub.args) == 1 and not sub.keywords):
                raise UsageError(f"{what}: only len(x) may be called", _HINT)

    def evaluate(self, names: Mapping[str, object]) -> object:
        """The value over ``names`` (recorded texts, read as literals);
        Unknown when a name is missing; any other failure (a type mismatch)
        is Unknown too: the record does not answer the question."""
        try:
            return self._eval(self.tree, names)
        except Unknown:
            raise
        except Exception as exc:
            raise Unknown(str(exc)) from None

    def _eval(self, node: ast.AST, names: Mapping[str, object]) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise Unknown(node.id)
            return read_value(names[node.id])
        if isinstance(node, (ast.Tuple, ast.List)):
            return [self._eval(e, names) for e in node.elts]
        if isinstance(node, ast.BoolOp):
            values = (self._eval(v, names) for v in node.values)
            if isinstance(node.op, ast.And):
                return all(values)
            return any(values)
        if isinstance(node, ast.UnaryOp):
            operand: Any = self._eval(node.operand, names)
            if isinstance(node.op, ast.Not):
                return not operand
            return -operand if isinstance(node.op, ast.USub) else +operand
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](self._eval(node.left, names),
                                          self._eval(node.right, names))
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, names)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self._eval(right_node, names)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.Subscript):
            container: Any = self._eval(node.value, names)
            return container[self._eval(node.slice, names)]
        if isinstance(node, ast.Call):
            sized: Any = self._eval(node.args[0], names)
            return len(sized)
        raise Unknown(type(node).__name__)
