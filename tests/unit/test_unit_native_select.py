"""Choosing a native debugger: ELF binaries (Go or not), Go packages, C
sources that must be compiled first, and a gdb too old for DAP."""

from __future__ import annotations

import os
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import builds

from dbgcore.backends.choice import binary_kind, candidates
from dbgcore.backends.pluginhost import PluginHost
from dbgcore.backends.registry import BackendRegistry
from dbgcore.shared.errors import NotAProgram


@pytest.fixture(scope="module")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("bins")
    c_source = builds.copy_tree("native/cart.c", work)
    go_package = builds.copy_tree("gocart", work)
    return {"c": builds.build_c(c_source), "c-source": c_source,
            "go": builds.build_go(go_package), "go-package": go_package}


@pytest.fixture
def specs(tmp_path: Path) -> dict[str, Any]:
    return BackendRegistry(PluginHost()).config(tmp_path).backends


def names(found: list[Any]) -> list[str]:
    return [s.name for s in found]


def test_binary_kinds(binaries: dict[str, Path], tmp_path: Path) -> None:
    assert binary_kind(binaries["c"]) == "elf"
    assert binary_kind(binaries["go"]) == "go"
    assert binary_kind(binaries["c-source"]) is None
    script = tmp_path / "script"
    script.write_text("#!/bin/sh\necho hi\n")
    assert binary_kind(script) is None
    # A truncated or damaged ELF file is still ELF, and nothing breaks.
    broken = tmp_path / "broken"
    broken.write_bytes(binaries["c"].read_bytes()[:200])
    assert binary_kind(broken) == "elf"
    assert binary_kind(tmp_path / "missing") is None


def test_native_candidates(binaries: dict[str, Path], specs: dict[str, Any]) -> None:
    assert names(candidates(binaries["c"], specs)) == ["gdb", "lldb"]
    # A Go binary: delve first, the others can still debug it.
    assert names(candidates(binaries["go"], specs)) == ["dlv", "gdb", "lldb"]
    assert names(candidates(binaries["c-source"], specs)) == ["gdb", "lldb"]
    assert names(candidates(binaries["go-package"] / "main.go", specs)) == ["dlv"]
    assert names(candidates(binaries["go-package"], specs)) == ["dlv"]


def test_a_source_file_is_refused_with_how_to_compile_it(
        binaries: dict[str, Path], specs: dict[str, Any]) -> None:
    classes = PluginHost(load_entry_points=False).backend_classes()
    for name in ("gdb", "lldb"):
        spec = specs[name]
        with pytest.raises(NotAProgram) as info:
            classes[spec.plugin].check_program(spec, binaries["c-source"])
        assert "cart.c is a source file" in info.value.message
        assert "gcc -g -O0 cart.c -o cart" in info.value.hint
        classes[spec.plugin].check_program(spec, binaries["c"])  # a binary is fine
    dlv = specs["dlv"]
    for program in (binaries["go-package"], binaries["go-package"] / "main.go", binaries["go"]):
        classes[dlv.plugin].check_program(dlv, program)


def test_start_with_a_c_source_says_compile_first(dbg: Any, binaries: dict[str, Path]) -> None:
    result = dbg("start", "--no-build", str(binaries["c-source"]))
    assert result.code == 1, result
    assert "cart.c is a source file, not a program" in result.err
    assert "compile it with debug info first" in result.err
    assert "Traceback" not in result.err
    assert dbg.json("sessions")["sessions"] == []


def test_an_old_gdb_is_named_with_its_version(dbg: Any, tmp_path: Path) -> None:
    old = tmp_path / "old-gdb"
    old.write_text("#!/bin/sh\necho 'GNU gdb (Debian 13.1-3) 13.1'\n")
    old.chmod(old.stat().st_mode | stat.S_IXUSR)
    config = dbg.home / "config" / "dbg" / "backends.yaml"
    config.parent.mkdir(parents=True)
    config.write_text(textwrap.dedent(f"""
        backends:
          gdb:
            options:
              gdb: {old}
    """))
    listed = {b["name"]: b for b in dbg.json("backends")["backends"]}
    assert listed["gdb"]["ready"] is False
    assert listed["gdb"]["detail"] == (
        f"no gdb with DAP (needs gdb 14 or newer): {old} is 13.1")
    assert "pip install gdb-for-pwndbg" in listed["gdb"]["install"]
    program = tmp_path / "prog"
    program.write_bytes(b"\x7fELF" + bytes(60))
    os.chmod(program, 0o755)
    result = dbg("start", "--backend", "gdb", str(program))
    assert result.code == 1 and "needs gdb 14 or newer" in result.err, result
    assert "Traceback" not in result.err
