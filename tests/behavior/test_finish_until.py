"""finish and until mean one thing (docs/semantics.md, "Execution"), and
stacks show the program's own frames."""

from __future__ import annotations

from twins import Program, caps_of

RETURNED = {"py": "1020", "c": "1020", "go": "1020", "java": "1020"}


def test_finish_stops_in_the_caller_and_leads_with_the_return_value(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("fee"),), run=True)["ok"]
    result = prog.dbg("--json", "finish")
    data = result.json
    if caps_of(prog.twin.backend).get("return-value") == "none":
        assert data["ok"] and data["return_value"] is None, data
    else:
        returned = data.get("return_value") or {}
        assert returned.get("value") == RETURNED[prog.twin.language], data
        assert returned.get("kind") == "returned", data
    prog.stopped_at(data, "call-fee")
    assert data["location"]["function"] == prog.twin.caller, data


def test_finish_text_leads_with_returned(prog: Program) -> None:
    if caps_of(prog.twin.backend).get("return-value") == "none":
        return
    assert prog.start(breaks=(prog.at("fee"),), run=True)["ok"]
    out = prog.dbg("finish").out.splitlines()
    assert out[1].startswith(f"returned: {RETURNED[prog.twin.language]}"), out


def test_finish_runs_the_selected_frame_to_its_return(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("late", "late"),), run=True)["ok"]
    up = prog.dbg.json("up")
    assert up["ok"] and up["frame"]["line"] == prog.line("call-late"), up
    data = prog.dbg.json("finish")
    assert data["ok"], data
    prog.stopped_at(data, "after-gen")
    assert data["location"]["function"] == prog.twin.caller, data


def test_finish_in_the_outermost_frame_is_an_error_that_moves_nothing(prog: Program) -> None:
    mark = prog.twin.outermost
    assert prog.start(breaks=(prog.at(mark),), run=True)["ok"]
    result = prog.dbg("--json", "finish")
    assert (result.code, result.json["error"]["kind"]) == (1, "failed"), result
    assert "outermost" in result.json["error"]["message"]
    status = prog.dbg.json("status")
    assert (status["state"], status["location"]["line"]) == ("stopped", prog.line(mark)), status
    assert prog.dbg.json("next")["ok"]


def test_finish_out_of_a_generator_says_what_it_yielded(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("yield"),), run=True)["ok"]
    data = prog.dbg.json("finish")
    assert data["ok"] and data["state"] == "stopped", data
    assert data["location"]["function"] == prog.twin.caller, data
    assert data["location"]["line"] in (prog.line("call-gen"), prog.line("after-gen")), data
    if caps_of(prog.twin.backend).get("return-value") != "none":
        expected = "yielded" if prog.twin.yields else "returned"
        assert (data["return_value"]["kind"], data["return_value"]["value"]) == (expected,
                                                                                "0"), data


def test_until_runs_to_a_line_ahead(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("main-first"),), run=True)["ok"]
    data = prog.dbg.json("until", prog.at("call-fee"))
    prog.stopped_at(data, "call-fee")
    assert data["reason"] == "until", data


def test_until_a_line_behind_is_refused_and_moves_nothing(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("call-fee"),), run=True)["ok"]
    result = prog.dbg("--json", "until", prog.at("loop"))
    assert (result.code, result.json["error"]["kind"]) == (1, "failed"), result
    assert "behind" in result.json["error"]["message"]
    status = prog.dbg.json("status")
    assert status["location"]["line"] == prog.line("call-fee"), status
    assert [b["id"] for b in prog.dbg.json("breaks")["breakpoints"]] == [1]


def test_until_a_line_without_code_is_refused_and_moves_nothing(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("main-first"),), run=True)["ok"]
    result = prog.dbg("--json", "until", prog.at("no-code"))
    assert (result.code, result.json["error"]["kind"]) == (1, "failed"), result
    assert "no code" in result.json["error"]["message"]
    status = prog.dbg.json("status")
    assert status["location"]["line"] == prog.line("main-first"), status
    assert [b["id"] for b in prog.dbg.json("breaks")["breakpoints"]] == [1]
    prog.stopped_at(prog.dbg.json("until", prog.at("call-fee")), "call-fee")


def test_stacks_end_at_the_programs_own_entry(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("fee"),), run=True)["ok"]
    frames = prog.dbg.json("stack")["frames"]
    expected = [prog.twin.fee, prog.twin.caller]
    if prog.twin.entry != prog.twin.caller:
        expected.append(prog.twin.entry)  # Python: the module's own code calls main()
    assert [f["function"] for f in frames] == expected, frames
    everything = prog.dbg.json("stack", "--all")["frames"]
    assert everything[:len(frames)] == frames
    assert all(not f["internal"] for f in frames), frames
