"""`dbg test` on Ruby: rspec and minitest under rdbg stop where a test
fails, at the test's own line (not inside the runner or the assertion
library), with its locals; a skip is no failure (issue 42, part 1)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import builds
import pytest

pytestmark = pytest.mark.backend("rdbg")

SHOP = builds.TARGETS / "ruby" / "shop"


@pytest.fixture
def shop(tmp_path: Path, backend_ready: Callable[[str], None]) -> Path:
    backend_ready("rdbg")
    folder = tmp_path / "shop"
    shutil.copytree(SHOP, folder)
    return folder


def test_rspec_stops_at_the_failing_expectation(dbg: Any, shop: Path) -> None:
    builds._need("rspec")
    spec = shop / "spec" / "cart_spec.rb"
    line = builds.marked_lines(spec)["fails"]
    stop = dbg.json("test", "spec/cart_spec.rb", cwd=shop)
    assert stop["_exit"] == 0 and stop["via"]["tool"] == "rdbg", stop
    assert (stop["reason"], stop["location"]["file"], stop["location"]["line"]) == \
        ("exception", str(spec), line), stop
    assert stop["description"].startswith("RSpec::Expectations::ExpectationNotMetError: "
                                           "expected: 5"), stop["description"]
    cart = next(v for v in stop["locals"] if v["name"] == "cart")
    assert '@items=[["pear", 5, 2]]' in cart["value"], cart
    stack = dbg.json("stack")
    # rspec's frames are libraries', hidden and counted; the test's is selected.
    current = next(f for f in stack["frames"] if f["current"])
    assert (current["file"], current["line"]) == (str(spec), line), stack
    assert not [f for f in stack["frames"] if f["file"] == shutil.which("rspec")], stack
    assert dbg.json("print", "cart.total")["value"] == "10"
    end = dbg.json("continue")
    assert (end["state"], end.get("exit_code")) == ("exited", 1), end  # one test failed
    assert dbg.json("kill")["_exit"] == 0


def test_minitest_stops_at_the_failing_assertion_and_not_at_a_skip(
        dbg: Any, shop: Path) -> None:
    test = shop / "test" / "test_cart.rb"
    line = builds.marked_lines(test)["fails"]
    stop = dbg.json("test", "--cwd", str(shop), "test/test_cart.rb")
    assert stop["_exit"] == 0, stop
    assert (stop["reason"], stop["location"]["file"], stop["location"]["line"]) == \
        ("exception", str(test), line), stop
    assert stop["location"]["function"] == "TestCart#test_quantity"
    assert stop["description"].startswith("Minitest::Assertion: Expected: 5"), stop
    # test_later skips (Minitest::Skip is an Assertion too): no stop there.
    end = dbg.json("continue")
    assert (end["state"], end.get("exit_code")) == ("exited", 1), end
    assert "1 failures, 0 errors, 1 skips" in dbg.output("stdout")
    assert dbg.json("kill")["_exit"] == 0


def test_a_ruby_test_run_refuses_python_options(dbg: Any, shop: Path) -> None:
    result = dbg("test", "--python", "/usr/bin/python3", "test/test_cart.rb", cwd=shop)
    assert result.code == 2, result
    assert "--python is for Python tests; this is a Ruby test run (minitest)" in result.err
