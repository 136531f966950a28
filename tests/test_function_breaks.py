"""A function breakpoint on a name nothing defines, on all eight backends,
at start (`start --break`) and after it (`break`): one rule everywhere.

Refused (exit 1, nothing set) where everything the name could bind to has
been searched and nothing can load later that the debugger would bind: pdb
(pdb resolves the name when it is set and never binds later), dlv (a Go
binary holds all its code), jdb (the main class is loaded), node (dbg
searches all the program's JavaScript), perl (a subroutine must be compiled
first), debugpy (as pdb: a name in none of the program's sources nor in
scope where it is stopped). Pending, with the reason, where code the
debugger will bind can still load: gdb and lldb (shared libraries).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "behavior"))
from twins import TWINS, build_twin

if TYPE_CHECKING:
    from conftest import Dbg

CONTRIB = Path(__file__).resolve().parent.parent / "contrib"
REFUSED = ["pdb", "debugpy", "dlv", "jdb", "node", "perl"]
PENDING = ["gdb", "lldb"]
NAME = "no_such_fn"


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    built: dict[str, Path] = {}

    def get(backend: str) -> Path:
        if backend not in built:
            root = tmp_path_factory.mktemp(backend) / "prog"
            if backend == "node":
                shutil.copytree(CONTRIB / "dbg-node/tests/programs/ledger", root)
                built[backend] = root / "ledger.js"
            elif backend == "perl":
                shutil.copytree(CONTRIB / "dbg-example-plugin/tests/programs", root)
                built[backend] = root / "ledger.pl"
            else:
                built[backend] = build_twin(TWINS[backend].language, root)
        return built[backend]

    return get


def _start(dbg: Dbg, backend: str, program: Path, *extra: str) -> Any:
    return dbg("-s", backend, "--timeout", "60", "start", "--backend", backend, *extra,
               str(program), timeout=120)


@pytest.mark.parametrize("backend", REFUSED + PENDING)
def test_a_function_nothing_defines(module_dbg: Dbg, programs: Any, backend_ready: Any,
                                    backend: str) -> None:
    backend_ready(backend)
    program = programs(backend)
    at_start = _start(module_dbg, backend, program, "--break", NAME)
    assert "Traceback" not in at_start.out + at_start.err, at_start
    if backend in REFUSED:
        assert at_start.code == 1, at_start
        assert at_start.err.startswith(f"error: --break {NAME}: ") and NAME in at_start.err
        # At once after the failed start: no session (not its closing debugger).
        after = module_dbg.json("-s", backend, "breaks")
        assert after["error"]["kind"] == "no_session", after
        started = _start(module_dbg, backend, program)
        assert started.code == 0, started
        refused = module_dbg("-s", backend, "break", NAME)
        assert refused.code == 1 and refused.err.startswith("error: "), refused
        assert NAME in refused.err, refused
        assert module_dbg.json("-s", backend, "breaks")["breakpoints"] == []
    else:
        assert at_start.code == 0, at_start
        for listed in (module_dbg.json("-s", backend, "breaks")["breakpoints"],):
            (bp,) = listed
            assert (bp["verified"], bp["function"].endswith(NAME)) == (False, True), bp
            assert bp["message"], bp  # the reason
        assert "[pending: " in module_dbg("-s", backend, "breaks").out
        module_dbg("-s", backend, "kill")
        assert _start(module_dbg, backend, program).code == 0
        placed = module_dbg.json("-s", backend, "break", NAME)
        assert placed["ok"] and placed["breakpoint"]["verified"] is False, placed
        assert placed["breakpoint"]["message"], placed
        (bp,) = module_dbg.json("-s", backend, "breaks")["breakpoints"]
        assert bp["verified"] is False and bp["message"], bp
    # The session goes on: a real function still binds.
    fee = module_dbg.json("-s", backend, "break", TWINS[backend].fee if backend in TWINS
                          else "fee")
    assert fee["ok"], fee
    module_dbg("-s", backend, "kill")


def test_debugpy_names_with_a_module_or_a_class(module_dbg: Dbg, programs: Any,
                                                backend_ready: Any) -> None:
    # pydevd matches a bare code name only: `mod!f` and `C.m` are placed as
    # line breakpoints from the program's sources, or refused; never sent as
    # names that could not stop.
    backend_ready("debugpy")
    program = programs("debugpy")
    assert _start(module_dbg, "debugpy", program).code == 0
    placed = module_dbg.json("-s", "debugpy", "break", "fmt!money")["breakpoint"]
    assert placed["file"].endswith("util/fmt.py") and placed["verified"], placed
    fee = module_dbg.json("-s", "debugpy", "break", "ledger!fee")["breakpoint"]
    assert fee["verified"] is True, fee
    for name in ("json!dumps", "Nope.method", "fmt!no_such_fn", "dumps"):
        refused = module_dbg("-s", "debugpy", "break", name)
        assert refused.code == 1 and "in the program's sources" in refused.err, refused
    stop = module_dbg.json("-s", "debugpy", "continue")
    assert stop["location"]["function"] == "fee", stop
    module_dbg("-s", "debugpy", "kill")


def test_jdb_a_class_not_loaded_yet(module_dbg: Dbg, programs: Any, backend_ready: Any) -> None:
    # A class of the program's sources without the method: refused now (jdb
    # would fail the deferred breakpoint at the class's load and stop there);
    # a class found nowhere may still load: pending, with the reason.
    backend_ready("jdb")
    program = programs("jdb")
    assert _start(module_dbg, "jdb", program).code == 0
    refused = module_dbg("-s", "jdb", "break", "Late.nope")
    assert refused.code == 1 and "no method nope in Late" in refused.err, refused
    pending = module_dbg.json("-s", "jdb", "break", "NoSuch.fn")["breakpoint"]
    assert pending["verified"] is False and "not loaded yet" in pending["message"], pending
    late = module_dbg.json("-s", "jdb", "break", "Late.check")["breakpoint"]
    stop = module_dbg.json("-s", "jdb", "continue")
    assert stop["ok"] and stop["location"]["function"] == "Late.check", stop
    assert [b["id"] for b in module_dbg.json("-s", "jdb", "breaks")["breakpoints"]] == \
        [pending["id"], late["id"]]
    module_dbg("-s", "jdb", "kill")


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_python_a_function_of_a_module_not_imported_yet(module_dbg: Dbg, programs: Any,
                                                        backend_ready: Any, backend: str) -> None:
    # At the entry stop util/fmt.py is not imported: both Python backends find
    # `money` in the program's sources (pdb alone would refuse the name).
    backend_ready(backend)
    assert _start(module_dbg, backend, programs(backend)).code == 0
    placed = module_dbg.json("-s", backend, "break", "money")
    assert placed["ok"] and placed["breakpoint"]["file"].endswith("util/fmt.py"), placed
    stop = module_dbg.json("-s", backend, "continue")
    assert stop["location"]["function"] == "money", stop
    module_dbg("-s", backend, "kill")


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_python_a_library_function_in_scope(module_dbg: Dbg, backend_ready: Any,
                                            backend: str) -> None:
    # Not in the program's sources: bound where the stop has it in scope (pdb
    # resolves it there; pydevd then matches its name), refused before.
    backend_ready(backend)
    program = module_dbg.cwd / f"lib_{backend}.py"
    program.write_text("from json import dumps\nprint(dumps([1]))\n")
    assert _start(module_dbg, backend, program).code == 0
    assert module_dbg("-s", backend, "break", "dumps").code == 1  # not imported yet
    module_dbg.json("-s", backend, "next")
    placed = module_dbg.json("-s", backend, "break", "dumps")
    assert placed["ok"], placed
    stop = module_dbg.json("-s", backend, "continue")
    assert stop["location"]["function"] == "dumps", stop
    module_dbg("-s", backend, "kill")
