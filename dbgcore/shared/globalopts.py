"""dbg's global options (``-s/--session``, ``--json``, ``--reveal``, ``--timeout``) read
from a command line: the one statement of their spellings and of how their
words are read, for every reader of a command line (the fast path's client
in :mod:`dbgcore.entry`, the daemon's side of it, the click CLI).

Users put them before the op (``dbg --timeout 5 continue``) and after it
(``dbg continue --timeout 5``); which words after the op are the globals'
and which are the op's (its own options, a program's arguments) only the op
table can tell (:meth:`dbgcore.vocab.opspec.OpTable.lift_globals`), and it
moves them before the op, where this module reads them.

It imports only the import-free :mod:`dbgcore.shared.timeouts`: the fast
path's client imports it before anything else is loaded.
"""

from __future__ import annotations

from dbgcore.shared.timeouts import timeout_problem

#: The global options that take a value, and those that do not.
VALUE_FLAGS = ("-s", "--session", "--timeout")
JSON_FLAG = "--json"
#: Values shown unmasked for this call (dbgcore.shared.secrets).
REVEAL_FLAG = "--reveal"
BOOL_FLAGS = (JSON_FLAG, REVEAL_FLAG)
#: The environment's setting of the same (DBG_REVEAL=1).
REVEAL_ENV = "DBG_REVEAL"


def reveal_setting(value: str | None) -> bool:
    """Whether DBG_REVEAL's ``value`` turns masking off: 1, true, yes, on."""
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def global_flag(word: str) -> str | None:
    """The global option ``word`` spells (``--timeout=5`` spells
    ``--timeout``), or None."""
    if word in BOOL_FLAGS or word in VALUE_FLAGS:
        return word
    name, eq, _ = word.partition("=")
    return name if eq and name.startswith("--") and name in VALUE_FLAGS else None


def option_at(words: list[str], i: int) -> tuple[str, str | None, int] | None:
    """The global option at ``words[i]``: its flag, its value (None for
    ``--json`` and ``--reveal``; None too when the value is missing) and the index after it;
    None when ``words[i]`` is not one."""
    flag = global_flag(words[i])
    if flag is None:
        return None
    if flag in BOOL_FLAGS:
        return flag, None, i + 1
    _, eq, value = words[i].partition("=")
    if eq:
        return flag, value, i + 1
    if i + 1 >= len(words):
        return flag, None, i + 1
    return flag, words[i + 1], i + 2


def seconds(value: str) -> float | None:
    """A --timeout's value as the click CLI takes it, or None (not a number,
    or out of range: that CLI says what is wrong)."""
    try:
        timeout = float(value)
    except ValueError:
        return None
    return timeout if timeout_problem(timeout) is None else None


def read_globals(words: list[str], session: str, as_json: bool,
                 timeout: float) -> tuple[str, bool, float, int] | None:
    """The global options at the head of ``words`` over the values given:
    (session, --json, --timeout, the index of the first word that is not
    one of them); None when one is not what the click CLI would take as it
    is (a timeout that is not a number or out of range, a missing value),
    which that CLI then explains. Read left to right, so a repeated option's
    last value wins, as click has it."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        found = option_at(words, i)
        if found is None:
            break
        flag, value, i = found
        if flag == JSON_FLAG:
            as_json = True
        elif flag == REVEAL_FLAG:
            pass  # read by whoever calls the op (reveals)
        elif value is None:
            return None
        elif flag == "--timeout":
            given = seconds(value)
            if given is None:
                return None
            timeout = given
        else:
            session = value
    return session, as_json, timeout, i



def reveals(words: list[str]) -> bool:
    """Whether ``--reveal`` is among the global options at the head of ``words``."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        found = option_at(words, i)
        if found is None:
            return False
        if found[0] == REVEAL_FLAG:
            return True
        i = found[2]
    return False
