"""The perl backend on real perl, through dbg's testing kit (dbgcore.testing):
the kit's backend suite, then what is particular to Perl and perl5db."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from dbgcore.testing import BackendSuite, Dbg, marked_lines, require_backend

PROGRAMS = Path(__file__).resolve().parent / "programs"
LEDGER = PROGRAMS / "ledger.pl"
LINES = marked_lines(LEDGER)
MONEY = marked_lines(PROGRAMS / "lib" / "Money.pm")


class TestPerlSuite(BackendSuite):
    """The kit's suite: what every dbg backend owes its users."""

    backend = "perl"
    program = LEDGER


@pytest.fixture
def perl(dbg: Dbg) -> Dbg:
    require_backend("perl")
    return dbg


def start(dbg: Dbg, *options: str) -> dict[str, Any]:
    snap = dbg.json("start", *options, str(LEDGER))
    assert snap["ok"] and snap["via"]["tool"] == "perl", snap
    return snap


def test_a_pl_file_picks_perl_and_locals_are_written_like_print(perl: Dbg) -> None:
    snap = start(perl, "--break", f"ledger.pl:{LINES['loop']}", "--run")
    values = {v["name"]: v["value"] for v in snap["locals"]}
    assert values["%account"] == '{"entries" => [3,4],"owner" => "ada"}', values
    printed = perl.json("print", "%account")
    assert printed["value"] == values["%account"], printed
    assert perl.json("print", "$account{entries}[1] * 10")["value"] == "40"


def test_break_by_subroutine_and_in_a_module_by_its_file_name(perl: Dbg) -> None:
    start(perl)
    fee = perl.json("break", "fee")
    assert fee["breakpoint"]["line"] == LINES["fee"], fee  # the body's first statement
    cents = perl.json("break", f"Money.pm:{MONEY['cents']}")
    assert cents["ok"] and cents["breakpoint"]["file"].endswith("lib/Money.pm"), cents
    first = perl.json("continue")
    assert (first["reason"], first["location"]["function"]) == ("breakpoint", "main::fee"), first
    second = perl.json("continue")
    assert second["location"]["function"] == "Money::cents", second
    assert second["location"]["line"] == MONEY["cents"], second
    frames = perl.json("stack")["frames"]
    assert [f["function"] for f in frames] == ["Money::cents", "main"], frames
    assert frames[1]["line"] == LINES["call-fee"] + 2, frames


def test_a_condition_and_removing_a_breakpoint(perl: Dbg) -> None:
    start(perl)
    loop = perl.json("break", f"ledger.pl:{LINES['loop']}", "--if", "$i == 2")
    stop = perl.json("continue")
    assert stop["location"]["line"] == LINES["loop"], stop
    assert perl.json("print", "$i")["value"] == "2"
    assert perl("unbreak", str(loop["breakpoint"]["id"])).code == 0
    done = perl.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 0, done
    assert "total 6 cost 3 cents 300 halves 3 3" in perl.output("stdout")


def test_finish_returns_a_list_and_set_changes_a_lexical(perl: Dbg) -> None:
    start(perl, "--break", f"ledger.pl:{LINES['split']}", "--run")
    assert perl.json("set", "$total", "10")["value"] == "10"
    back = perl.json("finish")
    assert back["return_value"]["value"] == "(5, 5)", back


def test_what_perl_cannot_do_is_refused_with_the_way_round(perl: Dbg) -> None:
    start(perl, "--break", "fee", "--run")
    for argv in (["watch", "$total"], ["break", "ledger.pl:23", "--hit", "2"], ["frame", "1"],
                 ["until"]):
        refused = perl(*argv)
        assert refused.code == 3 and "perl" in refused.err and "dbg raw" in refused.err, refused
    missing = perl("break", "nosuch")
    assert missing.code == 1 and "Subroutine main::nosuch not found" in missing.err, missing
    assert perl("break", "ledger.pl:2").code == 1  # a comment: no code
    assert perl.json("raw", "p $_[0]")["output"] == "100"  # the argument fee was given


def test_pause_stops_a_running_program(perl: Dbg) -> None:
    assert perl("start", str(LEDGER), "spin").code == 0
    running = perl.json("--timeout", "1", "continue")
    assert running["state"] == "running", running
    time.sleep(0.3)
    paused = perl.json("pause")
    assert paused["state"] == "stopped" and paused["reason"] == "pause", paused
    assert paused["location"]["line"] == LINES["spin"], paused
    assert int(perl.json("print", "$turns")["value"]) > 0


def test_many_lexicals_are_all_listed(perl: Dbg, tmp_path: Path) -> None:
    # perl5db takes a command as one terminal line; the values are asked in parts.
    script = tmp_path / "many.pl"
    script.write_text("".join(f"my $v{n} = {n};\n" for n in range(120)) + "print $v7, \"\\n\";\n")
    snap = perl.json("start", "--break", "many.pl:121", "--run", str(script))
    assert snap["ok"], snap
    listed = perl.json("locals")["variables"]
    assert {v["name"]: v["value"] for v in listed} == {f"$v{n}": str(n) for n in range(120)}
