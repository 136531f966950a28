"""jdb's prompts, as its parser reads them (plugins/dbg_jdb/parse.py), on
text jdb was seen to print."""

from __future__ import annotations

import pytest
from dbg_jdb.parse import PROMPT_RE, RUNNING_PROMPT_RE, STOPPED_PROMPT_RE

CONNECTED = ("\r\nSet uncaught java.lang.Throwable\r\nInitializing jdb ...\r\n> \r\n"
             "VM Started: No frames on the current call stack\r\n\r\n")


@pytest.mark.parametrize("text, thread", [
    (CONNECTED + "main[1] ", ("main[1] ", "1")),
    # Under load jdb once printed its prompt twice on one line, without "> "
    # before it; reading stopped at the line's start and waited 30 s.
    (CONNECTED.replace("> \r\n", "") + "main[1] main[1] ", ("main[1] ", "1")),
    ("Step completed: ...\r\n> main[2] ", ("main[2] ", "2")),
])
def test_the_stopped_prompt_is_the_last_on_the_line(text: str, thread: tuple[str, str]) -> None:
    found = STOPPED_PROMPT_RE.search(text)
    assert found is not None and found.groups() == thread
    assert PROMPT_RE.search(text).groups() == thread  # type: ignore[union-attr]


@pytest.mark.parametrize("text", [
    "Breakpoint hit: \"thread=main\", Ledger.main(), line=28 bci=0\r\n",
    "args = instance of java.lang.String[0] (id=414)\r\n",
    "VM Started: \r\n> ",
])
def test_text_that_is_no_stopped_prompt(text: str) -> None:
    assert STOPPED_PROMPT_RE.search(text) is None


def test_the_running_prompt() -> None:
    assert RUNNING_PROMPT_RE.search("cont\r\n> ") is not None
    assert PROMPT_RE.search("cont\r\n> ").groups() == ("> ", None)  # type: ignore[union-attr]
