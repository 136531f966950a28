"""The one default and the one check of a ``--timeout`` (CLI, fast path, MCP, the daemon's
requests): a number of seconds, more than 0 and at most a day.

Kept free of imports, because :mod:`dbgcore.entry` (the fast path, which
imports nothing it can avoid) uses it before anything else is loaded.
"""

from __future__ import annotations

#: The longest wait a command may ask for. A socket's timeout must fit the
#: platform's time_t (1e10 s already does not), and no stop is awaited for
#: longer than a day by anyone who meant it.
MAX_TIMEOUT = 86400.0

#: Seconds an op waits (for a stop, for the debugger's answer) when the caller
#: gives no timeout: the CLI's `--timeout` default, the MCP tools', the daemon's.
DEFAULT_TIMEOUT = 30.0


def timeout_problem(value: object, name: str = "--timeout") -> str | None:
    """None when ``value`` is a usable timeout, else the one line that says
    why not (NaN, infinities, 0, negatives and huge values all fail the
    range test)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        from dbgcore.shared.bounds import shortened  # only on this error: the import-free rule

        # One line, whatever was given (MCP's 5000 digits).
        return f"{name} must be a number of seconds, not {shortened(repr(value), 24)}"
    if not 0 < value <= MAX_TIMEOUT:
        from dbgcore.shared.bounds import shown_number

        shown = f"{value:g}" if isinstance(value, float) else shown_number(value)
        return (f"{name} must be more than 0 and at most {MAX_TIMEOUT:g} seconds (a day), "
                f"not {shown}")
    return None


def check_timeout(value: object, name: str = "--timeout") -> float:
    """``value`` as a number of seconds to wait, or a UsageError whose
    message is :func:`timeout_problem`'s line: how a front end refuses a
    timeout (the fast path's own test, which must not raise, and the
    daemon's answer to a wire client ask :func:`timeout_problem` itself)."""
    problem = timeout_problem(value, name)
    if problem is None and isinstance(value, (int, float)):
        return float(value)
    from dbgcore.shared.errors import UsageError  # only on this error: the import-free rule

    raise UsageError(str(problem))
