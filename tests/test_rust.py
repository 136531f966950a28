"""A Rust program on gdb and lldb-dap as Rust's own tools show it: a panic
is a stop at the line that panicked, with its message, and the standard
types read through the toolchain's pretty printers (tests/targets/native/stock.rs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import builds
import pytest

from dbgcore.testing import require

if TYPE_CHECKING:
    from conftest import Dbg

pytestmark = pytest.mark.parametrize("native", ["gdb", "lldb"])


@pytest.fixture
def stock(target: Any) -> Any:
    program = target("native/stock.rs")
    program.binary = builds.build_rust(program.path)
    return program


def test_a_panic_stops_at_the_programs_line_with_its_message(
        dbg: Dbg, stock: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    snap = dbg.json("start", "--backend", native, "--run", str(stock.binary))
    assert (snap["state"], snap["reason"]) == ("stopped", "exception"), snap
    assert snap["location"]["line"] == stock.lines["panic"], snap
    # Named as rustc's backtrace names it (lldb's names carry the symbol's hash).
    assert snap["location"]["function"] == "stock::take", snap
    assert snap["description"] == (f"panicked at {stock.path}:{stock.lines['panic']}:9: "
                                   "not enough kiwi: have 1, want 5"), snap
    assert {v["name"]: v["value"] for v in snap["locals"]}["wanted"] == "5", snap

    thrown = dbg.json("exception")
    assert thrown["exception"] == "panic" and "not enough kiwi" in thrown["description"], thrown
    # Down to the line that panicked: std's machinery above it, and its
    # start-up below main, are left out.
    assert thrown["stack"].splitlines() == [
        f'  File "{stock.path}", line {stock.lines["second"]}, in stock::main',
        f'  File "{stock.path}", line {stock.lines["panic"]}, in stock::take'], thrown

    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 101), end


def test_no_catch_lets_the_panic_end_the_program(
        dbg: Dbg, stock: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    end = dbg.json("start", "--backend", native, "--no-catch", "--run", str(stock.binary))
    assert (end["state"], end["exit_code"]) == ("exited", 101), end


def test_strings_vectors_maps_and_options_read_as_their_contents(
        dbg: Dbg, stock: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    import dbg_dap.rust as rust

    files = rust.GDB_PRINTERS if native == "gdb" else rust.LLDB_PRINTERS
    require(rust.printer_files(*files) is not None,
            f"rustc's toolchain has no pretty printers for {native} (lib/rustlib/etc/{files[0]})")
    snap = dbg.json("start", "--backend", native, "--break", stock.loc("have"), "--run",
                    str(stock.binary))
    assert snap["location"]["line"] == stock.lines["have"], snap
    assert dbg.json("print", "name")["value"] == '"kiwi"'
    # A Vec and a HashMap: their sizes, not their buffers' fields.
    assert "size=2" in dbg.json("print", "stock.names")["value"]
    assert "size=1" in dbg.json("print", "stock.counts")["value"]
    # Through the `&mut Stock` to its fields, as Rust's `.` goes.
    names = dbg.json("vars", "stock.names")["variables"]
    assert [v["value"] for v in names] == ['"kiwi"', '"fig"'], names
    # gdb lists a key and a value apart, lldb a pair.
    counts = [v["value"] for v in dbg.json("vars", "stock.counts")["variables"]]
    assert counts in (['"kiwi"', "3"], ['("kiwi", 3)']), counts
    dbg.json("up")
    assert dbg.json("print", "label")["value"] == '"kiwi"'
