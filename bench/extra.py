"""The figures next to S1: memory per session, 10 sessions at once, and
`locals` of a large frame (bench/s1.py --extra runs them).

    .venv/bin/python bench/extra.py [--backend NAME ...] [--sessions 10] [--rounds 10]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from s1 import BENCH, build, dbg_command, dbg_env, start_values


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


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


def extra(backends: list[str] | None = None, sessions: int = 10, rounds: int = 10) -> None:
    """Memory on ``backends``, ``sessions`` at once on debugpy (or the first
    of ``backends`` without it), the large frame on those of debugpy, pdb
    and gdb among them."""
    backends = backends or ["debugpy", "pdb", "gdb", "lldb", "dlv", "jdb", "node"]
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
    args = parser.parse_args()
    try:
        extra(args.backend, args.sessions, args.rounds)
    finally:
        remove_home()


if __name__ == "__main__":
    main()
