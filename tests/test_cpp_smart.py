"""C++ on gdb and lldb-dap as an IDE shows it: a smart pointer as what it
points to, a path through ``this``, a watch whose local leaves its block,
and the entry stop of a main whose objects have destructors
(tests/targets/native/smart.cpp)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg

NATIVE = pytest.mark.parametrize("native", ["gdb", "lldb"])


@NATIVE
def test_smart_pointers_show_what_they_point_to(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    smart = target("native/smart.cpp")
    binary = builds.build_c(smart.path)
    dbg.json("start", "--backend", native, "--break", smart.loc("smart"), "--run", str(binary))

    # print: the pointee's fields, whatever the pointer's kind; null says so.
    for name, fields in (("owned", '{owner = "ada", balance = 42}'),
                         ("shared", '{owner = "bob", balance = 7}'),
                         ("weak", '{owner = "bob", balance = 7}')):
        shown = dbg.json("print", name)
        assert shown["value"] == fields, shown
        assert "_ptr<" in shown["type"], shown
    assert dbg.json("print", "empty")["value"] == "nullptr"
    assert dbg.json("print", "none")["value"] == "nullptr"

    # locals: a struct behind the pointer, a null one as nullptr.
    rows = {v["name"]: v["value"] for v in dbg.json("locals")["variables"]}
    assert rows["owned"] == "{...}" and rows["empty"] == "nullptr", rows

    # vars: the pointee's fields, and paths through the pointer.
    listed = {v["name"]: v["value"] for v in dbg.json("vars", "owned")["variables"]}
    assert listed["balance"] == "42" and '"ada"' in listed["owner"], listed
    assert dbg.json("vars", "shared.balance")["variables"][0]["value"] == "7"
    refused = dbg("vars", "empty.balance")
    assert refused.code == 1 and "empty is nullptr" in refused.err, refused
    assert "Traceback" not in refused.err
    assert dbg.json("print", "1 + 1")["value"] == "2"  # the session goes on


@NATIVE
def test_a_path_goes_through_this(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    smart = target("native/smart.cpp")
    binary = builds.build_c(smart.path)
    dbg.json("start", "--backend", native, "--break", smart.loc("record"), "--run", str(binary))
    log = dbg.json("vars", "this.audit_log")["variables"]
    assert [v["value"] for v in log] == ["3", "4", "42"], log
    first = dbg.json("vars", "this.audit_log[0]")["variables"]
    assert [(v["name"], v["value"]) for v in first] == [("[0]", "3")], first


@NATIVE
def test_entry_stops_on_mains_first_line(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    # g++ files the code building `names`' initializer strings under main's
    # closing brace, first after the prologue: the debuggers' start of main.
    backend_ready(native)
    smart = target("native/smart.cpp")
    binary = builds.build_c(smart.path)
    stop = dbg.json("start", "--backend", native, str(binary))
    assert stop["reason"] == "entry", stop
    assert stop["location"]["line"] == smart.lines["main-first"], stop
    assert stop["location"]["function"].startswith("main"), stop
    names = {v["name"] for v in dbg.json("locals")["variables"]}
    assert {"names", "owned", "ledger", "total"} <= names, names
    # The program runs on from there as usual.
    assert dbg.json("break", smart.loc("smart"))["ok"]
    assert dbg.json("continue")["location"]["line"] == smart.lines["smart"]


@NATIVE
def test_a_watched_local_leaving_scope_says_so(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    smart = target("native/smart.cpp")
    binary = builds.build_c(smart.path)
    dbg.json("start", "--backend", native, "--break", smart.loc("settle"), "--run", str(binary))
    watch = dbg.json("watch", "fee")["breakpoint"]
    reasons = []
    for _ in range(6):
        stop = dbg.json("continue")
        reasons.append(stop["reason"])
        if stop["reason"] != "watchpoint":
            break
    # Three changes of fee in settle, then settle returns.
    assert reasons == ["watchpoint"] * 3 + ["watch_scope"], reasons
    assert "fee" in stop["description"] and "left scope" in stop["description"], stop
    assert "settle" in stop["description"], stop
    # Shown in the program's own frame, past settle (lldb notices it where
    # another call writes that stack memory: inside std::vector, or peek).
    assert stop["location"]["file"] == str(smart.path), stop
    assert not stop["location"]["function"].startswith("settle"), stop
    listed = [b["id"] for b in dbg.json("breaks")["breakpoints"]]
    assert watch["id"] not in listed, listed
    assert dbg.json("continue")["exit_code"] == 0


@NATIVE
def test_smart_pointers_inside_values_show_what_they_point_to(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    smart = target("native/smart.cpp")
    binary = builds.build_c(smart.path)
    dbg.json("start", "--backend", native, "--break", smart.loc("smart"), "--run", str(binary))
    # A struct's smart pointer fields, and a vector's smart pointer elements.
    assert dbg.json("print", "holder")["value"] == "{account = {...}, spare = nullptr}"
    assert dbg.json("print", "pool")["value"].endswith(" {{...}}")
    account = {v["name"]: v["value"] for v in dbg.json("vars", "holder.account")["variables"]}
    assert account["balance"] == "3", account
    element = {v["name"]: v["value"] for v in dbg.json("vars", "pool[0]")["variables"]}
    assert element["balance"] == "4", element


@NATIVE
def test_a_reference_to_a_smart_pointer_shows_what_it_points_to(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    smart = target("native/smart.cpp")
    binary = builds.build_c(smart.path)
    stop = dbg.json("start", "--backend", native, "--break", smart.loc("peek"), "--run",
                    str(binary))
    shown = dbg.json("print", "account")
    assert shown["value"] == '{owner = "ada", balance = 42}', shown
    fields = {v["name"]: v["value"] for v in dbg.json("vars", "account")["variables"]}
    assert fields["balance"] == "42", fields
    # The stop's locals list the pointee's fields under it.
    under = {f["name"]: f["value"] for v in stop.get("locals") or [] if v["name"] == "account"
             for f in v.get("fields") or []}
    assert under.get("balance") == "42", stop
