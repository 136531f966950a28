"""`dbg hits` on a store of 100, 10,000 and 100,000 recorded stops.

Each store is filled in a temporary DBG_HOME through the store's own API
(``Store.record_stop``, as a daemon records a stop): a stack of four frames
and eight locals a stop, stops at a few places of a few functions, one in a
hundred with a long value, an exit at the end. Then, interleaved (one call on
each store in turn, ``--runs`` rounds), the whole CLI call is timed as a user
waits for it: ``dbg hits`` (the latest stops, the default), ``dbg hits
LOCATION`` (only those at one line) and ``dbg hits --diff``. Medians and the
spread (min-max), in milliseconds, and the store's size.

    .venv/bin/python bench/hits.py [--runs 7] [--small] [--code CHECKOUT]

``--small``: stores of 10 and 200 stops, for the test that keeps this running.
``--code``: time the dbg of another checkout (its dbgcore and plugins), to
compare before and after a change on the same stores.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = (100, 10_000, 100_000)
SMALL_SIZES = (10, 200)
SESSION = "b"
#: Where the recorded program stops, as a session would: (file, line, function).
PLACES = (("/src/app/ledger.py", 41, "Ledger.post"), ("/src/app/ledger.py", 58, "Ledger.fee"),
          ("/src/app/main.py", 12, "main"), ("/src/app/util.py", 7, "clamp"))
#: A stop's line in `dbg hits`: its time and its id.
STOP_LINE = re.compile(r"\d\d:\d\d:\d\d #\d+ ")
#: The calls `dbg hits` is timed on.
CALLS = (("latest", ["hits"]), ("at a line", ["hits", "ledger.py:58"]),
         ("--diff", ["hits", "--diff"]), ("floor: --version", ["--version"]))


def fill(home: Path, stops: int) -> None:
    """A store of ``stops`` recorded stops of one session (the last one its
    program's exit), written as the daemon writes them."""
    os.environ["DBG_HOME"] = str(home)
    sys.path.insert(0, str(ROOT))
    from dbgcore.store.db import Store

    store = Store(by="bench/hits.py")
    try:
        sid = store.open_session(SESSION, "pdb", "pdb", "3.12", "/src/app/main.py", [], "/src")
        run = store.open_run(sid, "/src/app/main.py", [])
        for n in range(stops - 1):
            file, line, function = PLACES[n % len(PLACES)]
            frames = [{"id": k, "name": name, "file": f, "line": ln, "column": 1,
                       "module": Path(f).stem, "source": {"name": Path(f).name, "path": f}}
                      for k, (f, ln, name) in enumerate(PLACES[n % len(PLACES):] + PLACES[:1])]
            values = [{"name": f"v{k}", "value": str(n * k), "type": "int"} for k in range(7)]
            values += [{"name": "rows", "type": "list", "value": repr(list(range(n % 9, 30)))},
                       {"name": "self", "type": "Ledger",
                        "value": f"<app.ledger.Ledger object at 0x7f{n:010x}>"}]
            values.append({"name": "note", "type": "str",
                           "value": repr("x" * (400 if n % 100 == 0 else 20) + str(n))})
            store.record_stop(sid, {"state": "stopped", "reason": "breakpoint", "thread": 1,
                                    "location": {"file": file, "line": line,
                                                 "function": function},
                                    "locals": values}, frames[:4], run_id=run)
        store.record_stop(sid, {"state": "exited", "exit_code": 0}, [], run_id=run)
        store.end_run(run, 0, None)
        store.end_session(sid)
    finally:
        store.close()


def call(args: list[str], home: Path, code: Path) -> tuple[float, str]:
    env = {**os.environ, "DBG_HOME": str(home), "DBG_SESSION": SESSION,
           "PYTHONPATH": f"{code}{os.pathsep}{code / 'plugins'}"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # timed as installed: with its bytecode
    begin = time.perf_counter()
    done = subprocess.run([sys.executable, str(code / "bin" / "dbg"), *args], env=env,
                          capture_output=True, text=True, timeout=300)
    took = (time.perf_counter() - begin) * 1000
    if done.returncode != 0:
        raise SystemExit(f"dbg {' '.join(args)} failed ({done.returncode}): "
                         f"{done.stdout}{done.stderr}")
    return took, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--small", action="store_true", help="stores of 10 and 200 stops")
    parser.add_argument("--code", type=Path, action="append",
                        help="a checkout whose dbg is timed (default this one); several "
                        "are timed interleaved")
    opts = parser.parse_args()
    sizes = SMALL_SIZES if opts.small else SIZES
    codes: list[Path] = opts.code or [ROOT]
    work = Path(tempfile.mkdtemp(prefix="dbg-hits-"))
    homes = {}
    for size in sizes:
        homes[size] = work / f"home{size}"
        begin = time.perf_counter()
        fill(homes[size], size)
        print(f"filled a store of {size:,} stops in {time.perf_counter() - begin:.1f} s",
              file=sys.stderr)
    times: dict[tuple[Path, int, str], list[float]] = {}
    shown: dict[tuple[Path, int, str], int] = {}
    for size in sizes:  # once untimed: the first call makes the store's new indexes
        for code in codes:
            call(["hits"], homes[size], code)
    for _ in range(opts.runs):
        for name, args in CALLS:
            for size in sizes:
                for code in codes:
                    took, out = call(args, homes[size], code)
                    times.setdefault((code, size, name), []).append(took)
                    shown[(code, size, name)] = sum(1 for line in out.splitlines()
                                                    if STOP_LINE.match(line))
    print(f"`dbg hits`: the whole CLI call, ms; median and min-max of {opts.runs} "
          f"interleaved runs; {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f} after")
    print("| code | stops | store MB | call | median ms | min-max ms | stops shown |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for size in sizes:
        mb = sum(p.stat().st_size for p in homes[size].glob("store.sqlite3*")) / 1e6
        for name, _ in CALLS:
            for code in codes:
                t = times[(code, size, name)]
                print(f"| {code} | {size:,} | {mb:.1f} | {name} | {statistics.median(t):.0f} | "
                      f"{min(t):.0f}-{max(t):.0f} | {shown[(code, size, name)]} |")


if __name__ == "__main__":
    main()
