"""A bench script runs with bench/ first on sys.path, so a file there named
as a standard-library module is imported in its place by every library that
imports it (a bench/secrets.py once broke websockets' `secrets.token_bytes`)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_no_bench_file_is_named_as_a_standard_library_module() -> None:
    names = {p.stem for p in BENCH.glob("*.py")} | {p.name for p in BENCH.iterdir() if p.is_dir()}
    assert names, BENCH
    shadowing = sorted(names & set(sys.stdlib_module_names))
    assert not shadowing, f"bench/ files named as standard-library modules: {shadowing}"
