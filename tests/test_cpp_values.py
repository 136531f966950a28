"""C++ values on gdb and lldb-dap as the language reads them: a reference
is what it refers to, a container shows its elements
(tests/targets/native/accounts.cpp)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.mark.parametrize("native", ["gdb", "lldb"])
def test_references_and_containers_print_as_their_contents(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    accounts = target("native/accounts.cpp")
    binary = builds.build_c(accounts.path)
    snap = dbg.json("start", "--backend", native, "--break", accounts.loc("audit"), "--run",
                    str(binary))
    assert snap["location"]["line"] == accounts.lines["audit"], snap

    # A const reference: the Account, not its address.
    account = dbg.json("print", "account")
    assert account["value"] == '{owner = "ada", balance = 42}', account
    assert account["type"].endswith("&"), account
    assert dbg.json("print", "account.owner")["value"] == '"ada"'

    # A vector by reference and by value: its first twelve elements, and
    # that there are more (15 after the push_back).
    expected = "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ...}"
    log = dbg.json("print", "log")["value"]
    assert log.endswith(expected) and "15" in log.removesuffix(expected), log
    dbg.json("up")
    assert dbg.json("print", "audit_log")["value"] == log
    # A struct is shown as before: its fields.
    assert dbg.json("print", "mine")["value"] == '{owner = "ada", balance = 42}'
