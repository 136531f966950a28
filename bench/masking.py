"""What the secrets' mask (dbgcore/shared/secrets.py, docs/secrets.md) costs
an answer: a typical `locals` (20 variables of the kinds a Python frame
holds), a stop snapshot, 500 variables, a page of 1,000 output lines; beside
a JSON round trip of the same `locals` answer, which every answer makes
more than once on its way.

    .venv/bin/python bench/masking.py [--runs N]

Prints the median microseconds of each over N runs (no debugger is run:
the mask is pure).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from dbgcore.shared.jsontypes import Json
from dbgcore.shared.secrets import masked

VALUES = ["42", "3.14", "'hello world'", "None", "True", "[1, 2, 3, 4, 5]",
          "{'id': 7, 'name': 'widget', 'price': 9.99}", "<function f at 0x7f5a78e34720>",
          "'/home/user/project/src/app/models.py'", "<__main__.Cart object at 0x7f00aa>",
          "[('apple', 3), ('pear', 5), ('plum', 8)]", "'2026-12-07T17:55:00'"]
NAMES = ["i", "total", "name", "result", "ok", "items", "item", "f", "path", "cart", "pairs",
         "when", "count", "user", "price", "tax", "qty", "line", "data", "cache_key"]


def rows(count: int) -> list[Json]:
    return [{"name": f"{NAMES[i % len(NAMES)]}{i // len(NAMES) or ''}",
             "value": VALUES[i % len(VALUES)], "type": "str", "variablesReference": 0}
            for i in range(count)]


def median_us(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        work()
        times.append((time.perf_counter() - begin) * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    runs = parser.parse_args().runs
    local = {"variables": rows(20), "truncated": False}
    snapshot = {"state": "stopped", "reason": "breakpoint",
                "location": {"file": "/home/u/p/cart.py", "line": 12, "function": "total"},
                "source": [{"line": n, "text": "    total += price * qty  # running sum"}
                           for n in range(10, 15)],
                "locals": rows(10), "output": "processing item 3 of 10\n" * 5}
    lines = {"chunks": [{"text": f"INFO request {n} user=bob path=/api/items/{n} status=200\n",
                         "category": "stdout"} for n in range(1000)]}
    cases: list[tuple[str, Callable[[], object]]] = [
        ("locals, 20 variables", lambda: masked(local)),
        ("the same, JSON round trip (no mask)", lambda: json.loads(json.dumps(local))),
        ("stop snapshot, 10 locals", lambda: masked(snapshot)),
        ("locals, 500 variables", lambda: masked({"variables": rows(500)})),
        ("output page, 1,000 lines", lambda: masked(lines)),
    ]
    for what, work in cases:
        print(f"{what:40} {median_us(work, runs):10.0f} us")


if __name__ == "__main__":
    main()
