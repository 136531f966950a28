"""Process facts and process-group shutdown.

A pid alone is not an identity: after a process dies its pid can be reused.
We pair every recorded pid with its start time (field 22 of
``/proc/PID/stat``, in clock ticks since boot), and only signal a process
whose start time still matches.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping

#: libc's prctl, looked up once per process (see death_pact).
_prctl: Callable[..., int] | None = None
#: util-linux's setpriv if it can set the parent-death signal, "" if not;
#: looked up once per process (see bound_to_parent).
_setpriv: str | None = None


def die_with_parent() -> None:
    """For ``preexec_fn``: if the daemon is killed outright, take the child with it.

    PR_SET_PDEATHSIG (1) fires when the *thread* that forked the child exits,
    which is why the daemon runs every op on one long-lived worker thread.
    Prefer :func:`death_pact`, which finds prctl before the fork.
    """
    prctl = _prctl
    if prctl is None:
        import ctypes

        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            return
    prctl(1, signal.SIGKILL, 0, 0, 0)


def death_pact() -> Callable[[], None]:
    """:func:`die_with_parent` with libc's prctl found here, in the parent,
    once a process: found in each forked child (ctypes imported there), it
    cost every spawn 2-5 ms before its exec while the caller waited, and an
    import in the child of a process with threads may wait forever on a
    lock another thread held."""
    global _prctl
    if _prctl is None:
        import ctypes

        try:
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            pass
    return die_with_parent


def bound_to_parent(argv: list[str], env: Mapping[str, str] | None = None,
                    cwd: str | None = None) -> tuple[list[str], Callable[[], None] | None]:
    """The argv and ``preexec_fn`` for a Popen whose child must die with this
    process, as :func:`die_with_parent` makes it.

    Any ``preexec_fn`` makes subprocess fork the whole daemon rather than
    vfork it: 2-5 ms a spawn in an idle daemon, up to 27 ms in a busy one,
    on every start's path. util-linux's ``setpriv --pdeathsig KILL`` sets the
    same signal and then execs the program (the signal outlives an exec), so
    with it subprocess can vfork. It is used only when the program can be
    found from here: a missing one must still fail in Popen with its
    OSError, not as a setpriv that exits 127. As with a ``preexec_fn``, a
    parent killed before the child has set the signal (here the first
    millisecond or so of setpriv) leaves the child behind; an adapter on
    the daemon's pipes still ends at their close."""
    global _setpriv
    if _setpriv is None:
        _setpriv = _find_setpriv()
    if _setpriv and _runnable(argv[0], env, cwd):
        return [_setpriv, "--pdeathsig", "KILL", "--", *argv], None
    return argv, death_pact()


def _find_setpriv() -> str:
    found = _on_path("setpriv", os.environ.get("PATH", os.defpath))
    try:
        # --pdeathsig came with util-linux 2.33 (2018); an older setpriv
        # would refuse the option and the program would never run.
        with open(found or "", "rb") as fh:
            return found if found and b"pdeathsig" in fh.read() else ""
    except OSError:
        return ""


def _runnable(program: str, env: Mapping[str, str] | None, cwd: str | None) -> bool:
    if "/" in program:
        path = os.path.join(cwd or os.getcwd(), program)
        return os.path.isfile(path) and os.access(path, os.X_OK)
    # Popen and setpriv (execvp) both search the PATH of the child's environment.
    search = (env if env is not None else os.environ).get("PATH", os.defpath)
    return _on_path(program, search) is not None


def _on_path(program: str, search: str) -> str | None:
    """The first runnable file named ``program`` in the folders of
    ``search``, as shutil.which finds it; shutil itself is not imported (it
    imports bz2, lzma and zlib: 1-2 ms more before a new daemon's early
    spawn, the first call here)."""
    for folder in search.split(os.pathsep):
        path = os.path.join(folder, program)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _stat_fields(pid: int) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` from the third (the state letter)
    on; empty if the process is gone. The command name (field 2) may hold
    spaces and parentheses, so they begin after its last ')'."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    return data[data.rindex(b")") + 2 :].split()


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None if it is gone."""
    try:
        return int(_stat_fields(pid)[19])
    except (IndexError, ValueError):
        return None


def namespace_pids(pid: int) -> list[int]:
    """Process ``pid``'s pid in each PID namespace from ours down to its own
    (``NSpid`` of /proc/PID/status): more than one in a container or under
    `unshare --pid`, where the program knows itself by the last. ``[pid]``
    when the kernel says nothing more, [] when it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    return [int(f) for f in line.split()[1:]]
    except (OSError, ValueError):
        return []
    return [pid]


def is_zombie(pid: int) -> bool:
    return state_of(pid) == "Z"


def exit_status(pid: int) -> int | None:
    """How a process that has ended and is not reaped yet (a zombie: its
    parent, the debugger, has not waited for it) ended, as Popen's
    returncode says it (negative: the signal that killed it); None for a
    process that is not a zombie, or gone. From field 52 of
    ``/proc/PID/stat``, its wait status (Linux 3.5 and later)."""
    rest = _stat_fields(pid)
    try:
        if rest[0] != b"Z":
            return None
        status = int(rest[49])
    except (IndexError, ValueError):
        return None
    return -(status & 0x7F) if status & 0x7F else (status >> 8) & 0xFF


def alive(pid: int, started: int | None = None) -> bool:
    """Is ``pid`` running, and (when ``started`` is given) the same process?"""
    fields = _stat_fields(pid) if pid > 0 else []
    if not fields or fields[0] == b"Z":
        return False
    try:
        now = int(fields[19])
    except (IndexError, ValueError):
        return False
    return started is None or now == started


def owner_of(pid: int) -> int | None:
    """The real uid of the process (``Uid:`` in /proc/PID/status), None if it is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return None


def ours(pid: int, started: int | None) -> bool:
    """:func:`alive` with that start time, and the user's: what a pid read
    from a file must be before it is signalled."""
    return started is not None and alive(pid, started) and owner_of(pid) == os.getuid()


def group_is_ours(pgid: int) -> bool:
    """Whether the process group has live members, all of them the user's."""
    members = list(_live_members(pgid))
    return bool(members) and all(owner_of(pid) == os.getuid() for pid in members)


def is_daemon_of(pid: int, started: int | None, folder: str) -> bool:
    """Whether ``pid`` (started at ``started``) is the user's and the daemon
    of the session whose folder is ``folder``: a daemon holds its session's
    files open (its stderr is the session's daemon.log, the first place
    looked), which no other process of the user's does by chance. A
    process whose descriptors cannot be read is judged by the rest."""
    if not ours(pid, started):
        return False
    inside = os.path.realpath(folder) + os.sep
    try:
        if os.readlink(f"/proc/{pid}/fd/2").startswith(inside):
            return True
        entries = os.listdir(f"/proc/{pid}/fd")
    except PermissionError:
        return True
    except OSError:
        return False
    for entry in entries:
        try:
            if os.readlink(f"/proc/{pid}/fd/{entry}").startswith(inside):
                return True
        except OSError:
            continue
    return False


def pgid_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # killpg(0) also succeeds while only zombies remain; look for a live member.
    return next(_live_members(pgid), None) is not None


def _live_members(pgid: int) -> Iterator[int]:
    """The pids of the group's members that are not zombies, from /proc."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and pgid_of(int(entry)) == pgid and not is_zombie(int(entry)):
            yield int(entry)


def terminate_groups(pgids: Iterable[int], grace: float = 1.0,
                     reap: Iterable[int] = (), interrupt: bool = True) -> None:
    """End whole process groups: SIGINT, then SIGTERM, then SIGKILL, waiting
    up to ``grace`` seconds after each for the groups to go. ``reap`` lists
    child pids of ours to collect so they do not linger as zombies. Without
    ``interrupt``, begin at SIGTERM (for a debugger known to sit at its
    prompt, which ignores SIGINT there)."""
    groups = {g for g in pgids if g > 1 and g != os.getpgrp()}
    children = list(reap)
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
    for sig in signals if interrupt else signals[1:]:
        groups = {g for g in groups if _group_alive(g)}
        if not groups:
            break
        for g in groups:
            _signal_group(g, sig)
        # Most debuggers ignore SIGINT while at their prompt; do not wait long for it.
        deadline = time.monotonic() + (grace / 4 if sig == signal.SIGINT else grace)
        while time.monotonic() < deadline:
            _reap(children)
            if not any(_group_alive(g) for g in groups):
                break
            time.sleep(0.02)
    _reap(children)


def _reap(pids: list[int]) -> None:
    for pid in list(pids):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pids.remove(pid)
            continue
        if done:
            pids.remove(pid)


def children_of(pid: int) -> list[int]:
    """The living children of ``pid`` (any of its threads'), from /proc."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                found += [int(c) for c in fh.read().split() if int(c) not in found]
        except (OSError, ValueError):
            continue
    return found


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid`` (children, theirs...), from /proc."""
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children_of(todo.pop()):
            if child not in found:
                found.append(child)
                todo.append(child)
    return found


def tree_of(pids: Iterable[int]) -> list[tuple[int, int | None]]:
    """Every living process below ``pids``, with its start time (to know it
    again later: a pid may be reused once it ends)."""
    found: dict[int, int | None] = {}
    for pid in pids:
        for below in descendants(pid):
            found.setdefault(below, start_time(below))
    return list(found.items())


def end_strays(processes: Iterable[tuple[int, int | None]], grace: float = 0.5) -> list[int]:
    """End the process groups of those of ``processes`` (from :func:`tree_of`)
    still alive: a program's child that left its group (setsid: a daemon it
    started) outlives the end of that group. Returns the pids it ended."""
    left = [pid for pid, started in processes if alive(pid, started)]
    groups = {g for pid in left if (g := pgid_of(pid)) is not None}
    terminate_groups(groups, grace=grace)
    for pid in left:
        # One that shares the caller's group is not ended with a group.
        if alive(pid) and pgid_of(pid) == os.getpgrp():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    return left


def state_of(pid: int) -> str:
    """The process's state letter from ``/proc/PID/stat`` (``R``, ``S``,
    ``T`` stopped, ``t`` stopped by its tracer, ``Z``...), "" if it is gone."""
    fields = _stat_fields(pid)
    return fields[0].decode("ascii", "replace") if fields else ""


#: How long a debugger's process may stay stopped by a signal while dbg
#: waits for its answer before the wait gives up (DebuggerStopped): a wait
#: for a `next` would otherwise end as "running" (exit 0) at the op's timeout.
STOPPED_GRACE = 2.0
#: How often a wait for a debugger's answer looks whether it is stopped.
STOP_CHECK = 0.5


class StoppedWatch:
    """Whether process ``pid`` has been stopped by a signal (state ``T``;
    not a tracer's ``t`` unless ``states`` has it) for ``grace`` seconds, as
    far as the looks between the slices of a wait saw."""

    def __init__(self, pid: int, grace: float = STOPPED_GRACE,
                 states: tuple[str, ...] = ("T",)) -> None:
        self.pid = pid
        self.grace = grace
        self.states = states
        self._since: float | None = None

    def stopped_long(self) -> bool:
        now = time.monotonic()
        if self.pid <= 0 or state_of(self.pid) not in self.states:
            self._since = None
            return False
        self._since = now if self._since is None else self._since
        return now - self._since >= self.grace


def _handle_of(pid: int, started: int | None) -> int | None:
    """A pidfd of ``pid`` if it is still the process that started at
    ``started`` (checked after the pidfd is open: from then on the pidfd names
    that process alone, however soon its pid is reused); -1 where pidfds are
    not to be had (the check is then only as good as the moment it was
    made); None if it is gone or is another process."""
    if started is None or pid <= 1:
        return None
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return None
    except (AttributeError, OSError):
        return -1 if alive(pid, started) else None
    if alive(pid, started):
        return fd
    os.close(fd)
    return None


def end_processes(processes: Iterable[tuple[int, int | None]], grace: float = 1.0) -> list[int]:
    """End each of ``processes`` (pid, start time) that is still the process
    recorded: SIGCONT first (a stopped process acts on no signal but SIGKILL,
    and a SIGTERM to it would wait for a SIGCONT nobody sends), then SIGTERM,
    and SIGKILL to those still there after ``grace`` seconds. A process whose
    start time does not match, or with none recorded, is not signalled (the
    caller checks that a pid read from a file is the user's: :func:`ours`).
    Returns the pids it signalled."""
    handles: dict[int, tuple[int, int | None]] = {}
    for pid, started in processes:
        if pid in handles or pid == os.getpid():
            continue
        fd = _handle_of(pid, started)
        if fd is not None:
            handles[pid] = (fd, started)

    def send(pid: int, sig: int) -> None:
        fd, started = handles[pid]
        with contextlib.suppress(OSError):
            if fd >= 0:
                signal.pidfd_send_signal(fd, sig)
            elif alive(pid, started):
                os.kill(pid, sig)

    try:
        for pid in handles:
            send(pid, signal.SIGCONT)
        for pid in handles:
            send(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        left = list(handles)
        while left and time.monotonic() < deadline:
            time.sleep(0.02)
            left = [pid for pid in left if alive(pid, handles[pid][1])]
        for pid in left:
            send(pid, signal.SIGKILL)
        deadline = time.monotonic() + grace
        while left and time.monotonic() < deadline:
            time.sleep(0.02)
            left = [pid for pid in left if alive(pid, handles[pid][1])]
    finally:
        for fd, _ in handles.values():
            if fd >= 0:
                os.close(fd)
    return list(handles)
