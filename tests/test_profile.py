"""`dbg profile`, `hot`, `callers`, `callees`: real py-spy and real cProfile
on a slow Python program (tests/targets/slow/regexes.py: a helper, is_word,
compiles a regular expression on every call), recorded into the session
store and asked afterwards. The hottest function is found by both
profilers, with the regex's library frames folded into it; `callers` names
the line of the call; `--pid` samples a program that keeps running; a
program that fails keeps what was recorded; bad input gets one line and a
non-zero exit. A third-party profiler registers through the same hook as
dbg's own."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest
from builds import Target, copy_target
from dbg_profilers.pyspy import parse_raw
from hypothesis import given
from hypothesis import strategies as st

from dbgcore.api import Profile, Profiler, Readiness, RecordRequest, Sample, hookimpl, pyspy
from dbgcore.backends.pluginhost import PluginHost
from dbgcore.backends.profiler import choose
from dbgcore.shared.errors import BackendMissing, UsageError
from dbgcore.testing import Dbg, require, require_backend

#: The SVG namespace, as ElementTree names its elements.
SVG = "{http://www.w3.org/2000/svg}"
#: Seconds the target runs: long enough for ~100 samples, short for a test.
RUN = "1"


@pytest.fixture
def target(tmp_path: Path) -> Target:
    return copy_target("slow/regexes.py", tmp_path)


def _needs_pyspy() -> None:
    require(pyspy.find() is not None, f"py-spy is not installed: {pyspy.INSTALL}")


def _the_hot_spot_is_found(dbg: Dbg, target: Target) -> None:
    """What both profilers must find in the stored profile: is_word first by
    its own time (re's frames folded into it), check_all's line its caller."""
    hot = dbg.json("hot")
    assert hot["ok"] and hot["rows"][0]["function"] == "is_word", hot
    assert hot["rows"][0]["file"] == str(target.path), hot
    assert hot["rows"][0]["self_share"] > 50, hot
    assert hot["folded"]["functions"] > 0, hot
    callers = dbg.json("callers", "is_word")
    assert callers["ok"], callers
    assert callers["sites"][0]["function"] == "check_all", callers
    callees = dbg.json("callees", "is_word")
    names = [site["function"] for site in callees["sites"]]
    assert "compile" in names, callees  # where its time goes: re.compile, each call
    text = dbg("hot").out
    assert "is_word" in text.splitlines()[2] and "folded" in text, text


def test_pyspy_finds_the_hottest_function(dbg: Dbg, target: Target) -> None:
    _needs_pyspy()
    answer = dbg.json("profile", str(target.path), RUN)
    assert answer["ok"] and answer["tool"].startswith("py-spy"), answer
    assert answer["exit_code"] == 0 and answer["weight"] >= 50, answer
    assert answer["top"][0]["function"] == "is_word", answer
    _the_hot_spot_is_found(dbg, target)
    # The flame graph: an SVG file whose widest box over check_all is is_word.
    graph = ElementTree.parse(answer["flamegraph"]).getroot()
    widths: dict[str, float] = {}
    for box in graph.iter(f"{SVG}g"):
        title, rect = box.find(f"{SVG}title"), box.find(f"{SVG}rect")
        assert title is not None and title.text and rect is not None, box
        name = title.text.split(" (")[0]
        widths[name] = max(widths.get(name, 0.0), float(rect.get("width") or 0))
    assert widths["<module>"] > widths["is_word"] > 0.5 * float(graph.get("width") or 0), widths
    assert widths["compile"] < widths["is_word"], widths
    # The call site is the line in check_all that calls is_word.
    site = dbg.json("callers", "is_word")["sites"][0]
    assert site["line"] == target.lines["calls_is_word"], site
    text = dbg("callers", "is_word").out
    assert f"regexes.py:{target.lines['calls_is_word']}" in text, text
    by_line = dbg.json("hot", "--by", "line")["rows"][0]
    assert (by_line["function"], by_line["line"]) == ("is_word", target.lines["compile"]), \
        by_line
    # Unfolded, the regex compiler's own functions are there.
    every = dbg.json("hot", "--all", "--limit", "50")
    assert any(r["library"] == "re" for r in every["rows"]), every
    assert "folded" not in every


def test_cprofile_counts_the_calls(dbg: Dbg, target: Target) -> None:
    answer = dbg.json("profile", "--tool", "cprofile", str(target.path), RUN)
    assert answer["ok"] and answer["tool"].startswith("cprofile"), answer
    assert "flamegraph" not in answer, answer  # call edges, no stacks to draw
    assert answer["top"][0]["function"] == "is_word", answer
    _the_hot_spot_is_found(dbg, target)
    hot = dbg.json("hot")["rows"][0]
    site = dbg.json("callers", "is_word")["sites"][0]
    # Deterministic: every call counted, all of them from check_all (100 words a round).
    assert hot["calls"] == site["calls"] and hot["calls"] % 100 == 0 and hot["calls"] > 0, \
        (hot, site)
    assert "calls" in dbg("hot").out.splitlines()[1]


def test_pid_attach_samples_a_running_program(dbg: Dbg, target: Target) -> None:
    _needs_pyspy()
    proc = subprocess.Popen([sys.executable, str(target.path), "forever"],
                            stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        answer = dbg.json("profile", "--pid", str(proc.pid), "--duration", "1")
        assert answer["ok"] and answer["pid"] == proc.pid, answer
        assert answer["top"][0]["function"] == "is_word", answer
        assert proc.poll() is None  # sampled, not stopped
        # A profiler that cannot attach says so.
        refused = dbg("profile", "--tool", "cprofile", "--pid", str(proc.pid))
        assert refused.code != 0 and "cannot attach" in refused.err, refused
    finally:
        proc.kill()
        proc.wait()
    _the_hot_spot_is_found(dbg, target)


def test_a_failing_program_keeps_what_was_recorded(dbg: Dbg, target: Target) -> None:
    _needs_pyspy()
    answer = dbg.json("profile", str(target.path), "0.5", "crash")
    assert answer["ok"] and answer["exit_code"] == 3, answer
    assert answer["top"][0]["function"] == "is_word", answer
    assert "exited with code 3" in dbg("profile", str(target.path), "0.3", "crash").out
    kept = dbg.json("hot", "--run", str(answer["run"]))
    assert kept["run"] == answer["run"] and kept["rows"][0]["function"] == "is_word", kept
    runs = {r["id"]: r for r in dbg.json("runs")["runs"]}
    assert runs[answer["run"]]["exit_code"] == 3, runs
    # --duration stops a program that would run on, and keeps its samples.
    cut = dbg.json("profile", "--duration", "0.5", str(target.path), "forever")
    assert cut["ok"] and cut["top"][0]["function"] == "is_word", cut
    assert "stopped" in cut.get("note", ""), cut


def test_bad_input_gets_one_line(dbg: Dbg, target: Target, tmp_path: Path) -> None:
    # No profile recorded yet.
    for words in (("hot",), ("callers", "is_word")):
        result = dbg(*words)
        assert result.code != 0 and "no profile recorded" in result.err, result
    cases = {
        ("profile",): "needs a PROGRAM, --pid PID, --url URL, or a live session",
        ("profile", str(tmp_path / "missing.py")): "no such program",
        ("profile", "--tool", "nope", str(target.path)): "unknown profiler 'nope'",
        ("profile", "--duration", "0", str(target.path)): "--duration must be more than 0",
        ("profile", "--duration", "-2", str(target.path)): "--duration must be more than 0",
        ("profile", str(tmp_path)): "no such program",
        # An option the chosen profiler would ignore is refused, not dropped.
        ("profile", "--tool", "cprofile", "--native", str(target.path)):
            "cprofile reads no native frames",
        ("profile", "--tool", "cprofile", "--rate", "50", str(target.path)):
            "takes no sampling rate",
    }
    for words, said in cases.items():
        result = dbg(*words)
        assert result.code != 0 and said in result.err, (words, result)
        assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err, \
            (words, result)
    assert dbg.json("profile", "--tool", "cprofile", str(target.path), "0.2")["ok"]
    result = dbg("callers", "no_such_function")
    assert result.code != 0 and "no function 'no_such_function'" in result.err, result
    assert "is_word" in result.err and len(result.err.strip().splitlines()) == 1, result
    result = dbg("hot", "--by", "module")
    assert result.code != 0 and "--by module" in result.err, result


def test_pyspys_raw_lines_are_read_with_their_process_and_thread_frames() -> None:
    # A process frame is a command line, which may hold ";" and spaces.
    line = ('process 7:"sh -c "$@"; echo $? > /t/code sh python3 a.py";process 8:"python3 a.py";'
            "thread (8): MainThread;<module> (/w/a.py:9);work (/w/a.py:4);"
            "compile (/usr/lib/python3.11/re/__init__.py:227) 5\n"
            "thread (0x7F);idle (/w/a.py:2) 1\n")
    first, second = parse_raw(line)
    assert first.thread == "MainThread" and first.weight == 5.0
    assert [(f.function, f.line, f.library) for f in first.frames] == [
        ("<module>", 9, None), ("work", 4, None), ("compile", 227, "re")]
    assert second.thread == "0x7F" and second.frames[0].function == "idle"


class _Ruby(Profiler):
    """A third party's profiler, as a plugin would write one: it fits .rb
    programs and answers a profile of one stack."""

    id = "ruby-prof"
    languages = ("ruby",)
    extensions = (".rb",)
    install = "gem install ruby-prof"
    installed = True

    @classmethod
    def readiness(cls) -> Readiness:
        return Readiness(cls.installed, "" if cls.installed else "ruby-prof is not installed")

    def record(self, request: RecordRequest) -> Profile:
        return Profile(self.id, "stacks", "samples", [Sample((), 1.0)])


class _RubyPlugin:
    @hookimpl
    def dbg_register_profilers(self, register: Callable[[type[Profiler]], None]) -> None:
        register(_Ruby)


def test_a_plugins_profiler_is_chosen_by_the_programs_kind(dbg: Dbg, tmp_path: Path) -> None:
    host = PluginHost(load_entry_points=False)
    host.pm.register(_RubyPlugin(), name="ruby")
    host.pm.register(__import__("dbg_profilers"), name="profilers")
    found = host.profilers()
    # Each plugin's in turn (pluggy calls the last registered first): jdb's jfr
    # is built in, registered with the host.
    assert list(found) == ["jfr", "ruby-prof", "py-spy", "cprofile"], found
    # `dbg plugins` says which plugin brought which (dbg's own: by its entry point).
    assert "profilers py-spy, cprofile" in dbg("plugins").out
    script = tmp_path / "tool"
    script.write_text("#!/usr/bin/env ruby\nputs 1\n")
    assert choose(found, None, script, None) is _Ruby
    assert choose(found, None, tmp_path / "slow.py", None).id == "py-spy"
    assert choose(found, "cprofile", tmp_path / "slow.py", None).id == "cprofile"
    with pytest.raises(UsageError, match="no profiler fits"):
        choose(found, None, tmp_path / "prog.go", None)
    _Ruby.installed = False
    try:
        with pytest.raises(BackendMissing, match="ruby-prof is not installed") as refused:
            choose(found, None, script, None)
        assert refused.value.hint == "gem install ruby-prof"
    finally:
        _Ruby.installed = True


def test_profile_diff_shows_the_fix(dbg: Dbg, target: Target) -> None:
    # A fixed work, counted exactly: before the fix, and after it (one pattern).
    runs = [dbg.json("profile", "--tool", "cprofile", str(target.path), "rounds=300", *fix)
            for fix in ((), ("fixed",))]
    assert all(r["ok"] for r in runs), runs
    before, after = (str(r["run"]) for r in runs)
    answer = dbg.json("profile", "diff", before, after)
    assert answer["ok"] and answer["op"] == "profile", answer
    first = answer["changes"][0]
    # The fix takes about two thirds of is_word's time away; cProfile's
    # times move with the machine's load (2.97 x was seen on a loaded one).
    assert first["function"] == "is_word" and first["after"] < first["before"] / 2, answer
    assert dbg.json("profile-diff", before, after)["changes"][0] == first
    text = dbg("profile", "diff", before, after).out
    row = text.splitlines()[2].split()
    assert row[3:5] == ["is_word", "regexes.py"] and row[2].startswith("-"), text
    result = dbg("profile", "diff", before)
    assert result.code != 0 and "needs two runs" in result.err, result


def test_a_profile_beside_a_live_session_hides_none_of_its_stops(dbg: Dbg,
                                                                  target: Target) -> None:
    # A profile is a run of the session's name in the store; `dbg hits`
    # still reads the debugging session's stops.
    require_backend("pdb")
    started = dbg.json("start", "--backend", "pdb", str(target.path), "0.1", timeout=120)
    assert started["ok"], started
    try:
        stops = dbg.json("hits")
        assert stops["ok"] and stops["total"] >= 1, stops
        assert dbg.json("profile", "--tool", "cprofile", str(target.path), "0.2")["ok"]
        assert dbg.json("hits")["hits"] == stops["hits"]
        # What reads the session's latest run (calls, history, diff) reads its own.
        runs = dbg.json("runs")["runs"]
        assert [r["program"] for r in runs] == [str(target.path)] * 2, runs
        calls = dbg.json("calls")
        assert calls["ok"] and calls["run"] == runs[0]["id"], calls
        assert dbg.json("status")["ok"]  # the session is untouched
    finally:
        dbg("kill")


_NAMES = st.text(alphabet=st.sampled_from("abcxyz_.<>0123456789 "), min_size=1,
                 max_size=12).filter(lambda n: n.strip() == n)
_FILES = st.lists(st.sampled_from(["w", "lib", "src", "a b"]), min_size=1, max_size=3).map(
    lambda parts: "/" + "/".join(parts) + ".py")


@given(st.lists(st.lists(st.tuples(_NAMES, _FILES, st.integers(1, 10**6)), min_size=1,
                         max_size=6), min_size=1, max_size=5),
       st.integers(1, 10**6), st.sampled_from(["MainThread", "worker 2", ""]))
def test_pyspys_raw_lines_read_back_what_was_written(
        stacks: list[list[tuple[str, str, int]]], count: int, thread: str) -> None:
    head = f"thread (42): {thread};" if thread else "thread (42);"
    text = "".join(head + ";".join(f"{n} ({f}:{line})" for n, f, line in stack) + f" {count}\n"
                   for stack in stacks)
    samples = parse_raw(text)
    assert [[(f.function, f.file, f.line) for f in s.frames] for s in samples] == stacks
    assert all(s.weight == count and s.thread == (thread or "42") for s in samples)


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_profile_in_a_live_session(backend: str, dbg: Dbg, target: Target) -> None:
    # A stopped program runs for the profile and is paused again; a running
    # one is sampled as it runs and left running.
    _needs_pyspy()
    require_backend(backend)
    started = dbg.json("start", "--backend", backend, str(target.path), "30", timeout=120)
    assert started["ok"] and started["state"] == "stopped", started
    pids = dbg.json("status")["pids"]
    answer = dbg.json("profile", "--duration", "1")
    assert answer["ok"] and answer["program"] == f"process {pids[0]}", answer
    assert answer["top"][0]["function"] == "is_word", answer
    assert "was stopped at regexes.py:" in answer["note"], answer
    assert "paused again at " in answer["note"], answer
    # debugpy's own threads, waiting on its socket, are not the program's time.
    assert ("debugpy's own threads left out" in answer["note"]) == (backend == "debugpy")
    status = dbg.json("status")
    assert status["state"] == "stopped" and status["location"]["line"], status

    running = dbg.json("--timeout", "0.5", "continue")
    assert running["state"] == "running", running
    again = dbg.json("profile", "--duration", "1")
    assert again["ok"] and "paused again" not in again.get("note", ""), again
    assert dbg.json("status")["state"] == "running"


def test_profile_with_no_program_and_no_session_says_what_it_needs(dbg: Dbg) -> None:
    result = dbg("profile")
    assert result.code == 2 and "needs a PROGRAM, --pid PID, --url URL, or a live session" in result.err
