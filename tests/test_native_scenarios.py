"""gdb, lldb-dap and delve on real C, C++, Rust and Go programs, compiled here
with debug info: what a gdb, lldb or delve user does, through dbg."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg

NATIVE = ["gdb", "lldb"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every native target, built once for the module."""
    copy_target = builds.copy_target
    work = tmp_path_factory.mktemp("native")
    cart = copy_target("native/cart.c", work)
    shapes = copy_target("native/shapes.cpp", work)
    uncaught = copy_target("native/uncaught.cpp", work)
    gocart = copy_target("gocart/main.go", work)
    copy_target("gocart/go.mod", work)
    return {"cart": cart, "cart_bin": builds.build_c(cart.path),
            "shapes": shapes, "shapes_bin": builds.build_c(shapes.path),
            "uncaught": uncaught, "uncaught_bin": builds.build_c(uncaught.path),
            "gocart": gocart, "go_bin": builds.build_go(gocart.path.parent),
            "work": work}


def stdout_of(dbg: Dbg) -> str:
    return dbg.output("stdout").replace("\r\n", "\n")


def processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                    errors="replace")
            except OSError:
                continue
            if text in argv:
                found.append(f"{entry.name}: {argv}")
    return found


@pytest.fixture
def native(request: pytest.FixtureRequest, backend_ready: Callable[[str], None]) -> str:
    name: str = request.param
    backend_ready(name)
    return name


# -- C, on gdb and lldb -------------------------------------------------------------


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_a_condition_that_writes_runs_once_a_stop(dbg: Dbg, built: dict[str, Any],
                                                  native: str) -> None:
    # dbg evaluates a condition again after the stop (so as not to wait for a
    # message that it failed) only when it only reads: this one runs once,
    # the debugger's own evaluation, as it would without dbg.
    cart, binary = built["cart"], built["cart_bin"]
    assert dbg.json("start", "--backend", native, str(binary))["ok"]
    cond = dbg.json("break", cart.loc("loop"), "--if", "i++ >= 0")["breakpoint"]
    stop = dbg.json("continue")
    assert (stop["reason"], stop["hit_breakpoints"]) == ("breakpoint", [cond["id"]]), stop
    assert dbg.json("print", "i")["value"] == "1"
    # One that reads and holds: a plain stop at it, the next pass of the loop.
    assert dbg.json("unbreak", str(cond["id"]))["ok"]
    reads = dbg.json("break", cart.loc("loop"), "--if", "i >= 1 && c->count != 0")["breakpoint"]
    stop = dbg.json("continue")
    assert (stop["reason"], stop["hit_breakpoints"]) == ("breakpoint", [reads["id"]]), stop
    assert dbg.json("print", "i")["value"] == "2"


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_c_breakpoints_condition_steps_and_exit_code(dbg: Dbg, built: dict[str, Any],
                                                     native: str) -> None:
    cart, binary = built["cart"], built["cart_bin"]
    snap = dbg.json("start", "--backend", native, str(binary))
    assert (snap["reason"], snap["location"]["line"]) == ("entry", cart.lines["main-first"]), snap
    assert snap["location"]["function"] == "main"

    # Conditional: only the third item's pass through the loop.
    cond = dbg.json("break", cart.loc("loop"), "--if", "i == 2")["breakpoint"]
    stop = dbg.json("continue")
    assert stop["hit_breakpoints"] == [cond["id"]], stop
    assert dbg.json("print", "i")["value"] == "2"
    assert dbg.json("print", "c->items[i].price")["value"] == "7"
    fields = dbg.json("print", "c->items[1]")["value"]
    assert "bread" in fields and "2.25" in fields, fields
    assert dbg.json("unbreak", str(cond["id"]))["ok"]

    # By function, then step over / out / into.
    by_name = dbg.json("break", "apply_discount")["breakpoint"]
    stop = dbg.json("continue")
    assert stop["location"]["function"].startswith("apply_discount"), stop
    assert stop["location"]["line"] == cart.lines["discount"]
    assert dbg.json("next")["location"]["line"] == cart.lines["discount-return"]
    out = dbg.json("finish")
    assert out["location"]["function"] == "main", out
    assert out["location"]["line"] in (cart.lines["call-discount"], cart.lines["after-discount"])
    assert dbg.json("unbreak", str(by_name["id"]))["ok"]

    done = dbg.json("continue")
    assert (done["state"], done["exit_code"]) == ("exited", 0), done
    assert "total after discount: 17.32\n" in stdout_of(dbg)

    # Step into a call, after running the program again.
    assert dbg.json("restart")["ok"]
    dbg.json("until", cart.loc("call-discount"))
    into = dbg.json("step")
    assert into["location"]["function"].startswith("apply_discount"), into


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_program_streams_apart_from_the_debuggers_text(dbg: Dbg, target: Any,
                                                       native: str) -> None:
    # gdb sends its own text and the program's output down one pipe: the
    # program's stdout and stderr must hold only what it wrote, arguments
    # arrive whole (spaces, quotes, shell characters), and gdb's words are
    # filed as console text.
    streams = target("native/streams.c")
    binary = builds.build_c(streams.path)
    args = ["a b", "it's", "$HOME;>x", "*"]
    snap = dbg.json("start", "--backend", native, "--break", "streams.c:5", "--run",
                    str(binary), *args)
    assert snap["ok"] and snap["location"]["line"] == streams.lines["arg"], snap
    dbg("break", "no_such_file.c:3")  # pending or refused: words of the debugger's
    assert dbg.json("unbreak", "streams.c:5")["ok"]
    done = dbg.json("continue")
    assert (done["state"], done["exit_code"]) == ("exited", len(args) + 1), done
    assert stdout_of(dbg) == "".join(f"arg: {a}\n" for a in args)
    assert dbg.output("stderr") == "warned\n"
    assert not (dbg.cwd / "x").exists()
    console = dbg.output("console")
    assert "arg:" not in console and "warned" not in console, console


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_c_set_a_variable_and_the_program_uses_it(dbg: Dbg, built: dict[str, Any],
                                                  native: str) -> None:
    cart = built["cart"]
    dbg.json("start", "--backend", native, "--break", cart.loc("discount"), "--run",
             str(built["cart_bin"]))
    assert dbg.json("set", "percent", "50")["value"] == "50"
    assert dbg.json("print", "percent")["value"] == "50"
    assert dbg.json("continue")["exit_code"] == 0
    assert "total after discount: 9.62\n" in stdout_of(dbg)


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_c_watchpoint_disassembly_and_memory(dbg: Dbg, built: dict[str, Any],
                                             native: str) -> None:
    cart = built["cart"]
    dbg.json("start", "--backend", native, "--break", cart.loc("loop"), "--run",
             str(built["cart_bin"]))
    dbg.json("unbreak", "1")
    watched = dbg.json("watch", "total")["breakpoint"]
    assert watched["kind"] == "watch"
    stop = dbg.json("continue")
    assert stop["reason"] == "watchpoint", stop
    assert dbg.json("print", "total")["value"] == "3"
    assert dbg.json("breaks")["breakpoints"][0]["hits"] == 1
    assert dbg.json("unbreak", str(watched["id"]))["ok"]

    listing = dbg.json("disasm")
    rows = listing["instructions"]
    assert len(rows) >= 5 and all(r["address"].startswith("0x") for r in rows), listing
    assert any(r["address"] == listing["address"] for r in rows) or native == "gdb"

    memory = dbg("--json", "memory", "read", "total", "8")
    if native == "gdb":
        assert memory.code == 0, memory
        assert struct.unpack("<d", bytes.fromhex(memory.json["hex"]))[0] == 3.0
    else:
        # lldb-dap 19 has no readMemory; it would crash on the request.
        assert memory.code == 3 and "dbg raw memory read" in memory.json["error"]["hint"]
        assert dbg.json("print", "total")["value"] == "3"  # the session goes on


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_c_segfault_is_a_stop_then_the_end(dbg: Dbg, built: dict[str, Any], native: str) -> None:
    cart = built["cart"]
    dbg.json("start", "--backend", native, str(built["cart_bin"]), "crash")
    stop = dbg.json("continue")
    assert stop["state"] == "stopped" and stop["reason"] in ("exception", "signal"), stop
    assert stop["location"]["line"] == cart.lines["crash"], stop
    assert "SIGSEGV" in stop["description"] or "EXC_BAD_ACCESS" in stop["description"] \
        or "segmentation" in stop["description"].lower(), stop
    assert dbg.json("print", "nowhere")["value"] in ("0x0", "0x0000000000000000")


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_cpp_class_and_vector(dbg: Dbg, built: dict[str, Any], native: str) -> None:
    shapes = built["shapes"]
    dbg.json("start", "--backend", native, "--break", shapes.loc("area"), "--run",
             str(built["shapes_bin"]))
    frames = dbg.json("stack")["frames"]
    assert "area" in frames[0]["function"] and frames[1]["function"] == "main", frames
    assert dbg.json("print", "width_ * height_")["value"] == "4"
    this = dbg.json("print", "*this")["value"]
    assert "width_ = 2" in this and "height_ = 2" in this, this
    dbg.json("frame", "1")
    assert dbg.json("print", "shapes.size()")["value"] == "2"
    dbg.json("unbreak", "1")
    assert dbg.json("continue")["exit_code"] == 0
    assert "shapes: 2, total area: 11.50\n" in stdout_of(dbg)


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_cpp_uncaught_exception_stops_where_it_was_thrown(dbg: Dbg, built: dict[str, Any],
                                                          native: str) -> None:
    """std::terminate's abort is how it ends, but what the user wants is
    the exception and the program's line that threw it, as in Python."""
    target = built["uncaught"]
    stop = dbg.json("start", "--backend", native, "--run", str(built["uncaught_bin"]))
    assert stop["state"] == "stopped" and stop["reason"] == "exception", stop
    assert stop["location"]["line"] == target.lines["throws"], stop
    assert stop["location"]["function"].startswith("price"), stop
    assert stop["description"] == "std::out_of_range: map::at", stop
    assert dbg.json("print", "key")["value"].endswith('"plum"')  # libstdc++'s printers
    info = dbg.json("exception")
    assert (info["exception"], info["description"]) == ("std::out_of_range", "map::at"), info
    lines = info["stack"].splitlines()
    assert f'line {target.lines["call"]}, in main' in lines[0], lines
    assert f'line {target.lines["throws"]}, in price' in lines[1], lines
    assert not any("abort" in line or "pthread_kill" in line for line in lines), lines
    end = dbg.json("continue")
    assert end["state"] == "exited" and end["signal"] == "SIGABRT", end


@pytest.mark.parametrize("native", NATIVE, indirect=True)
def test_rust_program(dbg: Dbg, target: Any, native: str) -> None:
    cart = target("native/cart.rs")
    binary = builds.build_rust(cart.path)
    snap = dbg.json("start", "--backend", native, "--break", cart.loc("discount"), "--run",
                    str(binary))
    assert snap["ok"] and snap["location"]["line"] == cart.lines["discount"], snap
    names = {v["name"]: v["value"] for v in snap["locals"]}
    assert names.get("total") == "19.25" and names.get("percent") == "10", snap["locals"]
    assert dbg.json("continue")["exit_code"] == 0
    assert "total after discount: 17.32\n" in stdout_of(dbg)


def adapters_of(home: Path, adapter: str) -> list[int]:
    """Pids of `adapter` processes started by the session daemon of ``home``
    (found by the daemon's DBG_HOME)."""
    pids = []
    for line in processes_mentioning(adapter):
        pid = int(line.split(":", 1)[0])
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            parent = next(int(r.split()[1]) for r in status.splitlines() if r.startswith("PPid:"))
            environ = Path(f"/proc/{parent}/environ").read_bytes().split(b"\0")
        except (OSError, StopIteration):
            continue
        if f"DBG_HOME={home}".encode() in environ:
            pids.append(pid)
    return pids


def gone(pid: int) -> bool:
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


@pytest.mark.parametrize("native", [*NATIVE, "dlv"], indirect=True)
def test_no_debugger_or_program_is_left_after_kill(dbg: Dbg, built: dict[str, Any],
                                                   native: str) -> None:
    binary = built["go_bin"] if native == "dlv" else built["cart_bin"]
    adapter = {"gdb": "-i=dap", "lldb": "lldb-dap", "dlv": "dlv dap"}[native]
    dbg.json("start", "--backend", native, str(binary))
    programs = [int(p.split(":", 1)[0]) for p in processes_mentioning(str(binary))
                if "dlv" not in p and "gdb" not in p]
    adapters = adapters_of(dbg.home, adapter)
    assert programs and adapters, (programs, adapters)
    assert dbg.json("kill")["ok"]
    deadline = time.monotonic() + 5
    left = programs + adapters
    while left and time.monotonic() < deadline:
        left = [pid for pid in left if not gone(pid)]
        time.sleep(0.1)
    assert left == [], [processes_mentioning(str(pid)) for pid in left]
    assert dbg.json("sessions")["sessions"] == []


# -- Go, on delve -----------------------------------------------------------------------


@pytest.fixture
def dlv(backend_ready: Callable[[str], None]) -> Iterator[None]:
    backend_ready("dlv")
    yield


def test_go_source_runs_in_debug_mode_with_output_and_goroutines(
        dbg: Dbg, built: dict[str, Any], dlv: None) -> None:
    gocart = built["gocart"]
    # Chosen by extension: main.go is built by delve itself.
    snap = dbg.json("start", str(gocart.path), "exit3")
    assert snap["ok"], snap
    assert dbg.json("tool")["tool"] == "dlv"
    assert (snap["reason"], snap["location"]["function"]) == ("entry", "main.main")

    worker = dbg.json("break", gocart.loc("worker"))["breakpoint"]
    stop = dbg.json("continue")
    assert stop["hit_breakpoints"] == [worker["id"]], stop
    assert stop["location"]["function"] == "main.count"
    threads = dbg.json("threads")["threads"]
    assert len(threads) > 1, threads
    current = [t for t in threads if t["current"]]
    assert len(current) == 1 and "main.count" in current[0]["name"], threads
    dbg.json("unbreak", str(worker["id"]))

    done = dbg.json("continue")
    assert (done["state"], done["exit_code"]) == ("exited", 3), done
    text = stdout_of(dbg)
    assert "subtotal: 19.25\n" in text and "worker sum: 10\n" in text, text


def test_go_binary_condition_set_struct_and_panic(dbg: Dbg, built: dict[str, Any],
                                                  dlv: None) -> None:
    gocart, binary = built["gocart"], built["go_bin"]
    snap = dbg.json("start", str(binary))  # a Go binary: delve, in exec mode
    assert snap["ok"] and dbg.json("tool")["tool"] == "dlv", snap
    cond = dbg.json("break", gocart.loc("loop"), "--if", "item.Quantity == 2")["breakpoint"]
    stop = dbg.json("continue")
    assert stop["hit_breakpoints"] == [cond["id"]], stop
    assert dbg.json("print", "item.Name")["value"] == '"coffee"'
    assert dbg.json("print", "c.Items[1].Price")["value"] == "2.25"
    dbg.json("unbreak", str(cond["id"]))

    dbg.json("until", gocart.loc("discount"))
    assert dbg.json("set", "percent", "50")["value"] == "50"
    assert dbg.json("step")["location"]["line"] == gocart.lines["discount-return"]
    assert dbg.json("finish")["location"]["function"] == "main.main"
    assert dbg.json("continue")["exit_code"] == 0
    assert "total after discount: 9.62\n" in stdout_of(dbg)

    # What delve cannot do over DAP is refused, naming it and `dbg raw`.
    assert dbg.json("restart")["ok"]
    for args in (["watch", "total"], ["memory", "read", "0x1000", "8"]):
        refused = dbg("--json", *args)
        assert refused.code == 3, refused
        assert "by dlv" in refused.json["error"]["message"]
    listing = dbg.json("disasm")
    assert listing["instructions"], listing

    dbg("kill")
    dbg.json("start", str(binary), "panic")
    stop = dbg.json("continue")
    assert stop["reason"] == "exception", stop
    assert stop["description"].startswith("panic: runtime error: index out of range"), stop
    frames = [f["function"] for f in dbg.json("stack")["frames"]]
    assert "main.main" in frames, frames
