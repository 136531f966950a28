"""Which breakpoint conditions dbg may evaluate again after a stop (to learn
at once that the debugger could evaluate them): only those that read."""

from __future__ import annotations

import pytest
from dbg_dap.events import _reads_only


@pytest.mark.parametrize("condition", [
    "i == 2", "i >= 1 && c->count != 0", "p != 0", "x <= -1 || y > 3", "a[i].price < 7.5",
    "!done", "item.Quantity == 2", "s->next->next == 0", "a - -b > 0",
])
def test_a_condition_that_reads(condition: str) -> None:
    assert _reads_only(condition)


@pytest.mark.parametrize("condition", [
    "i++ >= 0", "--i", "x = 3", "x += 1", "x <<= 1", "x >>= 1", "x |= 1", "x ^= 1",
    "strcmp(name, \"bread\") == 0", "$count++ > 2", "$_streq(name, \"a\")", "(int)x > 3",
    "c == '='",
])
def test_a_condition_that_may_write(condition: str) -> None:
    assert not _reads_only(condition)
