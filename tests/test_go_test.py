"""`dbg test` on a Go package: `go test` through delve's test mode, stopping
where a test fails (tests/targets/honest/gotest: one test passes, two fail,
and calc.go has the helper the tests call). dbg runs from another folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test package, copied (dbg runs from the test's own work folder)."""
    shutil.which("go") or pytest.skip("go not installed")
    dest = tmp_path_factory.mktemp("gotest") / "calc"
    shutil.copytree(builds.TARGETS / "honest" / "gotest", dest)
    return dest


@pytest.fixture
def dlv(backend_ready: Callable[[str], None]) -> None:
    backend_ready("dlv")


def marks(package: Path, name: str) -> dict[str, int]:
    return builds.marked_lines(package / name)


def at(stop: dict[str, Any], package: Path, name: str, line: int) -> None:
    assert stop.get("state") == "stopped", stop
    assert os.path.realpath(stop["location"]["file"]) == os.path.realpath(package / name), stop
    assert stop["location"]["line"] == line, stop


def test_failures_stop_at_their_assertion_one_after_the_other(dbg: Dbg, package: Path,
                                                              dlv: None) -> None:
    lines = marks(package, "calc_test.go")
    first = dbg.json("test", str(package))
    assert first["_exit"] == 0, first
    at(first, package, "calc_test.go", lines["first-fail"])
    assert first["reason"] == "exception", first
    assert first["description"] == "TestFirstFails failed: Add(2, 2) = 4, want 5", first
    assert first["location"]["function"] == "calc.TestFirstFails"
    # The test's own frame is the one shown, and its locals are the test's.
    assert dbg.json("print", "got")["value"] == "4"
    stack = dbg.json("stack")["frames"]
    assert next(f for f in stack if f.get("current"))["function"] == "calc.TestFirstFails"
    told = dbg.json("exception")
    assert told["description"] == first["description"], told
    assert told["stack"].splitlines()[-1].endswith(f'line {lines["first-fail"]}, '
                                                   "in calc.TestFirstFails"), told
    # Another frame selected (testing's, where delve stopped): the
    # failure's story is the same.
    shown = next(f["index"] for f in stack if f.get("current"))
    assert dbg.json("frame", "0")["_exit"] == 0
    assert dbg.json("exception")["stack"] == told["stack"]
    assert dbg.json("frame", str(shown))["_exit"] == 0

    # The passing test did not stop; the second failure is next (t.Fatalf).
    second = dbg.json("continue")
    at(second, package, "calc_test.go", lines["second-fail"])
    assert second["description"] == "TestSecondFails failed: Add(3, 3) = 6, want 7", second

    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 1), end


def test_next_from_a_failure_goes_on_in_the_test(dbg: Dbg, package: Path, dlv: None) -> None:
    lines = marks(package, "calc_test.go")
    first = dbg.json("test", str(package), "-run", "TestFirstFails")
    at(first, package, "calc_test.go", lines["first-fail"])
    # Out of testing's Errorf and Fail, not a step inside them.
    after = dbg.json("next")
    assert after["location"]["function"] == "calc.TestFirstFails", after
    assert lines["first-fail"] < after["location"]["line"] <= lines["after-first"], after
    # -run chose one test: the end comes next, with go test's exit code.
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    # A restart runs the tests again, to the failure (not to an entry stop).
    again = dbg.json("restart")
    at(again, package, "calc_test.go", lines["first-fail"])


def test_breakpoint_in_the_package_hits_and_passing_tests_do_not_stop(
        dbg: Dbg, package: Path, dlv: None) -> None:
    helper = marks(package, "calc.go")["helper"]
    stop = dbg.json("test", "--break", f"calc.go:{helper}", str(package), "-run", "TestPasses")
    at(stop, package, "calc.go", helper)
    assert stop["reason"] == "breakpoint", stop
    assert dbg.json("print", "a")["value"] == "1"
    assert dbg.json("unbreak", f"calc.go:{helper}")["ok"]
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
