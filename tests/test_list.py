"""`dbg list`: a whole file (capped), a range, clamped past the end with the
file's length, without a session for a FILE, and in a session every form
`dbg break` takes, the file found as break finds it and a FUNCTION where
break binds it (pdb, debugpy), over tests/targets/names/."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg, Target

#: `dbg list FILE` shows this many lines at most (dbgcore.ops.listing.WHOLE_FILE_LINES).
WHOLE_FILE_LINES = 400
FILES = ("names/pkg/__init__.py", "names/pkg/render.py", "names/pkg/text.py",
         "names/other/__init__.py", "names/other/fmt.py")


def numbers(answer: dict[str, Any]) -> list[int]:
    return [line["line"] for line in answer["lines"]]


def test_list_a_file_without_a_session(dbg: Dbg, target: Any) -> None:
    app = target("names/app.py")
    text = target("names/pkg/text.py")
    length = app.path.read_text().count("\n")
    # No session at all: the file is read here.
    assert dbg.json("sessions")["sessions"] == []
    whole = dbg.json("list", str(app.path))
    assert whole["ok"] and numbers(whole) == list(range(1, length + 1)), whole
    assert whole["total"] == length and "more" not in whole, whole
    ranged = dbg.json("list", f"{app.path}:3-6")
    assert numbers(ranged) == [3, 4, 5, 6], ranged
    # A bare name is found below this folder, as break finds it in the program's tree.
    found = dbg.json("list", "text.py:2", "--context", "1")
    assert found["file"] == str(text.path.resolve()) and numbers(found) == [1, 2, 3], found
    # Past the end: the last lines, and the file's length.
    past = dbg.json("list", f"{app.path}:{length + 30}", "--context", "2")
    assert numbers(past) == list(range(length - 4, length + 1)), past
    assert f"app.py has {length} lines" in past["note"], past
    said = dbg("list", f"{app.path}:{length + 30}")
    assert said.code == 0 and f"has {length} lines" in said.out, said
    # A range that starts past the end: an error naming the length.
    beyond = dbg("list", f"{app.path}:{length + 1}-{length + 9}")
    assert beyond.code == 1 and f"it has {length} lines" in beyond.err, beyond
    assert "Traceback" not in beyond.err and len(beyond.err.strip().splitlines()) == 1, beyond
    # What needs a session says so.
    bare = dbg("list", "12")
    assert bare.code != 0 and "FILE" in bare.err and "Traceback" not in bare.err, bare


def test_a_whole_file_is_capped_and_says_how_to_go_on(dbg: Dbg) -> None:
    long = dbg.cwd / "long.py"
    long.write_text("".join(f"x{n} = {n}\n" for n in range(1, WHOLE_FILE_LINES + 51)))
    answer = dbg.json("list", "long.py")
    assert numbers(answer) == list(range(1, WHOLE_FILE_LINES + 1)), answer["lines"][-1]
    assert answer["more"] == 50 and answer["total"] == WHOLE_FILE_LINES + 50, answer
    said = dbg("list", "long.py").out.splitlines()
    assert said[-1] == (f"+50 more lines; dbg list {long}:{WHOLE_FILE_LINES + 1}-"
                        f"{WHOLE_FILE_LINES + 50}"), said[-1]


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_list_in_a_session_takes_what_break_takes(dbg: Dbg, target: Any, backend: str) -> None:
    require_backend(backend)
    app = target("names/app.py")
    parts: dict[str, Target] = {name: target(name) for name in FILES}
    render, text = parts["names/pkg/render.py"], parts["names/pkg/text.py"]
    started = dbg.json("start", "--backend", backend, str(app.path))
    assert started["ok"], started
    # A name found in the program's tree (not in this folder).
    by_name = dbg.json("list", f"render.py:{render.lines['load']}", "--context", "0")
    assert by_name["file"] == str(render.path.resolve()), by_name
    assert numbers(by_name) == [render.lines["load"]], by_name
    # A method by its bare name: where `dbg break` binds it.
    bound = dbg.json("break", "_load_templates")["breakpoint"]
    shown = dbg.json("list", "_load_templates", "--context", "1")
    assert (shown["file"], shown["lines"][1]["line"]) == (bound["file"], bound["line"]), shown
    # A name of two places: one shown, the other named.
    both = dbg.json("list", "normalize")
    assert both["ok"] and "2 places" in both["note"], both
    assert str(text.path.resolve()) in both["note"] + both["file"], both
    # The current line is marked; a range of the current file.
    here = dbg.json("list", "1-3")
    assert here["file"] == str(app.path.resolve()) and numbers(here) == [1, 2, 3], here
    assert [line["current"] for line in here["lines"]] == [True, False, False], here


DIVIDE_C = """#include <stdio.h>
int divide(int a, int b) {
    int q = a / b;
    return q;
}
int main(void) {
    printf("%d\\n", divide(6, 3));
    return 0;
}
"""


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_list_a_function_where_the_debugger_binds_it(dbg: Dbg, backend: str) -> None:
    # A debugger that finds functions itself: asked by a breakpoint it
    # removes at once, the place `dbg break` answers.
    import builds

    require_backend(backend)
    source = dbg.cwd / "divide.c"
    source.write_text(DIVIDE_C)
    program = builds.build_c(source)
    assert dbg.json("start", "--backend", backend, str(program))["ok"]
    shown = dbg.json("list", "divide", "--context", "0")
    assert (shown["file"], numbers(shown)) == (str(source), [3]), shown
    assert dbg.json("breaks")["breakpoints"] == []
    placed = dbg.json("break", "divide")["breakpoint"]
    assert (placed["file"], placed["line"]) == (str(source), 3), placed
    missing = dbg("list", "no_such_function")
    assert missing.code == 1 and "no_such_function" in missing.err, missing
    assert len(dbg.json("breaks")["breakpoints"]) == 1
