"""Breakpoints that survive edits (issue 43, part 3), on real debuggers: a
breakpoint given by its line's text (`FILE:"TEXT"`, `--near LINE`), every
source breakpoint keeping its line's text, and `dbg restart` after an edit
moving each one to where its text now is, or keeping it at its line,
flagged, when the text is gone. The same on pdb, debugpy and gdb (a C
source, built by the start and again by the restart): the text is found by
dbg before any backend sees a FILE:LINE."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import builds
import pytest
from mcp.client.session import ClientSession
from mcpclient import run_mcp

from dbgcore.testing import Dbg, marked_lines

#: backend -> (the target, what is put above its code by the edit, a line
#: of it rewritten by the edit: its marker, and its new text).
CASES = {
    "pdb": ("cart.py", ["# three lines above the cart", "EXTRA = 1", ""],
            ("after-discount", '    print("total:", final)')),
    "debugpy": ("cart.py", ["# three lines above the cart", "EXTRA = 1", ""],
                ("after-discount", '    print("total:", final)')),
    "gdb": ("native/cart.c", ["/* three lines above the cart */", "static int extra = 1;", ""],
            ("after-discount", '    printf("total: %.2f\\n", final);')),
}
#: The line the first breakpoint is given by: `total += cost` in both
#: languages (with a `;` in C).
LOOP_TEXT = "total += cost"


def start(dbg: Dbg, backend: str, path: Path, *options: str) -> dict[str, Any]:
    builds_first = ("--backend", backend)
    return dbg.json("start", *builds_first, *options, str(path), cwd=path.parent, timeout=120)


def edit(path: Path, above: list[str], rewrite: tuple[str, str]) -> dict[str, int]:
    """Insert ``above`` after the file's include or import lines and rewrite
    the marked line; the marked lines before the edit."""
    before = marked_lines(path)
    lines = path.read_text().splitlines()
    lines[before[rewrite[0]] - 1] = rewrite[1]
    at = max(n for n, text in enumerate(lines) if text.startswith(("import ", "#include"))) + 1
    lines[at:at] = above
    path.write_text("\n".join(lines) + "\n")
    return before


def line_of(path: Path, text: str) -> int:
    found = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    assert len(found) == 1, (text, found)
    return found[0]


@pytest.mark.parametrize("backend", list(CASES))
def test_a_breakpoint_follows_its_line_through_an_edit_and_a_restart(
        dbg: Dbg, target: Any, backend_ready: Any, backend: str) -> None:
    backend_ready(backend)
    name, above, rewrite = CASES[backend]
    if backend == "gdb":
        builds._need("cc")
    prog = target(name)
    file = prog.path.name
    loop = line_of(prog.path, LOOP_TEXT)
    stop = start(dbg, backend, prog.path, "--break", f'{file}:"{LOOP_TEXT}"', "--run")
    assert (stop["_exit"], stop["reason"], stop["location"]["line"]) == (0, "breakpoint", loop), \
        stop
    first = stop["breakpoints"][0]
    assert (first["line"], first["requested"]) == (loop, f'{file}:"{LOOP_TEXT}"'), first
    assert first["line_text"].startswith(LOOP_TEXT), first
    # A plain FILE:LINE keeps its line's text too, and so does the line whose
    # text the edit takes away.
    discount = dbg.json("break", f"{file}:{prog.lines['discount']}", cwd=prog.path.parent)
    assert "discount = total * percent / 100" in discount["breakpoint"]["line_text"], discount
    doomed = dbg.json("break", f"{file}:{prog.lines['after-discount']}", cwd=prog.path.parent)
    assert doomed["_exit"] == 0, doomed
    text = dbg("breaks").out
    assert f"{prog.path}:{loop} `{LOOP_TEXT}" in text, text

    edit(prog.path, above, rewrite)
    again = dbg.json("restart", timeout=120)
    assert again["_exit"] == 0, again
    moved = {m["id"]: m for m in again["moved_breakpoints"]}
    assert (moved[1]["from"], moved[1]["to"]) == (loop, loop + 3), moved
    assert (moved[2]["from"], moved[2]["to"]) == (prog.lines["discount"],
                                                  prog.lines["discount"] + 3), moved
    assert moved[3]["gone"] and moved[3]["line"] == prog.lines["after-discount"], moved
    # Said in the text of the restart's answer too.
    said = dbg("breaks").out
    assert f"{prog.path}:{loop + 3} `{LOOP_TEXT}" in said, said
    assert f"{prog.path}:{prog.lines['after-discount']} " in said, said
    assert "[line text gone: was " in said, said

    listed = {b["id"]: b for b in dbg.json("breaks")["breakpoints"]}
    assert listed[1]["line"] == loop + 3 and listed[1]["line_text"].startswith(LOOP_TEXT)
    assert listed[2]["requested"] == f"{file}:{prog.lines['discount'] + 3}", listed[2]
    assert listed[3]["text_gone"] and "text_gone" not in listed[1], listed
    # The one left at its old number now stops earlier in main: out of the way.
    assert dbg.json("unbreak", "3")["_exit"] == 0
    hit = dbg.json("continue")
    assert (hit["reason"], hit["location"]["line"]) == ("breakpoint", loop + 3), hit
    for _ in range(3):  # the loop's items
        hit = dbg.json("continue")
        if hit["location"]["line"] != loop + 3:
            break
    assert (hit["reason"], hit["location"]["line"]) == ("breakpoint",
                                                         prog.lines["discount"] + 3), hit
    assert dbg.json("kill")["_exit"] == 0


def test_the_restart_text_says_what_moved(dbg: Dbg, target: Any, pdb_ready: None) -> None:
    prog = target("cart.py")
    assert start(dbg, "pdb", prog.path, "--break", 'cart.py:"total += cost"')["_exit"] == 0
    loop = line_of(prog.path, LOOP_TEXT)
    edit(prog.path, *CASES["pdb"][1:])
    text = dbg("restart").out
    assert (f"breakpoint 1 moved with its line's text from cart.py:{loop} to cart.py:{loop + 3} "
            f"`{LOOP_TEXT}`") in text, text
    # Nothing edited since: nothing moves, and the restart says nothing of it;
    # a plain FILE:LINE is as it always was, its line's text beside it.
    plain = dbg.json("break", f"{prog.path}:{loop + 2}")["breakpoint"]
    quiet = dbg.json("restart")
    assert "moved_breakpoints" not in quiet and quiet["breakpoints"][0]["line"] == loop + 3
    again = quiet["breakpoints"][1]
    assert again == plain, (again, plain)
    assert (again["requested"], again["line"], again["requested_line"]) == \
        (f"{prog.path}:{loop + 2}", loop + 2, None), again
    assert "text_gone" not in again and again["line_text"].startswith("cost = "), again
    assert dbg.json("kill")["_exit"] == 0


@pytest.mark.parametrize("backend", list(CASES))
def test_texts_that_name_no_one_line_are_refused_and_near_picks(
        dbg: Dbg, target: Any, backend_ready: Any, backend: str) -> None:
    backend_ready(backend)
    name = CASES[backend][0]
    if backend == "gdb":
        builds._need("cc")
    prog = target(name)
    file, folder = prog.path.name, prog.path.parent
    comment = "/* A shopping cart" if backend == "gdb" else "# the sum of the items"
    if backend != "gdb":
        # cart.py has no line that is only a comment: one goes above `def total`.
        lines = prog.path.read_text().splitlines()
        lines.insert(prog.lines["total-def"] - 1, "    " + comment)
        prog.path.write_text("\n".join(lines) + "\n")
    lines = marked_lines(prog.path)
    assert start(dbg, backend, prog.path)["_exit"] == 0

    ambiguous = dbg("break", f'{file}:"total"', cwd=folder)
    assert ambiguous.code == 2 and ambiguous.out == "", ambiguous
    error = ambiguous.err.strip()
    assert error.count("\n") == 0 and f'{file}:"total" is on ' in error, error
    assert f"{file}:{lines['total-first']} " in error and "--near LINE" in error, error

    near = dbg.json("break", f'{file}:"total"', "--near", str(lines["total-return"] + 1),
                    cwd=folder)
    assert near["breakpoint"]["line"] == lines["total-return"], near

    refused = dbg("break", f'{file}:"{comment[2:]}"', cwd=folder)
    assert refused.code == 2 and "only on comment lines" in refused.err, refused
    missing = dbg("break", f'{file}:"totl += cots"', cwd=folder)
    assert missing.code == 1 and missing.err.count("\n") == 1, missing
    assert "no line of code" in missing.err and f"{LOOP_TEXT}" in missing.err, missing
    plain = dbg("break", f"{file}:{lines['discount']}", "--near", "3", cwd=folder)
    assert plain.code == 2 and "--near" in plain.err, plain

    # The session goes on: only the --near breakpoint was set.
    listed = dbg.json("breaks")["breakpoints"]
    assert [b["line"] for b in listed] == [lines["total-return"]], listed
    hit = dbg.json("continue")
    assert (hit["reason"], hit["location"]["line"]) == ("breakpoint", lines["total-return"]), hit
    # A breakpoint set by its text goes by it.
    removed = dbg.json("unbreak", f'{file}:"total"', cwd=folder)
    assert [b["id"] for b in removed["removed"]] == [near["breakpoint"]["id"]], removed
    assert dbg.json("kill")["_exit"] == 0


def test_a_file_found_from_the_program_folder_and_a_start_near(
        dbg: Dbg, target: Any, tmp_path: Path, pdb_ready: None) -> None:
    prog = target("cart.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The break is typed in a folder without cart.py: the program's has it.
    stop = dbg.json("start", "--backend", "pdb", "--break", 'cart.py:"total"', "--near", "1",
                    "--run", str(prog.path), cwd=elsewhere)
    # The nearest line to 1 that holds "total" is `def total`: bound at its first line.
    assert (stop["_exit"], stop["location"]["line"]) == (0, prog.lines["total-first"]), stop
    lone = dbg("-s", "two", "start", "--backend", "pdb", "--near", "4", str(prog.path))
    assert lone.code == 2 and "no --break gives a line's text" in lone.err, lone
    assert dbg.json("kill")["_exit"] == 0


def test_through_the_fast_path_list_and_until_take_a_text_too(
        short_dbg: Dbg, target: Any, pdb_ready: None) -> None:
    dbg = short_dbg
    prog = target("cart.py")
    folder = prog.path.parent
    # No session yet: `list` reads the file itself.
    shown = dbg("list", 'cart.py:"total += cost"', cwd=folder)
    assert shown.code == 0 and f"  {prog.lines['loop'] + 1} |     " in shown.out, shown
    assert dbg.json("start", "--backend", "pdb", "cart.py", cwd=folder)["_exit"] == 0
    placed = dbg.json("break", 'cart.py:"total += cost"', cwd=folder)
    assert placed["breakpoint"]["line"] == prog.lines["loop"] + 1, placed
    ran = dbg.json("until", 'cart.py:"return total  #"', cwd=folder)
    # The breakpoint on the way comes first.
    assert ran["location"]["line"] == prog.lines["loop"] + 1, ran
    assert dbg.json("unbreak", "1")["_exit"] == 0
    ran = dbg.json("until", 'cart.py:"return total  #"', cwd=folder)
    assert ran["location"]["line"] == prog.lines["total-return"], ran
    listed = dbg.json("list", 'cart.py:"def apply_discount"', cwd=folder)
    assert any(line["line"] == prog.lines["discount"] - 1 for line in listed["lines"]), listed
    assert dbg.json("kill")["_exit"] == 0


def test_an_agent_gives_the_text_and_near_through_mcp(dbg: Dbg, target: Any,
                                                      pdb_ready: None) -> None:
    prog = target("cart.py")

    async def scenario(session: ClientSession) -> None:
        start = await session.call_tool("dbg_start", {
            "program": str(prog.path), "backend": "pdb", "run": True,
            "breaks": [f'{prog.path}:"total"'], "near": prog.lines["call-total"]})
        snap = start.structured_content
        assert snap is not None and snap["ok"], start
        assert snap["breakpoints"][0]["line"] == prog.lines["call-total"], snap
        placed = await session.call_tool("dbg_break", {
            "location": f'{prog.path}:"total"', "near": prog.lines["total-return"]})
        data = placed.structured_content
        assert data is not None and data["breakpoint"]["line"] == prog.lines["total-return"]
        assert "`return total" in placed.content[0].text, placed  # type: ignore[union-attr]
        await session.call_tool("dbg_kill", {})

    run_mcp(dbg, scenario)
