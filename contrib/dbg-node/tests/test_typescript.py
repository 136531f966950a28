"""TypeScript on real Node.js: `dbg start app.ts` builds it with tsc
--sourceMap into the session's folder, and through the maps (decoded by
dbg_node.sourcemap) breakpoints, stops, frames and `list` are in the .ts
file. The target's types make its lines of code other lines of the
JavaScript, so a stop shown by the JavaScript's numbers fails these tests."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dbgcore.api import BackendMissing, BackendSpec
from dbgcore.testing import BackendSuite, Dbg, marked_lines, require, require_backend
from hypothesis import given
from hypothesis import strategies as st

from dbg_node.sourcemap import SourceMapError, decode_mappings, decode_vlq, parse
from dbg_node.typescript import find_tsc

PROGRAM = Path(__file__).resolve().parent / "programs" / "ledger-ts"
APP = PROGRAM / "app.ts"
LINES = marked_lines(APP)
MONEY = marked_lines(PROGRAM / "lib" / "money.ts")


def tsc() -> str:
    try:
        return find_tsc(BackendSpec(name="node", plugin="node"), APP)
    except BackendMissing as exc:
        require(False, exc.message)
        raise


@pytest.fixture
def ts(dbg: Dbg) -> Dbg:
    require_backend("node")
    tsc()
    return dbg


class TestTypeScriptSuite(BackendSuite):
    """The kit's suite, on the TypeScript ledger built on the fly."""

    backend = "node"
    program = APP

    def prepare(self, folder: Path) -> Path:
        tsc()
        return APP


def start(dbg: Dbg, *options: str, program: Path = APP) -> dict[str, Any]:
    snap = dbg.json("start", *options, str(program))
    assert snap["ok"], snap
    return snap


def js_line(js: Path, text: str) -> int:
    """The line of the generated JavaScript that holds ``text``."""
    lines = js.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_start_builds_it_with_source_maps_into_the_session_and_says_so(ts: Dbg) -> None:
    snap = start(ts)
    command = snap["build"]["command"]
    assert re.search(r"tsc .*--sourceMap", command) and command.endswith(str(APP)), command
    out = Path(re.search(r"--outDir (\S+)", command).group(1))  # type: ignore[union-attr]
    assert out.is_relative_to(ts.home), out
    assert (out / "app.js.map").is_file() and (out / "lib" / "money.js").is_file()
    assert not list(PROGRAM.rglob("*.js")), "nothing is written beside the source"
    assert (snap["state"], snap["reason"], snap["location"]["file"]) == (
        "stopped", "entry", str(APP)), snap
    text = ts("kill")
    assert text.code == 0
    said = ts("start", str(APP))
    assert said.code == 0 and "built: " in said.out and "--sourceMap" in said.out, said


def test_a_break_on_a_ts_line_binds_there_and_the_stop_is_shown_in_typescript(ts: Dbg) -> None:
    start(ts)
    bp = ts.json("break", f"app.ts:{LINES['loop']}")
    assert bp["ok"] and bp["breakpoint"]["verified"], bp
    assert (bp["breakpoint"]["file"], bp["breakpoint"]["line"]) == (str(APP), LINES["loop"])
    build = ts.home / "sessions" / "default" / "build"
    # The test means something only where the JavaScript's line is another.
    assert js_line(build / "app.js", "total += i * 100") != LINES["loop"]
    hit = ts.json("continue")
    assert (hit["reason"], hit["location"]["file"], hit["location"]["line"],
            hit["location"]["function"]) == ("breakpoint", str(APP), LINES["loop"], "main"), hit
    shown = ts("list")
    assert f"> {LINES['loop']} |     total += i * 100; // @loop" in shown.out, shown.out
    names = {v["name"]: v["value"] for v in ts.json("locals")["variables"]}
    assert names["total"] == "0" and names["i"] == "0" and names["entries"] == "[]", names
    assert ts.json("print", "total + 5")["value"] == "5"
    again = ts.json("continue")
    assert again["location"]["line"] == LINES["loop"]
    assert ts.json("print", "total")["value"] == "0"
    assert ts.json("print", "i")["value"] == "1"


def test_the_stack_shows_typescript_frames_across_modules(ts: Dbg) -> None:
    # lib/money.ts is not loaded at the entry stop: its breakpoint is found
    # through the build's maps on disk and binds when node requires it.
    start(ts)
    bp = ts.json("break", f"money.ts:{MONEY['money']}")
    assert bp["ok"], bp
    hit = ts.json("continue")
    assert (hit["reason"], hit["location"]["file"], hit["location"]["line"]) == (
        "breakpoint", str(PROGRAM / "lib" / "money.ts"), MONEY["money"]), hit
    frames = ts.json("stack")["frames"]
    assert [(f["function"], Path(f["file"]).name, f["line"]) for f in frames] == [
        ("money", "money.ts", MONEY["money"]), ("main", "app.ts", LINES["after-fee"]),
        ("<module>", "app.ts", LINES["module-main"])], frames
    assert [(a["name"], a["value"]) for a in frames[0]["args"]] == [("cents", "1020")]
    assert ts.json("breaks")["breakpoints"][0]["hits"] == 1


def test_a_ts_line_without_code_moves_to_the_next_and_says_so(ts: Dbg) -> None:
    start(ts)
    bp = ts.json("break", f"app.ts:{LINES['no-code']}")
    assert bp["ok"], bp
    assert (bp["breakpoint"]["line"], bp["breakpoint"]["requested_line"]) == (
        LINES["call-fee"], LINES["no-code"]), bp
    hit = ts.json("continue")
    assert hit["location"]["line"] == LINES["call-fee"], hit
    stepped = ts.json("step")
    assert (stepped["location"]["function"], stepped["location"]["line"]) == (
        "fee", LINES["fee"]), stepped
    back = ts.json("finish")
    assert back["return_value"]["value"] == "1020", back
    assert (back["location"]["file"], back["location"]["line"]) == (
        str(APP), LINES["after-fee"]), back


def test_a_method_and_a_function_break_by_name_in_the_typescript(ts: Dbg) -> None:
    start(ts)
    deposit = ts.json("break", "Account.deposit")
    assert deposit["ok"] and deposit["breakpoint"]["line"] == LINES["deposit"], deposit
    hit = ts.json("continue")
    assert (hit["location"]["file"], hit["location"]["line"]) == (str(APP), LINES["deposit"])


def test_the_exception_is_shown_in_typescript(ts: Dbg) -> None:
    snap = ts.json("start", "--run", str(APP), "raise")
    assert snap["reason"] == "exception" and snap["location"]["line"] == LINES["raise"], snap
    thrown = ts.json("exception")
    assert thrown["exception"] == "RangeError", thrown
    assert f'app.ts", line {LINES["raise"]}, in main' in thrown["stack"], thrown["stack"]


def test_javascript_built_by_hand_with_maps_is_shown_in_its_typescript(
        ts: Dbg, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    subprocess.run([tsc(), "--sourceMap", "--noCheck", "--target", "es2022", "--module",
                    "commonjs", "--rootDir", str(PROGRAM), "--outDir", str(out), str(APP)],
                   check=True, capture_output=True, timeout=120)
    snap = start(ts, "--break", f"app.ts:{LINES['fee']}", "--run", program=out / "app.js")
    assert "build" not in snap or not snap["build"], snap
    assert (snap["location"]["file"], snap["location"]["line"]) == (str(APP), LINES["fee"])
    # The JavaScript's own lines still take a breakpoint, shown in the .ts.
    line = js_line(out / "app.js", "// @fee-return")
    bp = ts.json("break", f"app.js:{line}")
    assert bp["ok"] and bp["breakpoint"]["line"] == LINES["fee-return"], bp


def test_an_mts_file_is_built_as_an_es_module_and_shown_as_itself(ts: Dbg) -> None:
    source = PROGRAM.parent / "ts-esm" / "pair.mts"
    marks = marked_lines(source)
    snap = start(ts, "--break", f"pair.mts:{marks['label']}", "--run", program=source)
    assert "--module nodenext" in snap["build"]["command"], snap["build"]
    assert (snap["location"]["file"], snap["location"]["line"]) == (str(source), marks["label"])
    frames = ts.json("stack")["frames"]
    assert (frames[1]["function"], frames[1]["file"], frames[1]["line"]) == (
        "<module>", str(source), marks["made"]), frames
    back = ts.json("finish")
    assert back["return_value"]["value"] == "['n3', 3]", back
    assert back["location"]["line"] == marks["made"] + 1, back


def test_a_missing_compiler_is_a_one_line_error_and_no_session(ts: Dbg) -> None:
    # A project's .dbg/backends.yaml names a tsc that is not there.
    (ts.cwd / ".dbg").mkdir()
    (ts.cwd / ".dbg" / "backends.yaml").write_text(
        "backends:\n  node:\n    options:\n      tsc: no-such-tsc\n", encoding="utf-8")
    missing = ts("start", str(APP))
    assert missing.code != 0 and missing.err.startswith("error: cannot build app.ts: "
                                                        "options.tsc no-such-tsc"), missing
    assert len(missing.err.strip().splitlines()) == 1 and "npm install" in missing.err
    assert ts("status").code != 0


def test_a_map_inlined_as_a_data_url_is_read_too(ts: Dbg, tmp_path: Path) -> None:
    out = tmp_path / "inline"
    subprocess.run([tsc(), "--inlineSourceMap", "--noCheck", "--target", "es2022", "--module",
                    "commonjs", "--rootDir", str(PROGRAM), "--outDir", str(out), str(APP)],
                   check=True, capture_output=True, timeout=120)
    assert not list(out.rglob("*.map"))
    snap = start(ts, "--break", f"money.ts:{MONEY['money']}", "--run", program=out / "app.js")
    assert (snap["location"]["file"], snap["location"]["line"]) == (
        str(PROGRAM / "lib" / "money.ts"), MONEY["money"]), snap


def test_a_profile_of_javascript_with_maps_names_the_typescript_lines(
        ts: Dbg, tmp_path: Path) -> None:
    source = PROGRAM.parent / "ts-hot" / "hot.ts"
    out = tmp_path / "hot"
    subprocess.run([tsc(), "--sourceMap", "--noCheck", "--target", "es2022", "--module",
                    "commonjs", "--outDir", str(out), str(source)],
                   check=True, capture_output=True, timeout=120)
    hot = marked_lines(source)["hot"]
    assert js_line(out / "hot.js", "// @hot") != hot
    answer = ts.json("profile", str(out / "hot.js"))
    assert answer["ok"] and answer["exit_code"] == 0, answer
    assert (answer["top"][0]["function"], answer["top"][0]["file"]) == ("spin", str(source))
    rows = ts.json("hot", "--by", "line")["rows"]
    assert (rows[0]["file"], rows[0]["line"]) == (str(source), hot), rows[:3]


def test_bad_typescript_and_a_ts_file_of_no_map_are_one_line_errors(
        ts: Dbg, tmp_path: Path) -> None:
    broken = tmp_path / "broken.ts"
    broken.write_text("function f( {\n", encoding="utf-8")
    failed = ts("start", str(broken))
    assert failed.code != 0 and "build failed" in failed.err and "broken.ts" in failed.err, failed
    assert "Traceback" not in failed.err
    unbuilt = ts("start", "--no-build", str(APP))
    assert unbuilt.code != 0 and "app.ts is TypeScript" in unbuilt.err, unbuilt
    start(ts)
    stray = tmp_path / "stray.ts"
    stray.write_text("const x = 1;\n", encoding="utf-8")
    refused = ts("break", f"{stray}:1")
    assert refused.code == 1 and "stray.ts is in no source map" in refused.err, refused
    assert len(refused.err.strip().splitlines()) <= 2 and "Traceback" not in refused.err
    assert ts.json("break", f"app.ts:{LINES['loop']}")["ok"]


def test_a_folder_with_a_tsconfig_is_built_as_its_project_into_the_session(ts: Dbg) -> None:
    project = PROGRAM.parent / "ts-project"
    greet = marked_lines(project / "src" / "greet.ts")
    snap = start(ts, "--break", f"greet.ts:{greet['greet']}", "--run", program=project)
    assert "--project" in snap["build"]["command"], snap["build"]
    assert (snap["location"]["file"], snap["location"]["line"]) == (
        str(project / "src" / "greet.ts"), greet["greet"]), snap
    assert [f["file"].rsplit("/", 1)[-1] for f in ts.json("stack")["frames"]] == [
        "greet.ts", "index.ts", "index.ts"]
    # The project's own outDir (dist/) is not written: the build is the session's.
    assert not (project / "dist").exists()
    assert ts.json("continue")["location"]["line"] == greet["greet"]
    ts.json("unbreak", "1")
    # A module above the entry's folder (shared/, beside src/) is the
    # program's too: a function there is found by its name.
    shout = marked_lines(project / "shared" / "shout.ts")
    assert ts.json("break", "shout")["breakpoint"]["line"] == shout["shout"]
    loud = ts.json("continue")
    assert (loud["location"]["file"], loud["location"]["line"]) == (
        str(project / "shared" / "shout.ts"), shout["shout"]), loud
    done = ts.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 0, done
    assert "HELLO ADA; HELLO GRACE!" in ts.output("stdout")


# -- the decoder, without node ---------------------------------------------------------


def test_vlq_digits_decode_to_signed_numbers() -> None:
    assert decode_vlq("AAAA") == [0, 0, 0, 0]
    assert decode_vlq("C") == [1] and decode_vlq("D") == [-1]
    assert decode_vlq("gB") == [16] and decode_vlq("hB") == [-16]
    assert decode_vlq("2HwcrxB") == [123, 456, -789]
    with pytest.raises(SourceMapError):
        decode_vlq("g")  # a digit that says more follow, and none does
    with pytest.raises(SourceMapError):
        decode_vlq("A*")


def test_mappings_are_relative_across_segments_and_lines() -> None:
    # Line 0: col 0 -> source 0 line 2 col 0; col 4 -> line 2 col 6.
    # Line 1: empty. Line 2: col 2 -> source 1 line 0 col 0 (source +1, line -2).
    lines = decode_mappings("AAEA,IAAM;;ECFN")
    assert lines == [[(0, 0, 2, 0), (4, 0, 2, 6)], [], [(2, 1, 0, 0)]]
    sm = parse('{"version": 3, "sources": ["a.ts", "b.ts"], "sourceRoot": "src", '
               '"mappings": "AAEA,IAAM;;ECFN"}', "/tmp/out")
    assert sm.sources == ["/tmp/out/src/a.ts", "/tmp/out/src/b.ts"]
    assert sm.original(0, 5) == ("/tmp/out/src/a.ts", 2, 6)
    assert sm.original(2, 0) == ("/tmp/out/src/b.ts", 0, 0)
    assert sm.generated("/tmp/out/src/a.ts", 0) == (2, [(0, 0)])
    assert sm.generated("/tmp/out/src/b.ts", 0) == (0, [(2, 2)])
    with pytest.raises(SourceMapError):
        parse('{"version": 2, "mappings": ""}', "/tmp")


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _vlq(number: int) -> str:
    """The writer's side, as the spec says it, to check the reader against."""
    rest = (-number << 1) | 1 if number < 0 else number << 1
    digits = ""
    while True:
        low, rest = rest & 31, rest >> 5
        digits += _B64[low | (32 if rest else 0)]
        if not rest:
            return digits


@given(st.lists(st.integers(-(2 ** 40), 2 ** 40)))
def test_vlq_decodes_what_a_writer_wrote(numbers: list[int]) -> None:
    assert decode_vlq("".join(_vlq(n) for n in numbers)) == numbers


@given(st.lists(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3),
                                   st.integers(0, 500), st.integers(0, 120)), max_size=6),
                max_size=8))
def test_mappings_decode_to_the_segments_written(lines: list[list[tuple[int, ...]]]) -> None:
    written, expected = [], []
    previous = [0, 0, 0]  # source, line, column: relative across lines
    for row in lines:
        row = sorted(set(row))
        groups, column = [], 0
        for generated, *original in row:
            deltas = [generated - column] + [o - p for o, p in zip(original, previous,
                                                                   strict=True)]
            groups.append("".join(_vlq(d) for d in deltas))
            column, previous = generated, original
        written.append(",".join(groups))
        expected.append(row)
    assert decode_mappings(";".join(written)) == (expected or [[]])
