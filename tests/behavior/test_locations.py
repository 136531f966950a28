"""Locations as people write them (docs/semantics.md, "Locations"): a file
name, a path suffix, a path relative to where dbg runs; two candidates are
an error that lists them; code not loaded yet is a pending breakpoint that
binds when it loads. dbg runs from a folder that is not the program's."""

from __future__ import annotations

import os

from twins import Program


def test_a_bare_file_name_from_another_folder_binds_in_the_program(prog: Program) -> None:
    snap = prog.start(breaks=(prog.at("loop"),), run=True)
    assert snap["ok"], snap
    prog.stopped_at(snap, "loop")
    (bp,) = snap["breakpoints"]
    assert (bp["id"], bp["verified"]) == (1, True), bp
    assert os.path.realpath(bp["file"]) == prog.file(), bp
    assert bp["requested"] == prog.at("loop"), bp


def test_a_path_suffix_picks_one_of_two_files_with_the_same_name(prog: Program) -> None:
    assert prog.start()["ok"]
    made = prog.dbg.json("break", prog.at("fmt", "fmt"))
    assert made["ok"], made
    assert os.path.realpath(made["breakpoint"]["file"]) == prog.file("fmt"), made
    prog.stopped_at(prog.dbg.json("continue"), "fmt", "fmt")


def test_a_name_two_files_share_is_an_error_that_lists_both(prog: Program) -> None:
    assert prog.start()["ok"]
    name = os.path.basename(prog.twin.fmt)
    result = prog.dbg("--json", "break", f"{name}:{prog.line('fmt', 'fmt')}")
    data = result.json
    assert (result.code, data["error"]["kind"]) == (1, "failed"), data
    message = data["error"]["message"]
    assert prog.file("fmt") in message and prog.file("report") in message, message
    assert prog.dbg.json("breaks")["breakpoints"] == []


def test_a_path_relative_to_the_current_folder(prog: Program) -> None:
    assert prog.start()["ok"]
    here = prog.root.parent
    relative = os.path.relpath(prog.root / prog.twin.fmt, here)
    made = prog.dbg.json("break", f"{relative}:{prog.line('fmt', 'fmt')}", cwd=here)
    assert made["ok"], made
    assert os.path.realpath(made["breakpoint"]["file"]) == prog.file("fmt")


def test_code_loaded_later_binds_when_it_loads(prog: Program) -> None:
    """A module imported later, a shared library dlopen'd later, a class the
    JVM loads later: the breakpoint is made now and hits then."""
    assert prog.start()["ok"]
    made = prog.dbg.json("break", prog.at("late", "late"))
    assert made["ok"], made
    bp = made["breakpoint"]
    if not bp["verified"]:
        # Pending: it says why, and the text says "pending".
        assert bp["message"], bp
        assert "pending" in prog.dbg("breaks").out
    stop = prog.dbg.json("continue")
    prog.stopped_at(stop, "late", "late")
    assert stop["hit_breakpoints"] == [bp["id"]], stop
    listed = prog.dbg.json("breaks")["breakpoints"]
    assert [(b["id"], b["verified"]) for b in listed] == [(bp["id"], True)], listed


def test_a_file_no_source_matches_is_refused_or_pending(prog: Program) -> None:
    """Python, Go and Java programs' sources are all known: a name none of
    them has is an error. Native programs may load a library later: pending."""
    assert prog.start()["ok"]
    suffix = os.path.splitext(prog.twin.main)[1]
    result = prog.dbg("--json", "break", f"nosuchfile{suffix}:3")
    if prog.twin.language == "c":
        bp = result.json["breakpoint"]
        assert (result.code, bp["verified"]) == (0, False), result
        assert "nosuchfile" in bp["message"] or "load" in bp["message"], bp
    else:
        assert (result.code, result.json["error"]["kind"]) == (1, "failed"), result
        assert "nosuchfile" in result.json["error"]["message"]
        assert prog.dbg.json("breaks")["breakpoints"] == []


def test_requested_and_bound_locations_are_both_shown(prog: Program) -> None:
    """A line with no code binds to the next line that has some; the answer
    shows both."""
    assert prog.start()["ok"]
    result = prog.dbg("break", prog.at("no-code"))
    assert result.code == 0, result
    asked, bound = prog.line("no-code"), prog.line("call-fee")
    assert f"(requested line {asked}, bound at line {bound})" in result.out, result.out
    listed = prog.dbg.json("breaks")["breakpoints"]
    assert listed[0]["line"] == prog.line("call-fee"), listed


def test_unbreak_by_the_location_as_typed(prog: Program) -> None:
    assert prog.start()["ok"]
    assert prog.dbg.json("break", prog.at("loop"))["ok"]
    removed = prog.dbg.json("unbreak", prog.at("loop"))
    assert [b["id"] for b in removed["removed"]] == [1], removed
    assert prog.dbg.json("breaks")["breakpoints"] == []


def test_a_function_breakpoint_stops_at_its_first_statement(prog: Program) -> None:
    snap = prog.start(breaks=("fee",), run=True)
    prog.stopped_at(snap, "fee")
    assert snap["hit_breakpoints"] == [1], snap


def test_a_breakpoint_on_a_generator_function_stops_in_it(prog: Program) -> None:
    """debugpy alone would take it and never stop (pydevd's function
    breakpoints miss generators)."""
    snap = prog.start(breaks=(prog.twin.generator,), run=True)
    prog.stopped_at(snap, "yield")
