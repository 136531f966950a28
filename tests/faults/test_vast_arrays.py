"""A 10,000,000-element array and a 100,000-element one, on gdb and lldb:
`vars`, `print` and `locals` (text and JSON) each answer a few KB that say
how much they showed ("100 of 10000000"), the debugger is never asked for
more than a page of children (each `variables` request in debugger.log has a
count of at most 1000), its memory stays where it was, and the session goes
on: the last element prints and `next` steps.

Before dbg paged, `dbg vars arr` got no answer while gdb grew past 2 GB and
lldb-dap past 4 GB, and every later op timed out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from builds import build_c, build_go, copy_tree

from dbgcore.testing import debugger_rss_kb as rss_of_debugger
from dbgcore.testing import marked_lines

if TYPE_CHECKING:
    from conftest import Dbg

#: The most an answer about these arrays may be.
ANSWER_BYTES = 8192
#: The most a debugger may grow over all the ops (it grew by gigabytes).
GROWTH_KB = 100_000


def marked(source: Path, name: str) -> int:
    return marked_lines(source)[name]


def built(factory: pytest.TempPathFactory, name: str) -> Path:
    """tests/targets/bounds/NAME copied into a folder of its own and built."""
    source = copy_tree(f"bounds/{name}", factory.mktemp(name.split(".")[0]))
    build_c(source)
    return source


@pytest.fixture(scope="module")
def vast(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory, "vast.c")


def debugger_rss_kb(dbg: Dbg, program: Path) -> int:
    """The RSS of the debugger (gdb, or lldb-dap), which must be there."""
    total = rss_of_debugger(dbg.home, program)
    assert total, "no debugger process found"
    return total


def bounded(dbg: Dbg, *args: str, most: int = ANSWER_BYTES) -> Any:
    answer = dbg(*args)
    assert answer.code == 0, (args, answer)
    assert len(answer.out.encode()) <= most, (args, len(answer.out), answer.out[:300])
    return answer


def variables_requests(dbg: Dbg) -> list[dict[str, Any]]:
    log = dbg.home / "sessions" / "default" / "debugger.log"
    return [json.loads(line.split(" --> ", 1)[1])["arguments"]
            for line in log.read_text(errors="replace").splitlines()
            if " --> " in line and '"command": "variables"' in line]


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_a_vast_array_answers_a_page_and_the_session_goes_on(
        dbg: Dbg, vast: Path, backend: str, backend_ready: Any) -> None:
    backend_ready(backend)
    program = vast.with_suffix("")
    started = dbg("start", "--backend", backend, "--break", f"vast.c:{marked(vast, 'here')}",
                  "--run", str(program))
    assert started.code == 0, started
    before = debugger_rss_kb(dbg, program)

    for name, size in (("arr", 10_000_000), ("big", 100_000)):
        text = bounded(dbg, "vars", name).out
        assert f"showing 100 of {size} (0-99); `dbg vars {name} --start 100` for more" in text
        page = json.loads(bounded(dbg, "--json", "vars", name).out)
        assert (page["shown"], page["total"], page["more"]) == (100, size, True), page
        assert page["variables"][-1]["value"] in ("99", "49.5"), page["variables"][-1]
        shown = bounded(dbg, "print", name).out
        assert f"(12 of {size} shown; `dbg vars` pages the rest)" in shown, shown
        printed = json.loads(bounded(dbg, "--json", "print", name).out)
        assert printed["value"].endswith(f", ...}} (12 of {size} shown; `dbg vars` pages "
                                         "the rest)"), printed
    tail = bounded(dbg, "--json", "vars", "arr", "--start", "9999998")
    rows = json.loads(tail.out)["variables"]
    assert [r["value"] for r in rows] == ["9999998", "9999999"], rows
    # The frame holding them (lldb lists main's static `arr` among globals).
    for args in (["locals"], ["--json", "locals"]):
        assert "big" in bounded(dbg, *args).out
    if backend == "gdb":
        assert "arr" in bounded(dbg, "locals").out

    asked = variables_requests(dbg)
    assert asked and all(0 < a.get("count", 0) <= 1000 for a in asked), asked
    grown = debugger_rss_kb(dbg, program) - before
    print(f"{backend}: debugger RSS {before} kB before, grew {grown} kB")
    assert grown < GROWTH_KB, (before, grown)

    # The session is still usable.
    last = bounded(dbg, "--json", "print", "arr[9999999]")
    assert json.loads(last.out)["value"] == "9999999", last
    stepped = json.loads(bounded(dbg, "--json", "next").out)
    assert stepped["ok"] and stepped["location"]["line"] == marked(vast, 'after'), stepped


@pytest.fixture(scope="module")
def vast_vector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory, "vastvec.cpp")


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_a_vast_container_is_listed_in_part_and_the_session_goes_on(
        dbg: Dbg, vast_vector: Path, backend: str, backend_ready: Any) -> None:
    """libstdc++'s printers can only list every child: gdb's DAP server
    listed all 10,000,000 of the vector's to count them, at the stop that
    showed it (4 GB, no answer); it now lists 10,000 and says so."""
    backend_ready(backend)
    program = vast_vector.with_suffix("")
    started = dbg("start", "--backend", backend, "--break",
                  f"vastvec.cpp:{marked(vast_vector, 'here')}", "--run", str(program))
    assert started.code == 0, started
    assert len(started.out.encode()) <= ANSWER_BYTES, started.out[:300]
    before = debugger_rss_kb(dbg, program)
    for args in (["locals"], ["--json", "locals"]):
        assert "10000000" in bounded(dbg, *args).out
    page = json.loads(bounded(dbg, "--json", "vars", "v").out)
    assert (page["shown"], page["more"]) == (100, True), page
    assert page["variables"][99]["value"] == "99", page["variables"][99]
    # lldb-dap shows each entry as "std::pair<const int, int> @ 0x...".
    text = bounded(dbg, "vars", "m", most=2 * ANSWER_BYTES).out
    if backend == "gdb":
        # Each entry of a map is two children (key, value) to gdb.
        assert page["total"] == 10000 and page["listed_only"], page
        assert "showing 100 of at least 10000 (0-99); `dbg vars m --start 100`" in text, text
        end = bounded(dbg, "vars", "v", "--start", "9999").out.rstrip()
        assert end.endswith("the debugger lists only the first 10000, `dbg print` reads "
                            "any element"), end
    else:
        assert page["total"] == 10_000_000 and "listed_only" not in page, page
        assert "showing 100 of 100000 (0-99); `dbg vars m --start 100`" in text, text
    grown = debugger_rss_kb(dbg, program) - before
    print(f"{backend}: debugger RSS {before} kB before, grew {grown} kB")
    assert grown < GROWTH_KB, (before, grown)
    assert json.loads(bounded(dbg, "--json", "print", "v[9999999]").out)["value"] == "9999999"
    stepped = json.loads(bounded(dbg, "--json", "next").out)
    assert stepped["ok"] and stepped["location"]["line"] == marked(vast_vector, 'after'), \
        stepped


def test_dlv_pages_a_vast_slice_past_the_64_elements_it_loads(
        dbg: Dbg, tmp_path: Path, backend_ready: Any) -> None:
    """dlv loads 64 elements of a slice or map (its memory never grew), and
    loads a page of them when `variables` asks with filter "indexed"."""
    backend_ready("dlv")
    package = copy_tree("bounds/vastgo", tmp_path)
    program = build_go(package)
    source = package / "main.go"
    started = dbg("start", "--backend", "dlv", "--break", f"{source}:{marked(source, 'here')}",
                  "--run", str(program))
    assert started.code == 0, started
    page = json.loads(bounded(dbg, "--json", "vars", "arr").out)
    assert (page["shown"], page["total"], page["more"]) == (100, 10_000_000, True), page
    assert page["variables"][99]["value"] == "99", page["variables"][99]
    text = bounded(dbg, "vars", "arr", "--start", "9999998").out
    assert "[9999999] = 9999999" in text and "showing 2 of 10000000 (9999998-9999999)" in text
    entries = json.loads(bounded(dbg, "--json", "vars", "m", "--start", "99990").out)
    assert (entries["shown"], entries["total"], entries["more"]) == (10, 100_000, False), entries
    assert json.loads(bounded(dbg, "--json", "print", "arr[9999999]").out)["value"] == "9999999"
    stepped = json.loads(bounded(dbg, "--json", "next").out)
    assert stepped["ok"] and stepped["location"]["line"] == marked(source, 'after'), stepped


def test_a_page_of_long_values_stays_some_kb(dbg: Dbg, tmp_path: Path,
                                             backend_ready: Any) -> None:
    """Each value on a page is cut at 400 characters and says its length
    (debugpy answers 64 KB of each of these strings)."""
    backend_ready("debugpy")
    source = tmp_path / "long_rows.py"
    source.write_text('rows = ["x" * 100000 for _ in range(300)]\nprint(len(rows))  # @here\n')
    assert dbg("start", "--backend", "debugpy", "--break", f"{source}:2", "--run",
               str(source)).code == 0
    page = json.loads(bounded(dbg, "--json", "vars", "rows", "--count", "20",
                              most=4 * ANSWER_BYTES).out)
    assert page["shown"] == 20 and page["more"], page
    assert all(len(r["value"]) <= 400 and r["cut"] > 400 for r in page["variables"]), page
