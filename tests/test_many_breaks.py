"""`dbg start` with many breakpoints: set in one request a file (the
Backend.set_breakpoints batch), each bound and stopped at as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbgcore.testing import Dbg, require_backend


def _program(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    helper = folder / "helper.py"
    helper.write_text("def twice(n):\n    m = n * 2\n    return m\n")
    main = folder / "many.py"
    body = "".join(f"x{i} = {i}\n" for i in range(50))
    main.write_text("from helper import twice\n" + body + "print(twice(x49))\n")
    return main, helper


def _breaks(source: Path, lines: range) -> list[str]:
    """``--break SOURCE:LINE`` for each of ``lines``, in their order."""
    return [word for line in lines for word in ("--break", f"{source}:{line}")]


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_start_with_many_breaks_binds_and_stops_at_all(dbg: Dbg, tmp_path: Path,
                                                       backend: str) -> None:
    require_backend(backend)
    main, helper = _program(tmp_path / "prog")
    args = _breaks(main, range(2, 52))
    args += ["--break", f"{helper}:2", "--break", f"{helper}:3"]
    snap = dbg.json("start", "--backend", backend, *args, "--run", str(main),
                    cwd=main.parent)
    assert snap["ok"] and snap["location"]["line"] == 2, snap
    listed = dbg.json("breaks")
    assert listed["ok"], listed
    bps = listed["breakpoints"]
    assert len(bps) == 52
    assert all(bp["verified"] for bp in bps), [bp for bp in bps if not bp["verified"]]
    assert sorted(bp["line"] for bp in bps if bp["file"].endswith("many.py")) == \
        list(range(2, 52))
    seen = [2]
    for _ in range(51):
        stop = dbg.json("continue")
        assert stop["ok"], stop
        seen.append(stop["location"]["line"])
    assert seen == [*range(2, 52), 2, 3]
    dbg("kill")


def test_debugpy_sends_one_set_breakpoints_a_file(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("debugpy")
    main, helper = _program(tmp_path / "prog")
    args = _breaks(main, range(2, 52))
    args += ["--break", f"{helper}:2", "--break", f"{helper}:3"]
    snap = dbg.json("start", "--backend", "debugpy", *args, "--run", str(main),
                    cwd=main.parent)
    assert snap["ok"], snap
    logs = list(dbg.home.rglob("debugger.log*"))
    assert logs, list(dbg.home.rglob("*"))
    sent = [line for log in logs for line in log.read_text(errors="replace").splitlines()
            if "-->" in line
            and '"setBreakpoints"' in line]
    assert len([s for s in sent if "many.py" in s]) == 1, sent
    assert len([s for s in sent if "helper.py" in s]) == 1, sent
    dbg("kill")


def _sent(dbg: Dbg, word: str) -> list[str]:
    """The lines the session's debugger.log says dbg sent that hold ``word``."""
    logs = list(dbg.home.rglob("debugger.log*"))
    assert logs, list(dbg.home.rglob("*"))
    return [line for log in logs for line in log.read_text(errors="replace").splitlines()
            if "-->" in line and word in line]


def test_pdb_sets_many_in_one_exchange_and_names_a_bad_line(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("pdb")
    main, helper = _program(tmp_path / "prog")
    args = _breaks(main, range(2, 52))
    snap = dbg.json("start", "--backend", "pdb", *args, "--break", f"{helper}:2",
                    "--run", str(main), cwd=main.parent)
    assert snap["ok"] and len(snap["breakpoints"]) == 51, snap
    batches = _sent(dbg, "_dbg_natives")
    singles = [s for s in _sent(dbg, "_dbg_native ") if "break " in s]
    # 51 breakpoints: one exchange (sent through a file, being long), none alone.
    assert len(batches) + len(_sent(dbg, "_dbg_long")) >= 1 and singles == [], singles
    dbg("kill")
    # A line past the end among good ones: the start fails and names it.
    bad = dbg("start", "--backend", "pdb", "--break", f"{main}:3", "--break", f"{main}:999",
              "--break", f"{main}:4", "--run", str(main), cwd=main.parent)
    assert bad.code == 1 and f"--break {main}:999" in bad.err and "Traceback" not in bad.err, bad
    # In text, a start says the first 20 and how many more.
    told = dbg("start", "--backend", "pdb", *args, "--run", str(main), cwd=main.parent)
    assert told.code == 0, told
    assert len([line for line in told.out.splitlines() if line.startswith("breakpoint ")]) \
        == 20, told.out
    assert "+30 more breakpoints (`dbg breaks` lists them by id)" in told.out
    dbg("kill")


def _functions(folder: Path, suffix: str, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if suffix == ".py":
        body = "".join(f"def f{i}(n):\n    return n + {i}\n\n\n" for i in range(count))
        calls = "".join(f"total = f{i}(total)\n" for i in range(count))
        program = folder / "funcs.py"
        program.write_text(body + "total = 0\n" + calls + "print(total)\n")
        return program
    body = "".join(f"int f{i}(int n) {{\n    return n + {i};\n}}\n" for i in range(count))
    calls = "".join(f"    total = f{i}(total);\n" for i in range(count))
    source = folder / "funcs.c"
    source.write_text("#include <stdio.h>\n" + body + "int main(void) {\n    int total = 0;\n"
                      + calls + '    printf("%d\\n", total);\n    return 0;\n}\n')
    from builds import build_c

    return build_c(source)


@pytest.mark.parametrize("backend", ["debugpy", "gdb", "pdb"])
def test_function_breakpoints_in_one_batch(dbg: Dbg, tmp_path: Path, backend: str) -> None:
    require_backend(backend)
    count = 12
    program = _functions(tmp_path / "prog", ".c" if backend == "gdb" else ".py", count)
    args: list[str] = []
    for i in range(count):
        args += ["--break", f"f{i}"]
    snap = dbg.json("--timeout", "60", "start", "--backend", backend, *args, "--run",
                    str(program), cwd=program.parent, timeout=120)
    assert snap["ok"] and snap["location"]["function"].endswith("f0"), snap
    assert len(snap["breakpoints"]) == count, snap
    seen = [snap["location"]["function"]]
    for _ in range(count - 1):
        stop = dbg.json("continue")
        assert stop["ok"], stop
        seen.append(stop["location"]["function"])
    assert [s.rsplit(".", 1)[-1] for s in seen] == [f"f{i}" for i in range(count)], seen
    if backend == "debugpy":
        # Each name found in the sources: one line breakpoint each, one request.
        assert len([s for s in _sent(dbg, '"setBreakpoints"') if "funcs.py" in s]) == 1
    elif backend == "gdb":
        by_name = _sent(dbg, '"setFunctionBreakpoints"')
        by_line = [s for s in _sent(dbg, '"setBreakpoints"') if "funcs.c" in s]
        assert len(by_name) + len(by_line) == 1, (by_name, by_line)
    dbg("kill")


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_restart_sets_them_all_again_in_one_batch(dbg: Dbg, tmp_path: Path,
                                                  backend: str) -> None:
    require_backend(backend)
    main, helper = _program(tmp_path / "prog")
    args = _breaks(main, range(2, 42))
    snap = dbg.json("start", "--backend", backend, *args, "--run", str(main), cwd=main.parent)
    assert snap["ok"], snap
    # After the start: a condition and a hit count, which restart keeps too.
    assert dbg.json("break", f"{helper}:2", "--if", "n > 10")["ok"]
    assert dbg.json("break", f"{main}:51", "--hit", "1")["ok"]
    before = dbg.json("breaks")["breakpoints"]
    assert len(before) == 42, before
    sent_before = len(_sent(dbg, '"setBreakpoints"')) + len(_sent(dbg, "_dbg_natives")) \
        + len(_sent(dbg, "_dbg_long"))
    again = dbg.json("restart")
    # A restart stops at the program's first line, as a start without --run.
    assert again["ok"] and again["location"]["line"] == 1, again
    after = dbg.json("breaks")["breakpoints"]
    def kept(b: dict[str, object]) -> tuple[object, ...]:
        return b["id"], b["line"], b.get("condition"), b.get("hit_count")

    assert [kept(b) for b in after] == [kept(b) for b in before]
    assert {b.get("condition") for b in after} >= {"n > 10"}
    assert all(b["verified"] for b in after), after
    sent = len(_sent(dbg, '"setBreakpoints"')) + len(_sent(dbg, "_dbg_natives")) \
        + len(_sent(dbg, "_dbg_long")) - sent_before
    # One request a file (debugpy: many.py and helper.py; pdb: one exchange).
    assert 1 <= sent <= 2, sent
    # x49 = 49 (> 10): the condition holds at the helper's line.
    seen = [dbg.json("continue")["location"]["line"] for _ in range(41)]
    assert seen == [*range(2, 42), 51], seen
    dbg("kill")


def test_breaks_pages_by_id_with_a_count_and_a_filter(dbg: Dbg,
                                                                 tmp_path: Path) -> None:
    require_backend("pdb")
    main, helper = _program(tmp_path / "prog")
    # Set out of line order: the listing is by id, as set.
    args = ["--break", f"{helper}:3", "--break", f"{helper}:2"]
    args += _breaks(main, range(51, 1, -1))
    snap = dbg.json("start", "--backend", "pdb", *args, "--run", str(main), cwd=main.parent)
    assert snap["ok"], snap
    whole = dbg.json("breaks")
    assert whole["total"] == 52 and whole["later"] == 0 and len(whole["breakpoints"]) == 52
    places = [(Path(b["file"]).name, b["line"]) for b in whole["breakpoints"]]
    assert places == [("helper.py", 3), ("helper.py", 2),
                      *[("many.py", n) for n in range(51, 1, -1)]], places
    assert [b["id"] for b in whole["breakpoints"]] == list(range(1, 53))
    page = dbg.json("breaks", "--limit", "10", "--offset", "20")
    assert (page["total"], page["offset"], page["later"]) == (52, 20, 22), page
    assert [b["line"] for b in page["breakpoints"]] == list(range(33, 23, -1))
    text = dbg("breaks", "--limit", "10", "--offset", "20")
    assert text.code == 0, text
    shown = [line for line in text.out.splitlines() if not line.startswith("[via ")]
    head = shown[0]
    assert head.startswith("(breakpoints 21-30 of 52, by id;"), head
    assert "earlier: --offset 10" in head and "later: --offset 30" in head, head
    assert len(shown) == 11 and "many.py:33" in shown[1], shown
    only = dbg.json("breaks", "--file", "helper.py")
    assert only["total"] == 2 and only["filter"] == "helper.py", only
    assert [b["line"] for b in only["breakpoints"]] == [3, 2]
    short = dbg("breaks", "--file", "helper.py")
    assert "(breakpoints" not in short.out, short  # all of them shown: no header
    past = dbg("breaks", "--offset", "60")
    assert past.code == 0 and "no breakpoints past the first 52" in past.out, past
    bad = dbg("breaks", "--limit", "0")
    assert bad.code == 2 and "Traceback" not in bad.err, bad
    assert dbg.json("breaks", "--limit", "1")["total"] == 52  # the session still answers
    dbg("kill")


def _java_program(folder: Path, count: int) -> Path:
    """Many.java: ``count`` statements in main, one a line from line 5 (line
    4 a comment), then a call into a second class, whose lines (``count`` +
    11 and 12) are deferred until it loads."""
    folder.mkdir(parents=True, exist_ok=True)
    body = "".join(f"        x += {i};\n" for i in range(count))
    source = folder / "Many.java"
    source.write_text("public class Many {\n    public static void main(String[] args) {\n"
                      "        int x = 0;\n        // no code here\n" + body
                      + "        System.out.println(Helper.twice(x));\n"
                      "    }\n}\n\nclass Helper {\n    static int twice(int n) {\n"
                      "        int m = n * 2;\n        return m;\n    }\n}\n")
    return source


def test_jdb_types_many_stops_together_each_answered_as_alone(dbg: Dbg,
                                                              tmp_path: Path) -> None:
    require_backend("jdb")
    count = 120  # more than one chunk of commands typed together
    source = _java_program(tmp_path / "prog", count)
    first = 5
    helper_lines = [count + 11, count + 12]
    args: list[str] = []
    for line in range(first, first + count):
        args += ["--break", f"{source}:{line}"]
    for line in helper_lines:
        args += ["--break", f"{source}:{line}"]
    snap = dbg.json("--timeout", "60", "start", "--backend", "jdb", *args, "--run",
                    str(source), cwd=source.parent, timeout=180)
    assert snap["ok"] and snap["location"]["line"] == first, snap
    bps = dbg.json("breaks", "--limit", "500")["breakpoints"]
    assert len(bps) == count + 2, bps
    assert sorted(bp["line"] for bp in bps) == [*range(first, first + count), *helper_lines]
    # Many's lines bound at once; Helper's deferred until its class loads.
    assert all(bp["verified"] for bp in bps if bp["line"] < first + count), bps
    assert not any(bp["verified"] for bp in bps if bp["line"] in helper_lines), bps
    # Typed together, 50 before their answers are read (one by one, each
    # `stop` would be followed by its answer in the log).
    stops = _sent(dbg, "stop at Many:")
    assert len(stops) == count, stops
    log = [line for path in dbg.home.rglob("debugger.log*")
           for line in path.read_text(errors="replace").splitlines()]
    runs, run = [], 0
    for line in log:
        run = run + 1 if "--> stop at Many:" in line else 0
        runs.append(run)
    assert max(runs) == 50, max(runs)
    seen = [snap["location"]["line"]]
    for _ in range(count + 1):
        stop = dbg.json("continue")
        assert stop["ok"] and stop.get("location"), (seen[-3:], stop)
        seen.append(stop["location"]["line"])
    assert seen == [*range(first, first + count), *helper_lines], seen
    assert all(bp["verified"] for bp in dbg.json("breaks", "--limit", "500")["breakpoints"])
    dbg("kill")
    # A line past the end among good ones: the start fails and names it.
    bad = dbg("start", "--backend", "jdb", "--break", f"{source}:5", "--break",
              f"{source}:999", "--break", f"{source}:6", "--run", str(source), cwd=source.parent)
    assert bad.code == 1 and f"--break {source}:999" in bad.err and "Traceback" not in bad.err, bad
    # A line without code moves to the next that has some, as alone; the
    # breakpoints after it in the batch keep their own lines.
    moved = dbg.json("start", "--backend", "jdb", "--break", f"{source}:7", "--break",
                     f"{source}:4", "--break", f"{source}:9", "--run", str(source),
                     cwd=source.parent)
    assert moved["ok"] and moved["location"]["line"] == 5, moved
    lines = [(bp["line"], bp.get("requested_line")) for bp in moved["breakpoints"]]
    assert lines == [(7, None), (5, 4), (9, None)], moved["breakpoints"]
    # A restart sets them again in one batch, each where it was.
    again = dbg.json("restart")
    assert again["ok"], again
    after = dbg.json("breaks")["breakpoints"]
    assert [(bp["line"], bp.get("requested_line"), bp["verified"]) for bp in after] == \
        [(7, None, True), (5, 4, True), (9, None, True)], after  # by id
    assert dbg.json("continue")["location"]["line"] == 5
    dbg("kill")
