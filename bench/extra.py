"""The figures next to S1: memory per session, the process tree of a session
through `dbg mcp` (and mcp-debugger's for the same program), 10 sessions at
once, and `locals` of a large frame (bench/s1.py --extra runs them).

    .venv/bin/python bench/extra.py [--backend NAME ...] [--sessions 10] [--rounds 10]
        [--tree-only] [--trees 3] [--no-peer]

The process tree (:func:`trees`): one `dbg mcp` started, one session
started through it to the S1 breakpoint (after a first start from the CLI,
so that the record names its backend, as a user's has), `locals`, a pause
for the fork helper's next spare to be ready, then the resident memory of
every process of it: `dbg mcp` and what is below it (the fork helper),
every process carrying the bench's DBG_HOME (the session's daemon, the
spare, the debugger, the program) and what is below those. Each is counted
as RSS (VmRSS) and as PSS (/proc/PID/smaps_rollup: a page shared by n
processes counts 1/n in each, which is fairer to processes forked from one
another). mcp-debugger's tree (debugpy only, when npm installed it: see
bench/s1.py) is its server, what is below it, and its proxy, which leaves
the server's process group (``--mcp-owner-pid``), and what is below that.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from s1 import BENCH, build, dbg_command, dbg_env, start_values


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pss_kb(pid: int) -> int:
    """The proportional set size: each page divided by the processes sharing it."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def _processes() -> dict[int, tuple[int, str, bytes, bytes]]:
    """Every live process: its parent, its name, its command line and its
    environment (empty when it cannot be read); zombies left out."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] == "Z":
                continue
            cmdline = (entry / "cmdline").read_bytes()
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                environ = b""
            comm = (entry / "comm").read_text().strip()
        except (OSError, ValueError):
            continue
        found[int(entry.name)] = (int(fields[1]), comm, cmdline, environ)
    return found


def _below(roots: set[int], table: dict[int, tuple[int, str, bytes, bytes]]) -> set[int]:
    """``roots`` and every process below them."""
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid in found or pid not in table:
            continue
        found.add(pid)
        todo += [child for child, (parent, *_) in table.items() if parent == pid]
    return found


#: The roles of dbg's own processes, by the name each gives itself.
DBG_NAMES = {"dbg-forkserver": "fork helper", "dbg-spare": "spare", "dbg-daemon": "daemon"}


def tree_of(front: int, home: str | None, program: str,
            owner_mark: bytes | None = None) -> list[tuple[str, str, int, int]]:
    """The processes of one session (see the module): each one's group
    ("dbg", "peer", "debugger", "program"), what it is, RSS and PSS in kB.
    ``front``: the MCP server's pid; ``home``: dbg's DBG_HOME (None for the
    peer); ``owner_mark``: the peer's proxy's mark in its command line."""
    table = _processes()
    roots = {front}
    marker = f"DBG_HOME={home}".encode() if home else None
    for pid, (_, _, cmdline, environ) in table.items():
        if marker is not None and marker in environ.split(b"\0"):
            roots.add(pid)
        if owner_mark is not None and owner_mark in cmdline.split(b"\0"):
            roots.add(pid)
    pids = _below(roots, table)
    spare_children = set()
    for pid in pids:
        if table[pid][1] == "dbg-spare":
            spare_children |= _below({pid}, table) - {pid}

    def names_program(pid: int) -> bool:
        return any(w.endswith(program.encode()) for w in table[pid][2].split(b"\0"))

    rows = []
    for pid in sorted(pids):
        _, comm, cmdline, _ = table[pid]
        words = [w.decode(errors="replace") for w in cmdline.split(b"\0") if w]
        if pid == front:
            group, what = ("dbg", "dbg mcp") if home else ("peer", "mcp-debugger server")
        elif comm in DBG_NAMES:
            group, what = "dbg", DBG_NAMES[comm]
        elif names_program(pid) and not any(
                names_program(below) for below in _below({pid}, table) - {pid}):
            # The program's process (a launcher above it names it too).
            group, what = "program", "the program (" + os.path.basename(words[0]) + ")"
        else:
            group = "debugger"
            what = " ".join(os.path.basename(w) if i == 0 else w for i, w in
                            enumerate(words[:3]))[:48] or comm
        if pid in spare_children:
            group, what = "spare's debugger", what
        try:
            rows.append((group, what, rss_kb(pid), pss_kb(pid)))
        except OSError:
            continue  # gone meanwhile
    return rows


def daemon_pid(work: Path, session: str) -> int:
    import json

    status = Path(dbg_env(work)["DBG_HOME"]) / "sessions" / session / "status.json"
    return int(json.loads(status.read_text())["pid"])


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    begin = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=True)
    return (time.perf_counter() - begin) * 1000, proc.stdout


def start(target_values: dict[str, object], backend: str, where: Path,
          env: dict[str, str]) -> None:
    subprocess.run([*dbg_command(), "start", "--backend", backend, "--break",
                    str(target_values["breaks"][0]), "--run",  # type: ignore[index]
                    str(target_values["program"])], cwd=where, env=env, check=True,
                   capture_output=True)


def memory(backends: list[str]) -> None:
    print("\nmemory: RSS of the session's daemon, stopped at the S1 breakpoint")
    for backend in backends:
        work = Path(tempfile.mkdtemp(prefix="dbg-mem-"))
        env = dbg_env(work)
        try:
            target = build(backend, work)
            start(start_values(target), backend, target.folder.parent, env)
            timed([*dbg_command(), "locals"], target.folder.parent, env)
            print(f"  {backend}: {rss_kb(daemon_pid(work, 's1')) / 1024:.1f} MB")
        finally:
            subprocess.run([*dbg_command(), "kill"], env=env, capture_output=True)
            shutil.rmtree(work, ignore_errors=True)


#: Seconds after the stop for the fork helper's next spare to be ready (it
#: is forked once the start's answer is written) before the tree is read.
SETTLE = 1.5


def _spare_ready(home: str) -> None:
    """Wait (up to 10 s) until a spare carrying ``home`` runs, then SETTLE."""
    marker = f"DBG_HOME={home}".encode()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not any(
            comm == "dbg-spare" and marker in environ.split(b"\0")
            for _, comm, _, environ in _processes().values()):
        time.sleep(0.05)
    time.sleep(SETTLE)


def dbg_tree(backend: str) -> list[tuple[str, str, int, int]]:
    """One session through `dbg mcp`, stopped at the S1 breakpoint: its tree."""
    from s1 import mcp_session, tool

    work = Path(tempfile.mkdtemp(prefix="dbg-tree-"))
    env = dbg_env(work)
    try:
        target = build(backend, work)
        values = start_values(target)
        # A start from the CLI first: the record names the backend, as a
        # user's does, so `dbg mcp`'s first spare is made for it.
        start(values, backend, target.folder.parent, {**env, "DBG_SESSION": "tree-seed"})
        subprocess.run([*dbg_command(), "-s", "tree-seed", "kill"], env=env,
                       capture_output=True)

        async def scenario(session: Any) -> list[tuple[str, str, int, int]]:
            try:
                await tool(session, "dbg_start", **values)
                await tool(session, "dbg_locals")
                _spare_ready(env["DBG_HOME"])
                return tree_of(session.pid, env["DBG_HOME"], target.program.name)
            finally:
                await tool(session, "dbg_kill")

        return list(mcp_session(sys.executable, ["-m", "dbgcore", "mcp"], target.folder.parent,
                                env, scenario))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def peer_tree(cli: Path) -> list[tuple[str, str, int, int]]:
    """The same program's session through mcp-debugger, stopped at the same line."""
    from s1 import mcp_session, peer_paused, tool

    work = Path(tempfile.mkdtemp(prefix="dbg-tree-peer-"))
    try:
        target = build("debugpy", work)

        async def scenario(session: Any) -> list[tuple[str, str, int, int]]:
            sid = await peer_paused(session, target)
            try:
                await tool(session, "get_local_variables", sessionId=sid)
                time.sleep(SETTLE)
                return tree_of(session.pid, None, target.source.name,
                               f"--mcp-owner-pid={session.pid}".encode())
            finally:
                await session.call_tool("close_debug_session", {"sessionId": sid})

        return list(mcp_session("node", [str(cli), "stdio"], target.folder.parent,
                                dict(os.environ), scenario))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sums(rows: list[tuple[str, str, int, int]], *groups: str) -> tuple[float, float]:
    """RSS and PSS in MB of the rows of ``groups`` (all of them without any)."""
    chosen = [r for r in rows if not groups or r[0] in groups]
    return sum(r[2] for r in chosen) / 1024, sum(r[3] for r in chosen) / 1024


def trees(backends: list[str], runs: int = 3, peer: bool = True) -> None:
    """The process tree of one session through `dbg mcp` on each of
    ``backends``, and mcp-debugger's on debugpy: the medians of ``runs``
    interleaved runs, and the processes of the median run."""
    from s1 import peer_install

    cli = peer_install() if peer and "debugpy" in backends else None
    print(f"\nprocess tree of one session through an MCP server, stopped at the S1 breakpoint"
          f" (MB, median of {runs}; PSS from /proc/PID/smaps_rollup); load average"
          f" {os.getloadavg()[0]:.2f}")
    got: dict[str, list[list[tuple[str, str, int, int]]]] = {}
    for _ in range(runs):
        for backend in backends:
            got.setdefault(backend, []).append(dbg_tree(backend))
            if cli is not None and backend == "debugpy":
                got.setdefault("mcp-debugger", []).append(peer_tree(cli))
    print("| server, backend | whole tree RSS | PSS | dbg's own RSS | PSS | the spare's"
          " debugger RSS | debugger RSS | program RSS |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, samples in got.items():
        def cell(*groups: str, pss: bool = False, samples=samples) -> str:
            return f"{statistics.median(_sums(r, *groups)[pss] for r in samples):.1f}"
        own = "peer" if name == "mcp-debugger" else "dbg"
        label = "mcp-debugger 0.24.2, debugpy" if own == "peer" else f"dbg mcp, {name}"
        print(f"| {label} | {cell()} | {cell(pss=True)} | {cell(own)} | {cell(own, pss=True)} |"
              f" {cell('spare' + chr(39) + 's debugger')} | {cell('debugger')} |"
              f" {cell('program')} |")
    for name, samples in got.items():
        middle = sorted(samples, key=lambda r: _sums(r)[0])[len(samples) // 2]
        print(f"  {name}: " + "; ".join(f"{what} [{group}] {rss / 1024:.1f}/{pss / 1024:.1f}"
                                        for group, what, rss, pss in middle))


def many(backend: str = "debugpy", count: int = 10, rounds: int = 10) -> None:
    """`print` on one session alone, then on each of ``count`` at once."""
    work = Path(tempfile.mkdtemp(prefix="dbg-many-"))
    base = dbg_env(work)
    try:
        target = build(backend, work)
        values = start_values(target)
        where = target.folder.parent
        envs = [{**base, "DBG_SESSION": f"s{i}"} for i in range(count)]
        start(values, backend, where, envs[0])
        alone = statistics.median(
            timed([*dbg_command(), "print", "balance + amount"], where, envs[0])[0]
            for _ in range(rounds))
        for env in envs[1:]:
            start(values, backend, where, env)
        together = [statistics.median(
            timed([*dbg_command(), "print", "balance + amount"], where, env)[0]
            for _ in range(rounds)) for env in envs]
        rss = [rss_kb(daemon_pid(work, f"s{i}")) / 1024 for i in range(count)]
        print(f"\n{count} {backend} sessions at once: print {max(together):.1f} ms at worst,"
              f" {statistics.median(together):.1f} ms median, against {alone:.1f} ms alone"
              f" ({max(together) / alone:.2f} x); daemons {min(rss):.1f}-{max(rss):.1f} MB")
    finally:
        for i in range(count):
            subprocess.run([*dbg_command(), "-s", f"s{i}", "kill"], env=base,
                           capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def large_frame(backends: tuple[str, ...] = ("debugpy", "pdb", "gdb"), rounds: int = 5) -> None:
    print("\nlocals of a frame with 1,000,000 elements and a 10 MB string")
    for backend in backends:
        work = Path(tempfile.mkdtemp(prefix="dbg-big-"))
        env = {**dbg_env(work), "DBG_SESSION": "big"}
        try:
            prog = work / "prog"
            prog.mkdir()
            if backend == "gdb":
                source = prog / "big.c"
                shutil.copy(BENCH / "big.c", source)
                program = prog / "big"
                subprocess.run(["gcc", "-g", "-O0", str(source), "-o", str(program)],
                               check=True)
            else:
                source = program = prog / "big.py"
                shutil.copy(BENCH / "big.py", source)
            line = next(n for n, text in enumerate(source.read_text().splitlines(), 1)
                        if "@big" in text)
            start({"program": f"prog/{program.name}", "breaks": [f"{source.name}:{line}"]},
                  backend, work, env)
            text = [timed([*dbg_command(), "locals"], work, env) for _ in range(rounds)]
            as_json = [timed([*dbg_command(), "--json", "locals"], work, env)
                       for _ in range(rounds)]
            print(f"  {backend}: {statistics.median(t for t, _ in text):.0f} ms,"
                  f" {len(text[0][1]):,} bytes of text;"
                  f" --json {statistics.median(t for t, _ in as_json):.0f} ms,"
                  f" {len(as_json[0][1]):,} bytes")
        finally:
            subprocess.run([*dbg_command(), "kill"], env=env, capture_output=True)
            shutil.rmtree(work, ignore_errors=True)


def extra(backends: list[str] | None = None, sessions: int = 10, rounds: int = 10,
          peer: bool = True, tree_only: bool = False, tree_runs: int = 3) -> None:
    """Memory on ``backends``, the process tree of a session on those of
    them `dbg mcp` serves (mcp-debugger's too with ``peer``), ``sessions``
    at once on debugpy (or the first of ``backends`` without it), the large
    frame on those of debugpy, pdb and gdb among them."""
    backends = backends or ["debugpy", "pdb", "gdb", "lldb", "dlv", "jdb", "node"]
    trees([b for b in backends if b != "node"] or ["debugpy"], tree_runs, peer)
    if tree_only:
        return
    memory(backends)
    many("debugpy" if "debugpy" in backends else backends[0], sessions, rounds)
    large = tuple(b for b in ("debugpy", "pdb", "gdb") if b in backends)
    if large:
        large_frame(large, min(rounds, 5))


def main() -> None:
    from s1 import BACKENDS, remove_home

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", choices=BACKENDS,
                        help="a backend to run (repeatable; default: all)")
    parser.add_argument("--sessions", type=int, default=10, help="sessions at once")
    parser.add_argument("--rounds", type=int, default=10, help="timings of each call")
    parser.add_argument("--trees", type=int, default=3,
                        help="runs of the process tree (each backend, and the peer)")
    parser.add_argument("--tree-only", action="store_true", help="only the process tree")
    parser.add_argument("--no-peer", action="store_true", help="skip mcp-debugger's tree")
    args = parser.parse_args()
    try:
        extra(args.backend, args.sessions, args.rounds, not args.no_peer, args.tree_only,
              args.trees)
    finally:
        remove_home()


if __name__ == "__main__":
    main()
