"""A stack in a pytest test on the Python backends (docs/semantics.md,
"Stacks"): the test's own frames with their arguments, pytest's and
pluggy's hidden and counted in their place, every frame with `--all`, and
frame numbers that do not change between the two."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbgcore.testing import Dbg, require_backend

TEST_FILE = '''\
def helper(text, *rest, sep=",", **kw):
    parts = text.split(sep)  # @helper
    return sum(int(p) for p in parts)


def test_total():
    assert helper("1,2,x") == 3  # @call
'''


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_pytests_frames_are_hidden_and_counted(backend: str, dbg: Dbg, tmp_path: Path) -> None:
    require_backend(backend)
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_x.py").write_text(TEST_FILE)
    snap = dbg.json("start", "--backend", backend, "--cwd", str(project), "--break",
                    "test_x.py:2", "--run", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "test_x.py")
    assert (snap.get("state"), snap["location"]["line"]) == ("stopped", 2), snap

    data = dbg.json("stack")
    assert [(f["index"], f["function"]) for f in data["frames"]] == [
        (0, "helper"), (1, "test_total")], data["frames"]
    assert [(a["name"], a["value"]) for a in data["frames"][0]["args"]] == [
        ("text", "'1,2,x'"), ("rest", "()"), ("sep", "','"), ("kw", "{}")]
    assert data["frames"][1]["args"] == []
    [run] = data["hidden"]
    assert run["first"] == 2 and run["last"] == run["first"] + run["count"] - 1, run
    assert run["count"] >= 20 and {"_pytest", "pluggy"} <= set(run["of"]), run
    assert data["hidden_frames"] == run["count"]

    text = dbg("stack").out.splitlines()
    assert text[1] == "> #0  helper(text='1,2,x', rest=(), sep=',', kw={}) at " \
                      f"{project / 'test_x.py'}:2", text
    assert text[2].startswith("  #1  test_total() at "), text
    assert text[3].startswith(f"   ... {run['count']} frames of _pytest, pluggy"), text
    assert text[3].endswith("(dbg stack --all shows them)"), text

    everything = dbg.json("stack", "--all")
    frames = everything["frames"]
    assert [f["index"] for f in frames] == list(range(len(frames))), frames
    assert frames[:2] == data["frames"] and everything["hidden"] == []
    pytest_frames = frames[2:run["last"] + 1]
    assert all(f["library"] and f["library_name"] for f in pytest_frames), pytest_frames
    assert any("  [library _pytest]" in line for line in dbg("stack", "--all").out.splitlines())

    # up and down move among the frames shown; frame N takes --all's numbers.
    assert dbg.json("up")["frame"]["function"] == "test_total"
    refused = dbg.json("up")
    assert refused["_exit"] == 1 and "outermost frame shown" in refused["error"]["message"]
    hidden = frames[run["first"] + 3]
    chosen = dbg.json("frame", str(hidden["index"]))["frame"]
    assert (chosen["function"], chosen["library"]) == (hidden["function"], True), chosen
    assert chosen.get("args") is not None, chosen
    around = dbg.json("stack")
    assert [f["index"] for f in around["frames"]] == [0, 1, hidden["index"]], around
    assert around["frames"][2]["current"]
    assert [r["count"] for r in around["hidden"]] == [3, run["count"] - 4], around["hidden"]
    assert dbg.json("down")["frame"]["index"] == 1
