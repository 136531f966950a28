"""What dbg reads about frames without a debugger: which files are a Python
library's, a function's parameters from its source (Python, Go), lldb's
`frame variable` text, jdb's `locals`, and how `dbg stack` shows a stack
with hidden runs."""

from __future__ import annotations

from pathlib import Path

from dbg_dap.frames import go_package, go_parameters, lldb_arguments, native_library
from dbg_jdb.parse import java_library, method_arguments

from dbgcore.lang.pyframes import PythonLibraries, python_parameters
from dbgcore.ops.inspecting import shown_frames
from dbgcore.ops.table import render
from dbgcore.vocab.model import Frame


def test_python_libraries_are_site_packages_and_the_standard_library(tmp_path: Path) -> None:
    stdlib = "/usr/lib/python3.11"
    libraries = PythonLibraries([stdlib], str(tmp_path))
    assert libraries.library_of(f"{tmp_path}/.venv/lib/python3.11/site-packages/_pytest/"
                                "runner.py") == "_pytest"
    assert libraries.library_of("/usr/lib/python3/dist-packages/six.py") == "six"
    assert libraries.library_of(f"{stdlib}/unittest/case.py") == "unittest"
    assert libraries.library_of(f"{stdlib}/runpy.py") == "runpy"
    assert libraries.library_of("<frozen importlib._bootstrap>") == "importlib"
    assert libraries.library_of(f"{tmp_path}/app.py") is None
    assert libraries.library_of("<string>") is None
    # A program that lives in the standard library's folder is the program.
    assert PythonLibraries([stdlib], f"{stdlib}/json").library_of(f"{stdlib}/json/tool.py") is None
    assert PythonLibraries.stdlib_from("'[\"/usr/lib/python3.11\"]'") == [stdlib]
    assert PythonLibraries.stdlib_from("NameError: x") == []


def test_python_parameters_come_in_the_order_the_def_gives(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f(a, /, b, *rest, c=1, **kw):\n    return a\n\n"
                      "class K:\n    @staticmethod\n    def g(x):\n"
                      "        return (lambda y: y)(x)\n")
    assert python_parameters(str(source), 2, "f") == ["a", "b", "rest", "c", "kw"]
    assert python_parameters(str(source), 7, "g") == ["x"]
    assert python_parameters(str(source), 7, "<lambda>") == ["y"]
    assert python_parameters(str(source), 4, "K") == []
    assert python_parameters(str(source), 1, "<module>") == []
    assert python_parameters(str(source), 2, "nothing_here") is None


def test_go_parameters_and_packages(tmp_path: Path) -> None:
    source = tmp_path / "main.go"
    source.write_text("package main\n\nfunc (l *Ledger) Add(x, y int, rest ...string) (n int) {\n"
                      "\treturn 1\n}\n\nfunc fee(amount int) int {\n\tf := func(a int, _ string)"
                      " {\n\t\tprintln(a)\n\t}\n\treturn amount\n}\n\nfunc h(int, string) {}\n")
    assert go_parameters(str(source), 4) == ["l", "x", "y", "rest"]
    assert go_parameters(str(source), 11) == ["amount"]
    assert go_parameters(str(source), 9) == ["a"]
    assert go_parameters(str(source), 14) == []
    assert (go_package("testing.tRunner"), go_package("github.com/a/b.(*T).M")) == (
        "testing", "github.com/a/b")


def test_lldb_arguments_join_a_structs_lines() -> None:
    text = "(int) amount = 1000\n(point) p = {\n  inner = {\n    a = 1\n  }\n  y = 2\n}\n"
    rows = [(v.name, v.value, v.type) for v in lldb_arguments(text)]
    assert rows == [("amount", "1000", "int"), ("p", "{inner = {a = 1}, y = 2}", "point")]


def test_native_library_frames_are_those_without_the_programs_sources() -> None:
    libc = {"name": "__libc_start_call_main", "moduleId": "/lib/x86_64-linux-gnu/libc.so.6",
            "source": {"path": "sysdeps/nptl/libc_start_call_main.h"}}
    assert native_library(libc, "/p") == "libc.so.6"
    assert native_library({"name": "qsort"}, "/p") == ""
    assert native_library({"name": "f", "source": {"path": "/p/ledger.c"}}, "/p") is None
    assert native_library({"name": "g", "source": {"path": "/usr/include/x.h"}}, "/p") == ""


def test_jdb_readers() -> None:
    assert java_library("java.lang.Thread.run") == "java.lang"
    assert java_library("jdk.internal.reflect.NativeMethodAccessorImpl.invoke0") == \
        "jdk.internal.reflect"
    assert java_library("Ledger.fee") is None
    assert method_arguments("Method arguments:\namount = 1000\nLocal variables:\nc = 1\n") == [
        ("amount", "1000")]
    assert method_arguments("Current method is native") is None


def test_stack_text_counts_each_hidden_run_in_its_place() -> None:
    frames = [Frame(0, "helper", "/p/t.py", 2, True), Frame(1, "test_total", "/p/t.py", 7),
              *(Frame(i, "call", "/v/site-packages/pluggy/x.py", 9, library=True,
                      library_name="pluggy" if i % 2 else "_pytest") for i in range(2, 6)),
              Frame(6, "main", "/p/t.py", 20)]
    frames[0].args = []
    shown, hidden = shown_frames(frames)
    assert [f.index for f in shown] == [0, 1, 6]
    assert hidden == [{"first": 2, "last": 5, "count": 4, "of": ["_pytest", "pluggy"]}]
    text = render("stack", {"frames": [f.to_dict() for f in shown], "hidden": hidden,
                            "hidden_frames": 4})
    assert text.splitlines() == [
        "> #0  helper() at /p/t.py:2",
        "  #1  test_total at /p/t.py:7",
        "   ... 4 frames of _pytest, pluggy (dbg stack --all shows them)",
        "  #6  main at /p/t.py:20",
    ]


def test_an_async_boundary_is_a_line_of_its_own_and_its_first_caller_stays() -> None:
    frames = [Frame(0, "load", "/p/a.js", 3, True),
              Frame(1, "tick", "node:internal/q", 9, internal=True, library=True,
                    library_name="node"),
              # The first caller past the boundary, a library's: shown all the same.
              Frame(2, "retry", "/p/node_modules/r/i.js", 5, library=True, library_name="r",
                    asynchronous=True, async_boundary="await"),
              Frame(3, "main", "/p/a.js", 12, asynchronous=True)]
    shown, hidden = shown_frames(frames)
    assert [f.index for f in shown] == [0, 2, 3]
    assert frames[0].to_dict().keys().isdisjoint({"asynchronous", "async_boundary"})
    assert frames[3].to_dict()["asynchronous"] is True
    text = render("stack", {"frames": [f.to_dict() for f in shown], "hidden": hidden,
                            "hidden_frames": 1})
    assert text.splitlines() == [
        "> #0  load at /p/a.js:3",
        "   ... 1 frame of node (dbg stack --all shows them)",
        "   -- await --",
        "  #2  retry at /p/node_modules/r/i.js:5  [library r]",
        "  #3  main at /p/a.js:12",
    ]
