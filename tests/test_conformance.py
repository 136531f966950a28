"""One conformance suite for every backend: each canonical op either works or
fails with error kind `unsupported` (exit 3), naming the tool and `dbg raw`.
What a backend declares (`capabilities()`) must match what it does.

To add a backend, add a row to CASES: a program from tests/targets (or one
of its own) with the same shape as cart.py — a function called from another,
stopped at a line with locals, a later line in the caller for `until`.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import builds
import pytest

from dbgcore.ops.table import BACKEND_OPS

if TYPE_CHECKING:
    from conftest import Dbg, Result, Target


@dataclass(frozen=True)
class Case:
    backend: str
    #: The program (in tests/targets) and any files it needs beside it.
    program: str
    files: tuple[str, ...] = ()
    #: Every op starts stopped at this marker, inside `function`...
    stop: str = "discount"
    function: str = "apply_discount"
    #: ...called from `caller` at this marker.
    caller: str = "main"
    call: str = "call-discount"
    #: Where step/next land from `stop`, and where finish may (the return
    #: line, or back in the caller: debuggers differ).
    step_to: str = "discount-return"
    finish_to: tuple[str, ...] = ("discount-return", "call-discount", "after-discount")
    #: A later line in the caller, for `until`.
    until: str = "after-discount"
    #: Locals at `stop`, an expression with its value, a variable to set.
    local_names: tuple[str, ...] = ("total", "percent")
    expression: tuple[str, str] = ("total * 2", "38.5")
    assign: tuple[str, str, str] = ("percent", "50", "10")  # name, new value, old value
    #: A native command for `dbg raw` and text its answer holds.
    raw: tuple[str, ...] = ("p", "6*7")
    raw_answer: str = "42"
    catch_filters: tuple[str, ...] = ()
    #: What `watch` watches (default: the variable `assign` sets).
    watch: str = ""
    #: How the program is built before it runs: "c" or "go" (tests/builds.py).
    build: str | None = None
    #: A process to attach to ("{binary}" is the built program); default: a
    #: sleeping Python.
    attach_argv: tuple[str, ...] = ()
    #: jdb attaches to the JVM of this Java target's classes ("{classes}";
    #: default: the program's own).
    attach_java: str = ""
    #: The case's name, where a backend has more than one (a language each).
    name: str = ""

    @property
    def id(self) -> str:
        return self.name or self.backend


_JVM_ATTACH = ("java", "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,"
               "address=127.0.0.1:0", "-cp", "{classes}", "Cart", "sleep")
_GO = dict(function="main.apply_discount", caller="main.main", files=("gocart/go.mod",),
           build="go", raw=("6*7",), attach_argv=("{binary}", "sleep"))
CASES = [
    Case("pdb", "cart.py"),
    Case("debugpy", "cart.py", raw=("6*7",), catch_filters=("uncaught",)),
    Case("gdb", "native/cart.c", build="c", raw=("print", "6*7"), catch_filters=("throw",)),
    Case("lldb", "native/cart.c", build="c", raw=("expr", "6*7"),
         catch_filters=("cpp_throw",)),
    Case("dlv", "gocart/main.go", **_GO),  # type: ignore[arg-type]
    # rdbg names methods Class#name; its evaluate runs Ruby (dbg raw too).
    Case("rdbg", "ruby/cart.rb", function="Object#apply_discount", caller="Object#main",
         raw=("6*7",), catch_filters=("NoMethodError",)),
    # phpdbg's names keep PHP's sigil; its raw `ev` runs PHP.
    Case("phpdbg", "php/cart.php", local_names=("$total", "$percent"),
         expression=("$total * 2", "38.5"), assign=("$percent", "50", "10"),
         raw=("ev", "6*7"), watch="$percent"),
    # jdb compiles Cart.java itself; attaching is by port, to a JVM that listens.
    Case("jdb", "java/Cart.java", function="Cart.apply_discount", caller="Cart.main",
         raw=("print", "6*7"), catch_filters=("java.lang.IllegalStateException",),
         watch="added",  # jdb watches fields, not locals
         attach_argv=_JVM_ATTACH),
    # The languages that run on those debuggers: Kotlin (dbg builds cart.kt
    # with kotlinc), D and Nim (dbg builds them for gdb and lldb).
    Case("jdb", "kotlin/cart.kt", name="jdb-kotlin", function="CartKt.apply_discount",
         caller="CartKt.main", raw=("print", "6*7"),
         catch_filters=("java.lang.IllegalStateException",), watch="added",
         attach_argv=_JVM_ATTACH, attach_java="java/Cart.java"),
    Case("gdb", "native/cart.d", name="gdb-d", raw=("print", "6*7"), catch_filters=("throw",),
         function="cart.apply_discount", caller="D main"),
    Case("lldb", "native/cart.d", name="lldb-d", raw=("expr", "6*7"),
         catch_filters=("cpp_throw",), function="cart.apply_discount", caller="D main"),
    Case("gdb", "native/cart.nim", name="gdb-nim", raw=("print", "6*7"),
         catch_filters=("throw",), caller="NimMainModule",
         expression=("total * 2.0", "38.5")),
    Case("lldb", "native/cart.nim", name="lldb-nim", raw=("expr", "6*7"),
         catch_filters=("cpp_throw",), caller="NimMainModule",
         expression=("total * 2.0", "38.5")),
    # dbg builds cart.ml with ocamlc -g; ocamldebug prints names, not operators.
    Case("ocamldebug", "ocaml/cart.ml", function="Cart.apply_discount", caller="Cart.main",
         expression=("total", "19.25"), raw=("print", "percent"), raw_answer="10."),
    # ghci interprets haskell/cart.hs; its stack is the stop and the steps
    # :history traced (the caller that demanded the value among them).
    Case("ghci", "haskell/cart.hs", function="Main.applyDiscount", caller="Main.main",
         raw=("6*7",), catch_filters=("uncaught",)),
]


@pytest.fixture(scope="module", params=CASES, ids=[c.id for c in CASES])
def case(request: pytest.FixtureRequest, backend_ready: Callable[[str], None]) -> Case:
    chosen: Case = request.param
    backend_ready(chosen.backend)
    return chosen


@dataclass
class Conf:
    dbg: Dbg
    case: Case
    target: Target
    tool: str
    declared: dict[str, str]
    binary: Path
    #: The Java source whose classes jdb attaches to.
    java: Path

    def line(self, mark: str) -> int:
        return self.target.lines[mark]

    def loc(self, mark: str) -> str:
        return self.target.loc(mark)


@pytest.fixture(scope="module")
def conf(case: Case, module_dbg: Dbg, module_target: Any) -> Iterator[Conf]:
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.backends.registry import BackendRegistry
    from dbgcore.ops.table import full_table

    host = PluginHost()
    spec, cls = BackendRegistry(host).loaded(case.backend)
    ops = full_table(host)
    for extra in case.files:
        module_target(extra)
    attach_java = module_target(case.attach_java).path if case.attach_java else None
    target = module_target(case.program)
    binary = target.path
    if case.build == "c":
        binary = builds.build_c(target.path)
    elif case.build == "go":
        binary = builds.build_go(target.path.parent)
    snap = module_dbg.json("start", "--backend", case.backend, "--break", target.loc(case.stop),
                           "--run", str(binary))
    assert snap["ok"] and snap["location"]["line"] == target.lines[case.stop], snap
    tool = module_dbg.json("tool")["tool"]
    # What `dbg caps` says, asked of the installed debugger: it must match.
    yield Conf(module_dbg, case, target, tool, dict(cls.support(spec, ops)), binary,
               attach_java or target.path)
    module_dbg("kill")


@pytest.fixture
def at_stop(conf: Conf) -> Conf:
    """The session stopped at the case's `stop` marker, in frame 0."""
    status = conf.dbg.json("status")
    here = status.get("location") or {}
    if status.get("state") != "stopped" or here.get("line") != conf.line(conf.case.stop):
        assert conf.dbg.json("restart")["ok"]
        snap = conf.dbg.json("continue")
        assert snap["ok"] and snap["location"]["line"] == conf.line(conf.case.stop), snap
    return conf


# -- one driver per canonical op: run it, and check the answer when it works ------


def stopped_at(data: dict[str, Any], c: Conf, *marks: str) -> None:
    assert data["state"] == "stopped", data
    assert data["location"]["line"] in [c.line(m) for m in marks], (marks, data)


def op_break(c: Conf) -> Result:
    result = c.dbg("--json", "break", c.loc(c.case.until))
    if result.code == 0:
        bp = result.json["breakpoint"]
        assert (bp["line"], bp["verified"]) == (c.line(c.case.until), True), bp
        by_name = c.dbg.json("break", c.case.function)
        assert by_name["ok"], by_name
        for made in (bp, by_name["breakpoint"]):
            assert c.dbg.json("unbreak", str(made["id"]))["ok"]
    return result


def op_unbreak(c: Conf) -> Result:
    made = c.dbg.json("break", c.loc(c.case.until))
    result = c.dbg("--json", "unbreak", str(made["breakpoint"]["id"]) if made["ok"] else "1")
    if result.code == 0:
        assert [b["id"] for b in result.json["removed"]] == [made["breakpoint"]["id"]]
        left = [b["line"] for b in c.dbg.json("breaks")["breakpoints"]]
        assert left == [c.line(c.case.stop)], left
    return result


def op_breaks(c: Conf) -> Result:
    result = c.dbg("--json", "breaks")
    if result.code == 0:
        listed = result.json["breakpoints"]
        assert [(b["line"], b["hits"] >= 1) for b in listed] == [(c.line(c.case.stop), True)]
    return result


def op_watch(c: Conf) -> Result:
    result = c.dbg("--json", "watch", c.case.watch or c.case.assign[0])
    if result.code == 0:
        assert c.dbg.json("unbreak", str(result.json["breakpoint"]["id"]))["ok"]
    return result


def op_catch(c: Conf) -> Result:
    result = c.dbg("--json", "catch", *c.case.catch_filters)
    if result.code == 0:
        assert isinstance(result.json["filters"], list)
        assert c.dbg.json("catch")["ok"]
    return result


def op_continue(c: Conf) -> Result:
    result = c.dbg("--json", "continue")
    if result.code == 0:
        assert (result.json["state"], result.json["exit_code"]) == ("exited", 0), result
    return result


def op_trace(c: Conf) -> Result:
    # From inside the function: that call was entered before the trace, the
    # run goes on to the end.
    result = c.dbg("--json", "trace", c.case.function)
    if result.code == 0:
        assert (result.json["state"], result.json["exit_code"]) == ("exited", 0), result
        assert result.json["trace"]["functions"] == [c.case.function], result
    return result


def op_step(c: Conf) -> Result:
    result = c.dbg("--json", "step")
    if result.code == 0:
        stopped_at(result.json, c, c.case.step_to)
    return result


def op_next(c: Conf) -> Result:
    result = c.dbg("--json", "next")
    if result.code == 0:
        stopped_at(result.json, c, c.case.step_to)
        assert result.json["location"]["function"] == c.case.function
    return result


def op_finish(c: Conf) -> Result:
    result = c.dbg("--json", "finish")
    if result.code == 0:
        stopped_at(result.json, c, *c.case.finish_to)
    return result


def op_until(c: Conf) -> Result:
    result = c.dbg("--json", "until", c.loc(c.case.until))
    if result.code == 0:
        stopped_at(result.json, c, c.case.until)
        assert result.json["location"]["function"] == c.case.caller
    return result


def op_record(c: Conf) -> Result:
    result = c.dbg("--json", "record")
    if result.code == 0:
        assert result.json["recording"] is True, result
        # What it is for: a line ahead, and back to the stop it began at.
        assert c.dbg.json("next")["ok"]
        stopped_at(c.dbg.json("next", "--back"), c, c.case.stop)
        c.dbg("record", "--stop")  # (ocamldebug's record cannot be ended)
    return result


def op_pause(c: Conf) -> Result:
    result = c.dbg("--json", "pause")
    if result.code == 0:
        stopped_at(result.json, c, c.case.stop)
    return result


def op_stack(c: Conf) -> Result:
    result = c.dbg("--json", "stack")
    if result.code == 0:
        frames = result.json["frames"]
        assert [f["function"] for f in frames[:2]] == [c.case.function, c.case.caller], frames
        assert frames[1]["line"] == c.line(c.case.call)
    return result


def op_frame(c: Conf) -> Result:
    result = c.dbg("--json", "frame", "1")
    if result.code == 0:
        assert result.json["frame"]["function"] == c.case.caller, result
        assert c.dbg.json("frame", "0")["frame"]["function"] == c.case.function
    return result


def op_locals(c: Conf) -> Result:
    result = c.dbg("--json", "locals")
    if result.code == 0:
        names = [v["name"] for v in result.json["variables"]]
        assert set(c.case.local_names) <= set(names), names
    return result


def op_print(c: Conf) -> Result:
    expression, value = c.case.expression
    result = c.dbg("--json", "print", expression)
    if result.code == 0:
        assert result.json["value"] == value, result
    return result


def op_set(c: Conf) -> Result:
    name, new, old = c.case.assign
    result = c.dbg("--json", "set", name, new)
    if result.code == 0:
        assert result.json["value"] == new, result
        assert c.dbg.json("print", name)["value"] == new
        assert c.dbg.json("set", name, old)["value"] == old
    return result


def op_stacks(c: Conf) -> Result:
    before = c.dbg("--json", "stack").json["frames"][0]["function"]
    result = c.dbg("--json", "stacks")
    if result.code == 0:
        threads = result.json["threads"]
        # Some thread's stack holds the stop's function, as `dbg stack` names
        # it (py-spy's names a method Class.name); and `dbg stack` answers
        # the same after (the walk selected its thread and frame again).
        top = c.dbg("--json", "stack").json["frames"][0]["function"]
        functions = [str(f["function"]) for t in threads for f in t["frames"]]
        assert any(top in (f, f.split(".")[-1]) for f in functions), (top, threads)
        assert top == before, (before, top)
    return result


def op_threads(c: Conf) -> Result:
    result = c.dbg("--json", "threads")
    if result.code == 0:
        threads = result.json["threads"]
        assert threads and [t["current"] for t in threads].count(True) == 1, threads
    return result


def op_thread(c: Conf) -> Result:
    listed = c.dbg.json("threads")
    current = next((t["id"] for t in listed.get("threads", []) if t["current"]), 1)
    result = c.dbg("--json", "thread", str(current))
    if result.code == 0:
        assert str(result.json["thread"]["id"]) == str(current)
    return result


def op_raw(c: Conf) -> Result:
    result = c.dbg("--json", "raw", *c.case.raw)
    if result.code == 0:
        assert c.case.raw_answer in result.json["output"], result
    return result


def op_attach(c: Conf) -> Result:
    classes = builds.build_java(c.java) if c.case.backend == "jdb" else c.binary
    argv = [a.replace("{binary}", str(c.binary)).replace("{classes}", str(classes))
            for a in c.case.attach_argv] or [sys.executable, "-c", "import time; time.sleep(30)"]
    sleeper = subprocess.Popen(argv, stdout=subprocess.PIPE)
    try:
        if c.case.backend == "jdb":
            # "Listening for transport dt_socket at address: PORT"
            assert sleeper.stdout is not None
            where = ["--port", sleeper.stdout.readline().decode().split()[-1]]
        else:
            where = ["--pid", str(sleeper.pid)]
        result = c.dbg("--json", "-s", "conformance-attach", "attach", "--backend",
                       c.case.backend, *where)
        if result.code == 0:
            assert result.json["state"] in ("stopped", "running"), result
            assert c.dbg.json("-s", "conformance-attach", "kill")["ok"]
        return result
    finally:
        sleeper.kill()
        sleeper.wait()


#: The ops a backend answers by overriding a Backend method, as the op table
#: declares them.
CANONICAL_OPS = [op.name for op in BACKEND_OPS]

DRIVERS: dict[str, Callable[[Conf], Result]] = {
    name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}


def test_every_canonical_op_has_a_driver() -> None:
    assert set(DRIVERS) == set(CANONICAL_OPS)


@pytest.mark.parametrize("op", list(CANONICAL_OPS))
def test_op_works_or_is_unsupported(at_stop: Conf, op: str) -> None:
    c = at_stop
    result = DRIVERS[op](c)
    declared = c.declared.get(op, "none")
    if result.code == 0:
        assert result.json["ok"] is True, result
        assert declared != "none", f"{op} works but {c.case.backend} declares it unsupported"
        return
    data = result.json
    assert data["ok"] is False and data["error"]["kind"] == "unsupported", data
    assert result.code == 3, result
    message = data["error"]["message"]
    assert f"by {c.tool}" in message and "dbg raw" in message, message
    assert data["error"]["hint"], data
    assert declared == "none", (
        f"{op} is declared {declared} by {c.case.backend} but answered unsupported")
