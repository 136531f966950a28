"""The `dbg` console entry point, with a fast path for the commands agents
send most.

Stepping and looking around (``next``, ``step``, ``continue``, ``locals``,
``print EXPR``...) are answered by the session daemon in a millisecond or two;
what a client costs is Python starting and importing. So a command line of the
shape ``dbg [-s NAME] [--json] [--timeout T] OP [WORD...]`` for a live session
(the global options may follow the op too: ``dbg continue --timeout 5``)
is handed as it is to the session's daemon, which already holds the op table:
it tells which of the op's words are global options
(:meth:`dbgcore.vocab.opspec.OpTable.lift_globals`), reads the rest
(:meth:`dbgcore.ops.table.OpTable.read_words`), runs the op and
sends back the exit code and the text to print. This module imports nothing
beyond what Python has loaded at start (``os``, ``sys``), the built-in
``_socket`` and the import-free :mod:`dbgcore.shared.timeouts`: the client costs
little more than ``python -c pass``.

The ops the client answers itself (``kill``, ``sessions``, ``mcp``...) are
not sent: the click CLI takes them at once, except a bare ``dbg kill``,
answered here without building that CLI (every session ends by one). When the daemon says the words
are not for the fast path (options,
``--help``, ops that are not sent as they are), when there is no daemon to
reach, or when the words cannot be sent as UTF-8, the full click CLI (made
from the same op table) takes the command line and explains whatever is wrong.

A start's words sent to a session whose program has ended are answered
``ended``: the client replaces that session as below, without asking again.

``dbg start`` (and ``test``, ``attach``, ``memcheck``) for a session that does
not exist yet forks the session's daemon first, before anything else is imported: the
daemon loads the plugins and the configuration while this client waits, then
reads the command line as the click CLI would
(:meth:`dbgcore.vocab.opspec.OpTable.read_start_words`) and starts the
program. Anything it cannot read (``--help``, a number, a typo) ends that
daemon, and the click CLI takes the command line.
"""

from __future__ import annotations

import os
import sys

from dbgcore.shared.globalopts import (
    JSON_FLAG,
    REVEAL_ENV,
    option_at,
    read_globals,
    reveal_setting,
    reveals,
    seconds,
)
from dbgcore.shared.sessionsocket import (
    DAEMON_LOG,
    SOCKET_NAME,
    STATUS_NAME,
    home,
    session_folder,
    well_formed,
)
from dbgcore.shared.sessionsocket import MAX_SOCKET_PATH as _MAX_SOCKET_PATH
from dbgcore.shared.sessionsocket import ask as _ask
from dbgcore.shared.sessionsocket import json_text as _json
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from typing import NoReturn

#: Extra seconds beyond the op's timeout (dbgcore.shared.client.ANSWER_MARGIN).
_ANSWER_MARGIN = 15.0
#: How long a forked daemon has to listen (dbgcore.start.spawn.DAEMON_START_TIMEOUT).
_DAEMON_START_TIMEOUT = 15.0
#: The ops that start a session (send "start" in dbgcore.ops.table): a new
#: session's first client forks its daemon before anything else is imported.
_STARTS = ("start", "test", "attach", "memcheck")
#: The first words of the ops the client answers itself (send "local" in
#: dbgcore.ops.table; a test holds the two lists together): the daemon would only
#: answer "fallback", and a stopped or hung daemon of the session would hold
#: the command until the op's timeout (45 s: `dbg kill`, which must end such
#: a daemon, and `dbg mcp`, whose default session it may be).
_LOCAL_WORDS = frozenset(("agent", "backends", "callees", "callers", "calls", "caps", "cross",
                          "dap-server", "diff", "doctor", "heap", "history", "hits", "hot",
                          "kill", "leaks",
                          "list", "mcp", "plugins", "profile", "profile-diff", "report", "runs",
                          "sessions", "stacks"))
#: The session's daemon answered this client's start words that its program
#: has ended (``ended``, see _quick).
_ended_seen = False


def _globals(argv: list[str]) -> tuple[str, bool, float, int] | None:
    """The global options before the op: (session, --json, --timeout, index of
    the op); None for anything the click CLI must read."""
    found = read_globals(argv, os.environ.get("DBG_SESSION") or "default", False,
                         DEFAULT_TIMEOUT)
    if found is None or (found[3] < len(argv) and argv[found[3]].startswith("-")):
        return None
    return found


def _after_op(words: list[str], timeout: float) -> tuple[str | None, bool, float]:
    """What the global options among the op's words (``dbg print -s NAME
    x``) may say, before the daemon's op table tells which are the op's
    (dbgcore.vocab.opspec.OpTable.lift_globals): the last session named
    (None: none), whether ``--json`` is there, and the longest of the
    timeouts to wait for the answer. A guess the daemon checks: a session
    that is not its own is answered ``fallback``."""
    session, as_json, wait = None, False, timeout
    for i, word in enumerate(words):
        if word == "--":
            break
        found = option_at(words, i)
        if found is None:
            continue
        flag, value, _ = found
        if flag == JSON_FLAG:
            as_json = True
        elif value is not None and flag != "--timeout":
            session = value
        elif value is not None:
            wait = max(wait, seconds(value) or wait)
    return session, as_json, wait


def _socket_path(session: str) -> str | None:
    """Where the session's daemon listens, for a well-formed name and a path
    short enough to be used as it is (dbgcore.shared.paths.socket_path puts
    a longer one elsewhere)."""
    if not well_formed(session):
        return None
    path = os.path.join(session_folder(home(), session), SOCKET_NAME)
    return path if len(os.fsencode(path)) <= _MAX_SOCKET_PATH else None


def _private(path: str) -> bool:
    """Whether the home and the session folder above ``path`` (its socket)
    are private folders of the user's, as dbg makes them: then the socket
    there is its daemon's. Anything else (a folder of someone else's, one
    others can write in, a link; or one not made yet) is for the full CLI,
    which says what is wrong (dbgcore.shared.homecheck.folders_problem, which this
    mirrors; stricter: a folder others can only read is left to it too). One
    lstat a folder: once the home is found so, no one else can change what
    is in it."""
    session = os.path.dirname(path)
    sessions = os.path.dirname(session)
    uid = os.geteuid()
    for folder in (os.path.dirname(sessions), sessions, session):
        try:
            info = os.lstat(folder)
        except OSError:
            return False
        # S_ISDIR, without the stat module: a link's mode is not 0o040000.
        if info.st_mode & 0o170000 != 0o040000 or info.st_uid != uid or info.st_mode & 0o077:
            return False
    return True


def _quick(session: str, as_json: bool, timeout: float, words: list[str],
           first: bool = False, path: str | None = None,
           before_op: tuple[str, bool, float] | None = None,
           reveal: bool = False) -> int | None:
    """Run the command through the session's daemon; its exit code, or None
    when the full CLI must take it (nothing has been sent then). ``first``:
    the daemon was just forked by this client for the `start` in ``words``,
    and listens at ``path``. ``session``, ``as_json`` and ``timeout`` are
    the client's reading (whose daemon, how to say its own errors, how long
    to wait); ``before_op`` (default: the same) the global options given
    before the op, which the daemon reads with those it finds among the
    op's words (see _after_op). ``reveal``: --reveal before the op, or
    DBG_REVEAL in this client's environment (the daemon's is not the
    caller's)."""
    path = path or _socket_path(session)
    if path is None or not _private(path):
        return None
    asked_session, asked_json, asked_timeout = before_op or (session, as_json, timeout)
    try:
        request = _json({"op": "argv", "timeout": asked_timeout, "args": {
            "words": words, "json": asked_json, "session": asked_session, "cwd": os.getcwd(),
            "first": first, "reveal": reveal,
            "encoding": [sys.stdout.encoding or "utf-8", sys.stderr.encoding or "utf-8"],
        }}).encode("utf-8") + b"\n"
    except (UnicodeEncodeError, OSError):
        return None  # bytes that are not UTF-8, or a folder that is gone
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        try:
            sock.connect(path)
        except OSError:
            return None  # no daemon there: the full CLI says so, and tidies up
        sock.settimeout(timeout + _ANSWER_MARGIN)
        try:
            sock.sendall(request)
            reply = _read_answer(sock, timeout + _ANSWER_MARGIN)
        except (ConnectionResetError, BrokenPipeError):
            # A daemon on its way out (a failed start ends it) dropped the
            # request unread: the full CLI finds the session gone and says so.
            return None
        except _Stopped as exc:
            return _lost(session, as_json, words[0], None, exc.pid)
        except OSError as exc:
            return _lost(session, as_json, words[0], exc)
    finally:
        sock.close()
    head, _, body = reply.partition(b"\n")
    if head == b"ended":
        # A start on a session whose program has ended: _start_first
        # replaces it without asking the daemon again.
        global _ended_seen
        _ended_seen = True
        return None
    if head == b"fallback":
        return None
    try:
        code, stream = (int(part) for part in head.split())
    except ValueError:
        return _lost(session, as_json, words[0], None)
    out = sys.stderr if stream == 2 else sys.stdout
    try:
        out.flush()
        out.buffer.write(body)
        out.flush()
    except (OSError, ValueError):
        pass  # a closed or broken stdout: the exit code still tells
    return code


def _start_first(session: str, as_json: bool, timeout: float, words: list[str],
                 before_op: tuple[str, bool, float] | None = None,
                 reveal: bool = False) -> int | None:
    """`dbg start` (`test`, `attach`) of a session with nothing left of it:
    fork its daemon now and hand it the command line; the exit code, or None
    when the full CLI must take the command (the daemon forked for it has
    ended then). ``before_op``: as _quick's."""
    path = _socket_path(session)
    if path is None or not hasattr(os, "fork") or "--help" in words or "-h" in words:
        return None
    folder = os.path.dirname(path)
    listen = path
    if os.path.exists(os.path.join(folder, STATUS_NAME)) or os.path.exists(path):
        # A session whose program has ended: the new daemon listens beside
        # it, and replaces it once it has read and checked the command line
        # (a refused one leaves it as it was). Any other: the full CLI says
        # the session exists, or tidies up after a dead one.
        # Named by this client's pid in hex: no longer than "daemon.sock"
        # (Linux's pids have 22 bits), so within the socket path's limit
        # whenever the session's own socket is.
        listen = os.path.join(folder, f"{os.getpid():x}.sock")
        if len(os.fsencode(listen)) > _MAX_SOCKET_PATH or not _private(path) \
                or not (_ended_seen or _has_ended(path)):
            return None
    pid = _fork_daemon(session, None if listen == path else listen, words)
    if pid is None or not _listening(listen, pid):
        return _no_room(session, as_json, words[0], os.path.dirname(os.path.dirname(folder)))
    code = _quick(session, as_json, timeout, words, first=True, path=listen, before_op=before_op,
                  reveal=reveal)
    if code is None:
        _end_daemon(listen, folder, pid, replacing=listen != path)
    return code


def _no_room(session: str, as_json: bool, op: str, home: str) -> int | None:
    """A start whose daemon could not begin because the disk holding DBG_HOME
    refuses writes (its status file, its log): said here in one line, as the
    full CLI says it; None when the disk is not why (the full CLI finds out)."""
    from dbgcore.shared.diskspace import home_errno, refusal

    err = home_errno(home)
    if err is None:
        return None
    from dbgcore.frontends.cli.emit import fail

    fail(op, refusal(err, home, f"cannot start session {session!r}"), session=session,
         as_json=as_json)


def _has_ended(path: str) -> bool:
    """Whether the daemon at ``path`` answers that its program has ended
    (dbgcore.shared.ended); False when it does not answer."""
    import json

    from dbgcore.shared.ended import ENDED_STATES

    try:
        reply = json.loads(_ask(path, b'{"op":"ping","args":{},"timeout":5}\n', 5.0) or b"null")
    except (OSError, ValueError):
        return False
    info = ((reply or {}).get("result") or {}).get("session") or {}
    return info.get("state") in ENDED_STATES


def _fork_daemon(session: str, replacing_at: str | None, words: list[str]) -> int | None:
    """Start the session's daemon for the start of ``words``, which it reads
    itself (``first_client``), the ways :data:`dbgcore.start.launch.BEFORE_IMPORT`
    names: the spare its ended last run readied, else a fork, which may spawn
    the debugger of the start first (dbgcore.start.prespawn); its pid, None
    when it cannot start (the full CLI then says why). Nothing is imported
    before the fork (the session's folder is made as dbgcore.shared.paths
    makes it): what this client imported would delay the daemon's early
    spawn of the debugger."""
    from dbgcore.start.launch import BEFORE_IMPORT, Launch, start_daemon

    path = _socket_path(session)
    if path is None:
        return None
    folder = os.path.dirname(path)
    # Made and verified as dbgcore.shared.paths.private_dir does (a module of os
    # and stat only).
    from dbgcore.shared.homecheck import make_folders, open_log

    try:
        make_folders(os.path.dirname(os.path.dirname(folder)), folder)
        log = open_log(os.path.join(folder, DAEMON_LOG))
    except OSError:
        # A folder that cannot be made, or one dbg does not trust (a
        # homecheck.Untrusted): the full CLI says so, in one line.
        return None
    try:
        return start_daemon(Launch(session, folder, log, os.path.join(folder, DAEMON_LOG), words,
                                   first_client=True, replacing_at=replacing_at), BEFORE_IMPORT)
    finally:
        os.close(log)


def _listening(path: str, pid: int) -> bool:
    """Wait until the daemon ``pid`` accepts on ``path``; False if it ended
    or did not listen in time."""
    import _socket
    import time

    deadline = time.monotonic() + _DAEMON_START_TIMEOUT
    while time.monotonic() < deadline:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return True
        except OSError:
            pass
        finally:
            sock.close()
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        time.sleep(0.002)
    return False


def _end_daemon(path: str, folder: str, pid: int, replacing: bool = False) -> None:
    """End the daemon this client forked (its command line is for the click
    CLI), and wait until its status file is gone, so the CLI's own start
    does not find the session taken. ``replacing``: the status file is the
    ended session's, which this daemon never took; its answer to `kill`
    comes once it has ended, and nothing more is waited for."""
    import time

    try:
        _ask(path, b'{"op":"kill","args":{},"timeout":10}\n', _DAEMON_START_TIMEOUT)
    except OSError:
        pass
    deadline = time.monotonic() + _DAEMON_START_TIMEOUT
    while not replacing and os.path.exists(os.path.join(folder, STATUS_NAME)) \
            and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return  # gone: the CLI tidies up what it left
        time.sleep(0.005)


class _Stopped(Exception):
    """The daemon is stopped by a signal (see _read_answer)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid


#: How often a fast-path client waiting for its answer looks whether the
#: daemon is stopped, and how long it may stay so (dbgcore.shared.procutil's
#: STOP_CHECK and STOPPED_GRACE).
_STOP_CHECK = 0.5
_STOPPED_GRACE = 2.0


def _read_answer(sock: _socket.socket, wait: float) -> bytes:
    """All the daemon answers, within ``wait`` seconds (TimeoutError after);
    _Stopped sooner when the daemon (the socket's peer) stays stopped by a
    signal: it would hold this client for the whole wait (as
    dbgcore.shared.procutil.StoppedWatch tells it). Nothing is imported or asked of
    the system until the answer is slow to come."""
    chunks: list[bytes] = []
    deadline = stopped_since = None
    peer = 0
    while True:
        sock.settimeout(_STOP_CHECK if deadline is None else
                        max(0.001, min(deadline - _now(), _STOP_CHECK)))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            now = _now()
            if deadline is None:
                deadline = now + wait - _STOP_CHECK
                peer = _peer(sock)
            if now >= deadline:
                raise
            if not _stopped(peer):
                stopped_since = None
                continue
            stopped_since = now if stopped_since is None else stopped_since
            if now - stopped_since >= _STOPPED_GRACE:
                raise _Stopped(peer) from None
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _now() -> float:
    import time

    return time.monotonic()


def _peer(sock: _socket.socket) -> int:
    """The pid of the process that listens on the other end (the daemon)."""
    import _socket

    try:
        cred = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    except (AttributeError, OSError):
        return 0
    return int.from_bytes(cred[:4], sys.byteorder)


def _stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped by a signal (``dbgcore.shared.procutil.state_of(pid)
    == "T"``, its /proc/PID/stat read as procutil._stat_fields reads it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    return pid > 0 and data[data.rindex(b")") + 2 : data.rindex(b")") + 3] == b"T"


def _lost(session: str, as_json: bool, op: str, exc: OSError | None,
          stopped: int = 0) -> int:
    """The daemon went away, fell silent or is stopped (pid ``stopped``)
    after the op was sent: say so as the full client would (rare, so the
    imports do not matter here)."""
    from dbgcore.frontends.cli.emit import fail
    from dbgcore.shared.client import late_answer, no_answer, stopped_daemon
    from dbgcore.shared.errors import BackendError

    if stopped:
        error = stopped_daemon(session, stopped)
    elif isinstance(exc, TimeoutError):
        error = late_answer(session, op)
    elif exc is not None:
        error = BackendError(f"lost the daemon of session {session!r}: {exc}")
    else:
        error = no_answer(session, op)
    fail(op, error, session=session, as_json=as_json)


def _kill(session: str, as_json: bool, timeout: float) -> None:
    """A bare `dbg kill` of a session whose folder is private, answered here
    as the click CLI answers it (dbgcore.frontends.cli.emit.print_kill), without
    building that CLI; anything else (no such folder, options) is left to it."""
    path = _socket_path(session)
    if path is None or not _private(path):
        return
    from dbgcore.frontends.cli.emit import print_kill

    print_kill(session, as_json, timeout)


def _exit(code: int) -> NoReturn:
    """End this process with ``code`` now that the answer is written. The
    fast path leaves nothing to tidy up (no threads, no files, no atexit
    handlers), and the interpreter's finalization, which tears down every
    module and object anyway, cost 1.5-2 ms of each call here: most of what
    a call cost beyond `python -c pass` and the daemon's op."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed or broken stream: the exit code still tells
    os._exit(code)


#: The words `dbg dap` may have when it is the DAP server (`dbg dap
#: --listen PORT --session NAME`): with any other word it is the plugin's
#: op that sends one DAP request to the session's debugger.
_DAP_SERVER_FLAGS = frozenset(("--drive", "--json"))
_DAP_SERVER_OPTIONS = frozenset(("--listen", "-s", "--session", "--timeout"))


def _dap_server(argv: list[str]) -> list[str]:
    """``argv`` with a bare `dap` (only the server's options after it) made
    `dap-server`, the op that serves DAP."""
    found = _globals(argv)
    if found is None or found[3] >= len(argv) or argv[found[3]] != "dap":
        return argv
    i = found[3]
    words = argv[i + 1:]
    at = 0
    while at < len(words):
        word = words[at]
        if word in _DAP_SERVER_FLAGS or (
                "=" in word and word.split("=", 1)[0] in _DAP_SERVER_OPTIONS):
            at += 1
        elif word in _DAP_SERVER_OPTIONS:
            at += 2
        else:
            return argv
    return [*argv[:i], "dap-server", *words]


def main() -> None:
    argv = _dap_server(sys.argv[1:])
    found = None if os.environ.get("DBG_NO_FAST_PATH") else _globals(argv)
    if found is not None and argv[found[3]:] == ["kill"]:
        _kill(*found[:3])
    if found is not None and found[3] < len(argv) and argv[found[3]] not in _LOCAL_WORDS:
        session, as_json, timeout, i = found
        named, says_json, wait = _after_op(argv[i + 1:], timeout)
        before_op = (session, as_json, timeout)
        reveal = reveals(argv[:i]) or reveal_setting(os.environ.get(REVEAL_ENV))
        # A start's daemon is forked for the session before its words are
        # read: a session named among them (the program's -s, or one the
        # daemon answers `fallback` to) is not one to fork for.
        reach = session if named is None or argv[i] in _STARTS else named
        try:
            code = _quick(reach, as_json or says_json, wait, argv[i:], before_op=before_op,
                          reveal=reveal)
            if code is None and argv[i] in _STARTS:
                code = _start_first(session, as_json or says_json, wait, argv[i:],
                                    before_op=before_op, reveal=reveal)
        except KeyboardInterrupt:
            # As the click CLI answers a Ctrl-C (the op goes on in the daemon).
            sys.stderr.write("interrupted\n")
            code = 130
        if code is not None:
            _exit(code)
    from dbgcore.frontends.cli.app import main as full_main

    full_main(argv)


if __name__ == "__main__":
    main()
