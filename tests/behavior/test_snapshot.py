"""The stop snapshot made for reading, the same on every backend: the locals
the line uses first, changed ones marked, a byte budget, values asked for
with --show and `dbg display`, several expressions in one `dbg print`."""

from __future__ import annotations

from twins import Program, caps_of


def names(snap: dict) -> list[str]:
    return [v["name"] for v in snap["locals"]]


def value(snap: dict, name: str) -> str:
    return next(v["value"] for v in snap["locals"] if v["name"] == name)


def test_locals_the_line_uses_come_first_and_changes_are_marked(prog: Program) -> None:
    first = prog.start(breaks=(prog.at("loop"),), run=True)
    prog.stopped_at(first, "loop")
    # `total += i * 100`: total, then i, before anything else.
    assert names(first)[:2] == ["total", "i"], first["locals"]
    # The first stop in a frame marks nothing.
    assert not any(v.get("changed") for v in first["locals"]), first["locals"]

    second = prog.dbg.json("continue")
    prog.stopped_at(second, "loop")
    changed = {v["name"] for v in second["locals"] if v.get("changed")}
    assert "i" in changed and value(second, "i") == "1", second["locals"]
    # total was 0 and stays 0 after i == 0: not changed.
    assert "total" not in changed, second["locals"]
    text = prog.dbg("continue").out
    marked = [line for line in text.splitlines() if line.startswith("* ")]
    assert any(line.startswith("* i = 2") for line in marked), text
    assert any(line.startswith("* total = 100") for line in marked), text


def test_a_typical_stop_is_short(prog: Program) -> None:
    prog.stopped_at(prog.start(breaks=(prog.at("fee"),), run=True), "fee")
    text = prog.dbg("next").out
    # Under 600 bytes, not counting the folder the program happens to be in.
    assert len(text.replace(str(prog.root) + "/", "").encode()) < 600, text
    assert "amount = 1000" in text, text


def test_show_and_display_add_values_at_stops(prog: Program) -> None:
    snap = prog.start(breaks=(prog.at("loop"),), run=True, options=("--show", "total + 1"))
    prog.stopped_at(snap, "loop")
    assert [(s["expression"], s.get("value")) for s in snap["shown"]] == [("total + 1", "1")]
    added = prog.dbg.json("display", "i * 10")
    assert added["display"] == [{"number": 1, "expression": "i * 10"}], added
    snap = prog.dbg.json("continue", "--show", "i + 100")
    shown = [(s["expression"], s.get("value")) for s in snap["shown"]]
    assert shown == [("i * 10", "10"), ("i + 100", "101")], snap["shown"]
    text = prog.dbg("continue").out
    assert "i * 10 = 20" in text and "i + 100" not in text, text
    assert prog.dbg.json("undisplay", "1")["display"] == []
    assert prog.dbg.json("next").get("shown") == []
    assert prog.dbg.json("undisplay", "7")["error"]["kind"] == "failed"


def test_print_answers_several_expressions(prog: Program) -> None:
    prog.stopped_at(prog.start(breaks=(prog.at("loop"),), run=True), "loop")
    data = prog.dbg.json("print", "total; i + 1; no_such_name")
    assert data["_exit"] == 0, data
    rows = data["values"]
    assert [r["expression"] for r in rows] == ["total", "i + 1", "no_such_name"], rows
    assert (rows[0]["value"], rows[1]["value"]) == ("0", "1"), rows
    assert rows[2]["error"] and "value" not in rows[2], rows
    # One expression keeps its plain answer, and still fails on its own.
    assert prog.dbg.json("print", "i + 1")["value"] == "1"
    assert prog.dbg.json("print", "no_such_name")["_exit"] == 1


def test_stdin_is_given_or_refused_as_caps_says(prog: Program, tmp_path) -> None:
    feed = tmp_path / "feed.txt"
    feed.write_text("1\n")
    if caps_of(prog.twin.backend)["stdin"] != "none":
        # The program reads the file; `dbg input` has nothing to write to then.
        assert prog.start(options=("--stdin", str(feed)))["ok"]
        typed = prog.dbg.json("input", "hello")
        assert typed["_exit"] == 1 and str(feed) in typed["error"]["message"], typed
        assert prog.dbg.json("kill")["ok"]
        # Without a file, the program reads what `dbg input` sends.
        assert prog.start()["ok"]
        sent = prog.dbg.json("input", "hello")
        assert (sent["_exit"], sent["sent"]) == (0, 6), sent
        assert prog.dbg.json("status")["state"] == "stopped"
        return
    refused = prog.start(options=("--stdin", str(feed)))
    assert (refused["_exit"], refused["error"]["kind"]) == (3, "unsupported"), refused
    assert "stdin" in refused["error"]["message"], refused
    assert prog.dbg("status").code != 0  # no session was left behind
    assert prog.start()["ok"]
    typed = prog.dbg.json("input", "hello")
    assert (typed["_exit"], typed["error"]["kind"]) == (3, "unsupported"), typed
    assert prog.dbg.json("status")["state"] == "stopped"
