"""What a stop snapshot shows of the locals, made for reading.

The locals the current line uses come first, then those whose value changed
since the previous stop in the same frame (marked), then the rest, within a
budget of characters; a struct or an object whose value does not show its
contents is expanded one level when the budget allows (the backend says which
do not, through :meth:`dbgcore.backends.contract.Backend.fields`). What is left out is
counted, and a value cut short says its full length.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dbgcore.vocab.model import FieldList, Variable

#: Characters of locals a snapshot shows (names, values and types).
BUDGET = 420
#: At most this many locals, and each value cut at this length.
MAX_LOCALS = 12
VALUE_CHARS = 100
#: Fields shown of an expanded value.
MAX_FIELDS = 6

_WORD_RE = re.compile(r"[A-Za-z_$][\w$]*")
def arrange(variables: list[Variable], line_text: str, previous: dict[str, str] | None,
            fields_of: Callable[[Variable], list[Variable] | None] | None = None,
            ) -> tuple[list[Variable], int]:
    """The locals a snapshot shows, in order, and how many it left out.

    ``previous``: the values at the previous stop in this frame (None: the
    first stop in it, where nothing is marked changed). ``fields_of`` asks the
    backend for the fields of a value that does not show them (None for a
    value that shows its contents, or when it cannot tell)."""
    used = {word: i for i, word in enumerate(_WORD_RE.findall(line_text))}
    marked = []
    for v in variables:
        changed = previous is not None and previous.get(v.name) != v.value
        marked.append(Variable(v.name, v.value, v.type, changed=changed, scope=v.scope))

    def rank(item: tuple[int, Variable]) -> tuple[int, int]:
        index, v = item
        if v.name in used:
            return 0, used[v.name]
        return (1 if v.changed else 2), index

    ordered = [v for _, v in sorted(enumerate(marked), key=rank)]
    kept: list[Variable] = []
    size = 0
    for v in ordered:
        _cut(v)
        cost = _cost(v)
        if len(kept) >= MAX_LOCALS or (kept and size + cost > BUDGET and v.name not in used):
            continue
        kept.append(v)
        size += cost
    for v in kept:
        if fields_of is None or size >= BUDGET:
            continue
        try:
            found = fields_of(v)
        except Exception:  # a snapshot is never refused for an expansion
            found = None
        if not found:
            continue
        v.fields = []
        for f in found[:MAX_FIELDS]:
            one = Variable(f.name, f.value, f.type, cut=f.cut)
            _cut(one, VALUE_CHARS // 2)
            if size + _cost(one) > BUDGET and v.fields:
                break
            v.fields.append(one)
            size += _cost(one)
        total = found.total if isinstance(found, FieldList) else len(found)
        v.fields_more = max(total, len(found)) - len(v.fields)
    return kept, len(variables) - len(kept)


def _cut(v: Variable, limit: int = VALUE_CHARS) -> None:
    if len(v.value) > limit:
        v.cut = max(v.cut or 0, len(v.value))  # the debugger may have cut it first
        v.value = v.value[: limit - 3] + "..."


def _cost(v: Variable) -> int:
    return len(v.name) + len(v.value) + len(v.type or "") + 6
