"""The Backend base class: every canonical op a backend leaves alone raises
UnsupportedOp naming the tool and `dbg raw`; capabilities follow overrides."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from dbgcore.backends.contract import AttachRequest, Backend, BackendSpec, SessionContext
from dbgcore.backends.pluginhost import PluginHost
from dbgcore.ops.table import BACKEND_OPS, BUILTIN
from dbgcore.shared.errors import EXIT_UNSUPPORTED, DbgError, UnsupportedOp
from dbgcore.transport.outputbuffer import OutputBuffer
from dbgcore.transport.translog import TransLog
from dbgcore.vocab.model import BreakLoc, BreakOptions, Breakpoint
from dbgcore.vocab.traces import Discard

#: The ops a backend answers by overriding a Backend method, as the op table
#: declares them.
CANONICAL_OPS = {op.name: op for op in BACKEND_OPS}


class Bare(Backend):
    id = "bare"
    tool = "baretool"


class OnlyWatch(Backend):
    id = "only-watch"
    tool = "watcher"
    unsupported_hints: ClassVar[dict[str, str]] = {"step": "watcher cannot step; try `until`"}

    def watch(self, expression: str) -> Breakpoint:
        return Breakpoint(id=1, kind="watch", requested=expression)


#: A value for every parameter name a canonical op method takes. A new op with
#: a parameter not listed here fails the test until someone adds it.
ARGS: dict[str, Any] = {
    "loc": BreakLoc(file="app.py", line=3),
    "options": BreakOptions(),
    "bp_id": 1,
    "expression": "x",
    "filters": ["raised"],
    "timeout": 1.0,
    "levels": None,
    "index": 0,
    "lhs": "x",
    "value": "1",
    "thread_id": 1,
    "text": "info",
    "request": AttachRequest(pid=1),
    "functions": ["main"],
    "lines": False,
    "max_calls": 10,
    "sink": Discard(),
    "with_locals": False,
    "stop": False,
}


def make(cls: type[Backend], tmp_path: Path) -> Backend:
    spec = BackendSpec(name=cls.id, plugin=cls.id, command=["true"])
    # The op table's words for each op, as a session hands them over.
    ctx = SessionContext(name="t", run_dir=tmp_path, output=OutputBuffer(),
                         log=TransLog(tmp_path / "trans.log"),
                         op_titles={op.name: op.title for op in BUILTIN})
    return cls(spec, ctx)


def call_op(backend: Backend, op: str) -> Any:
    method = getattr(backend, CANONICAL_OPS[op].method.__name__)
    params = inspect.signature(method).parameters
    missing = [p for p in params if p not in ARGS]
    assert not missing, f"no test value for {op}'s parameters {missing}; add them to ARGS"
    return method(**{p: ARGS[p] for p in params})


@pytest.mark.parametrize("op", sorted(CANONICAL_OPS))
def test_every_op_left_alone_is_unsupported_and_names_tool_and_raw(
        op: str, tmp_path: Path) -> None:
    backend = make(Bare, tmp_path)
    with pytest.raises(UnsupportedOp) as info:
        call_op(backend, op)
    err = info.value
    assert err.tool == "baretool"
    assert err.op == CANONICAL_OPS[op].title
    assert "baretool" in err.message
    assert "dbg raw" in err.message
    assert err.hint, "an unsupported op always says what to do instead"
    assert (err.kind, err.exit_code) == ("unsupported", EXIT_UNSUPPORTED)
    # It crosses the daemon socket as a value and comes back the same.
    back = DbgError.from_wire(err.to_wire())
    assert isinstance(back, UnsupportedOp)
    assert (back.op, back.tool, back.message, back.hint) == (err.op, err.tool, err.message,
                                                             err.hint)


def test_capabilities_of_a_backend_that_overrides_nothing() -> None:
    assert Bare.capabilities(BUILTIN) == {op: "none" for op in CANONICAL_OPS}


def test_overriding_an_op_marks_it_native(tmp_path: Path) -> None:
    caps = OnlyWatch.capabilities(BUILTIN)
    assert caps["watch"] == "native"
    assert {op for op, how in caps.items() if how != "none"} == {"watch"}
    backend = make(OnlyWatch, tmp_path)
    assert call_op(backend, "watch").requested == "x"
    # The backend's own hint is part of the message.
    with pytest.raises(UnsupportedOp, match=r"watcher cannot step; try `until`"):
        call_op(backend, "step")


def test_default_check_looks_the_command_up_on_path() -> None:
    assert Bare.check(BackendSpec("b", "bare", command=[])).ready is False
    missing = Bare.check(BackendSpec("b", "bare", command=["dbgtest-not-installed-4c1e"]))
    assert (missing.ready, missing.detail) == (False, "dbgtest-not-installed-4c1e not found")
    found = Bare.check(BackendSpec("b", "bare", command=[sys.executable, "-c", "pass"]))
    assert found.ready is True
    assert Path(found.detail).name == Path(sys.executable).name


def test_registered_backends_hint_only_canonical_ops() -> None:
    classes = PluginHost(load_entry_points=False).backend_classes()
    assert classes, "no built-in backends registered"
    for cls in classes.values():
        caps = cls.capabilities(BUILTIN)
        assert set(caps) == set(CANONICAL_OPS)
        assert set(caps.values()) <= {"native", "fallback", "none"}
        unknown = set(cls.unsupported_hints) - set(CANONICAL_OPS)
        assert not unknown, f"{cls.__name__} has hints for unknown ops {unknown}"
