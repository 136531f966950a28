"""dbg stack on real perl: the arguments each sub was called with, as perl's
`T` shows them (subs have no named parameters: `$_[0]`...)."""

from __future__ import annotations

from pathlib import Path

from dbgcore.testing import Dbg, marked_lines, require_backend

from dbg_example_plugin.backend import LIBRARY_RE, _perl_list

LEDGER = Path(__file__).resolve().parent / "programs" / "ledger.pl"
LINES = marked_lines(LEDGER)


def test_ts_argument_lists_are_split_at_top_level_commas() -> None:
    assert _perl_list("100, 'a, b', HASH(0x55d0)") == ["100", "'a, b'", "HASH(0x55d0)"]
    assert _perl_list("'it\\'s', 2") == ["'it\\'s'", "2"]
    assert _perl_list("") == []
    found = LIBRARY_RE.match("/usr/share/perl/5.36/List/Util.pm")
    assert found is not None and found.group(1) == "List/Util"
    assert LIBRARY_RE.match(str(LEDGER)) is None


def test_the_stack_shows_the_arguments_of_each_call(dbg: Dbg) -> None:
    require_backend("perl")
    snap = dbg.json("start", "--backend", "perl", "--break", f"ledger.pl:{LINES['fee']}",
                    "--run", str(LEDGER))
    assert snap["ok"] and snap["location"]["line"] == LINES["fee"], snap
    frames = dbg.json("stack")["frames"]
    assert [f["function"] for f in frames] == ["main::fee", "main"], frames
    assert [(a["name"], a["value"]) for a in frames[0]["args"]] == [("$_[0]", "100")]
    assert "args" not in frames[1], frames[1]  # the main program is no sub
    assert dbg("stack").out.splitlines()[1].startswith("> #0  main::fee($_[0]=100) at ")
