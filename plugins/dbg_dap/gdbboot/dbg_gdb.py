"""Loaded into gdb by dbg (``gdb -i=dap -x THIS``), after gdb's DAP server has
started. It mends the server's report of nested function calls, keeps only
the children of a value it was asked for (:class:`_SparseChildren`), lists a
bounded number of a container's (LISTED_CHILDREN), and adds
the command ``dbg-abandon-call``; gdb's messages come without colour escapes.

gdb's DAP server (gdb 14-18) reports a function call made by an evaluate as
``continued`` and, when it returns, ``stopped`` with reason "function call".
It keeps one flag for "was the program running before this call", which a
nested call overwrites: ``ht_get(t, "the")`` first calls ``malloc`` in the
program to hold the string, inside the call of ``ht_get``. The outer call's
end then goes unreported, and the server believes the program runs: every
later request fails with "notStopped". Our handler runs after the server's
for each call event, counts the nesting, and at the end of the outermost
call does what the server failed to: marks the program stopped and says so.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import os
from typing import Any

import gdb  # type: ignore[import-untyped,import-not-found,unused-ignore]

try:
    from gdb.dap import events as _dap  # type: ignore[import-untyped,import-not-found,unused-ignore]
except ImportError:  # not under gdb's DAP interpreter
    _dap = None

#: How deep in nested calls the program is, and whether it ran before the outermost.
_depth = 0
_ran_before = True


def _on_inferior_call(event: Any) -> None:
    global _depth, _ran_before
    if isinstance(event, gdb.InferiorCallPreEvent):
        if _depth == 0:
            # The server's handler ran first and noted it for this call.
            _ran_before = bool(getattr(_dap, "_infcall_was_running", True))
        _depth += 1
        return
    _depth = max(0, _depth - 1)
    if _depth or _ran_before or not getattr(_dap, "inferior_running", False):
        return  # the end was reported (or a stop inside the call was)
    _dap.inferior_running = False
    _dap._expected_pause = False
    _dap.send_event("stopped", {"threadId": gdb.selected_thread().global_num,
                                "allThreadsStopped": True, "reason": "function call"})


class AbandonCall(gdb.Command):  # type: ignore[misc,unused-ignore]
    """dbg-abandon-call: after a function called by an expression stopped
    inside (a breakpoint, a signal), pop its frames and the call's dummy
    frame, so the program is where it was before the call. Prints
    "abandoned" if there was such a call."""

    def __init__(self) -> None:
        super().__init__("dbg-abandon-call", gdb.COMMAND_STACK)

    def invoke(self, argument: str, from_tty: bool) -> None:
        frame = gdb.newest_frame()
        while frame is not None and frame.type() != gdb.DUMMY_FRAME:
            frame = frame.older()
        if frame is None:
            return
        frame.select()
        confirm = gdb.parameter("confirm")
        gdb.execute("set confirm off")
        try:
            # `return` in the dummy frame restores the registers the call saved.
            gdb.execute("return", to_string=True)
        finally:
            gdb.execute(f"set confirm {'on' if confirm else 'off'}")
        _forget_ids()
        print("abandoned")


def _forget_ids() -> None:
    """The DAP server's frame, scope and variable ids describe the stack
    before `return`: drop them, as the server does when the program runs
    (on gdb.events.cont, which `return` does not fire)."""
    for module, name in (("frames", "_clear_frame_ids"), ("scopes", "clear_scopes"),
                         ("varref", "clear_vars"), ("globalvars", "clear")):
        try:
            clear = getattr(importlib.import_module(f"gdb.dap.{module}"), name)
        except (ImportError, AttributeError):
            continue
        clear(None)


def _reads(method: Any, *names: str) -> bool:
    """Whether gdb's DAP server's ``method`` reads each of ``names`` (the
    internals a replacement below relies on): a server that does otherwise
    is left as it is, not patched into an AttributeError."""
    # Under gdb's in_gdb_thread wrapper (functools.wraps: __wrapped__).
    code = getattr(inspect.unwrap(method), "__code__", None) if method else None
    return code is not None and set(names) <= set(code.co_names)


class _SparseChildren:
    """The children a variable reference of gdb's DAP server has built, by
    index: only those asked for. The server keeps them in a list as long as
    the value has children (gdb 18.1's does), made at the first `variables`
    request for a page of any size: 80 MB for a 10,000,000-element array,
    again for each reference to it (each `print`) until the program runs."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._built: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> Any:
        return self._built.get(index)

    def __setitem__(self, index: int, child: Any) -> None:
        self._built[index] = child


def _page_children_sparsely() -> None:
    """Make gdb's DAP server keep the children of a reference in a
    :class:`_SparseChildren`, set before its own fetch_children would make
    the list (where that method reads ``self._children`` and sizes it by
    ``child_count()``, as gdb 18.1's does)."""
    try:
        from gdb.dap.varref import BaseReference  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return
    fetch = getattr(BaseReference, "fetch_children", None)
    if fetch is None or not _reads(fetch, "_children", "child_count"):
        return

    def fetch_children(self: Any, start: int, count: int) -> Any:
        if getattr(self, "_children", ...) is None:
            self._children = _SparseChildren(self.child_count() or 0)
        return fetch(self, start, count)

    BaseReference.fetch_children = fetch_children


#: The children of a value whose pretty printer can only list them all
#: (libstdc++'s: no child(i)) that gdb's DAP server lists at most. It listed
#: all of them to count them, for each local shown: a stop in a frame holding
#: a 10,000,000-element std::vector took gdb to 4 GB and no answer.
LISTED_CHILDREN = 10000
#: The key dbg adds to such a value's DAP answer when it has more children
#: than were listed (its count is then only the first LISTED_CHILDREN).
MORE_KEY = "dbgMoreChildren"


def _list_children_up_to_a_bound() -> None:
    """Make gdb's DAP server list at most LISTED_CHILDREN children of a value
    whose printer has no child(i), and say in its answer when there were more
    (where the server keeps them in ``_child_cache``, listed from
    ``_printer.children()``, as gdb 18.1's does)."""
    try:
        from gdb.dap.varref import VariableReference  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return
    listing = getattr(VariableReference, "cache_children", None)
    answer = getattr(VariableReference, "to_object", None)
    if answer is None or not _reads(listing, "_child_cache", "_printer", "children"):
        return

    def cache_children(self: Any) -> Any:
        if self._child_cache is None:
            children = iter(self._printer.children())
            self._child_cache = list(itertools.islice(children, LISTED_CHILDREN))
            self._dbg_more = next(children, None) is not None
        return self._child_cache

    def to_object(self: Any) -> Any:
        try:
            result = answer(self)
        except gdb.error as error:
            # A row gdb cannot read (an object not built yet, at a
            # function's first line: a pointer of stack garbage) says so, and
            # the variables request answers the others (gdb's own fails the
            # whole request). An evaluate's own result stays its error.
            if getattr(self, "_result_name", "value") != "value":
                raise
            return {"name": str(getattr(self, "_name", "?")), "value": f"<unreadable: {error}>",
                    "variablesReference": 0}
        if getattr(self, "_dbg_more", False) and self._child_cache is not None:
            result[MORE_KEY] = True
        return result

    VariableReference.cache_children = cache_children
    VariableReference.to_object = to_object


#: Where the system keeps the scripts gdb loads with a library: libstdc++'s
#: pretty printers (a std::string shown as "plum", a map as its entries). A
#: gdb with a data directory of its own (gdb-for-pwndbg's) looks only there.
SYSTEM_AUTO_LOAD = "/usr/share/gdb/auto-load"

gdb.execute("set style enabled off")
if os.path.isdir(SYSTEM_AUTO_LOAD):
    gdb.execute(f"add-auto-load-scripts-directory {SYSTEM_AUTO_LOAD}")
    gdb.execute(f"add-auto-load-safe-path {SYSTEM_AUTO_LOAD}")
AbandonCall()
_page_children_sparsely()
_list_children_up_to_a_bound()
if _dap is not None and all(hasattr(_dap, name) for name in (
        "inferior_running", "_infcall_was_running", "_expected_pause", "send_event")):
    gdb.events.inferior_call.connect(_on_inferior_call)
