"""dbg_dap.natlang: D's and Nim's names and temporaries as their users read
them (the real debuggers' side is tests/test_dlang_nim.py)."""

from __future__ import annotations

from pathlib import Path

from dbg_dap import natlang


def test_d_symbols_demangle_to_their_qualified_name() -> None:
    assert natlang.plain_name("_D4shop5totalFASQo4ItemZi", "d") == "shop.total"
    assert natlang.plain_name("_D3app6models5Order5totalMFZd", "d") == "app.models.Order.total"
    # gdb's own demangling and names that are no D symbol stay as they are.
    assert natlang.plain_name("shop.total(shop.Item[])", "d") == "shop.total"  # gdb's
    assert natlang.plain_name("_Dmain", "d") == "_Dmain"
    assert natlang.plain_name("_D4shop99cut", "d") == "_D4shop99cut"  # truncated: as is


def test_nim_procs_lose_their_module_and_number() -> None:
    assert natlang.plain_name("total__shop_4", "nim") == "total"
    assert natlang.plain_name("addItem__cart_u12", "nim") == "addItem"  # Nim 2
    assert natlang.plain_name("NimMainModule", "nim") == "NimMainModule"
    assert natlang.plain_name("total__shop_4", None) == "total__shop_4"  # a C program's


def test_the_compilers_temporaries_are_not_the_programs_locals() -> None:
    for name in ("FR_", "T1_", "LA3_", "TM__fFGrJkh55w6rj6xyNSanpA_9"):
        assert natlang.temporary(name, "nim"), name
    for name in ("result", "sum", "item", "T"):
        assert not natlang.temporary(name, "nim"), name
    assert natlang.temporary("__r42", "d") and natlang.temporary("__key43", "d")
    assert not natlang.temporary("__r42", None) and not natlang.temporary("count", "d")


def test_a_nim_module_starts_at_its_first_top_level_statement(tmp_path: Path) -> None:
    source = tmp_path / "till.nim"
    source.write_text("# A till.\nimport strutils\n\ntype Item = object\n  name: string\n\n"
                      "proc total(): int =\n  result = 1\n\nconst tax = 2\n"
                      "var items = @[1]\necho total()\n")
    assert natlang.nim_first_line(str(source)) == 11
    assert natlang.nim_first_line(str(tmp_path / "missing.nim")) is None
    assert natlang.nim_first_line(None) is None


def test_a_binary_says_its_language(tmp_path: Path) -> None:
    d_binary, nim_binary, c_binary = tmp_path / "d", tmp_path / "nim", tmp_path / "c"
    d_binary.write_bytes(b"\x7fELF...._Dmain\x00")
    nim_binary.write_bytes(b"\x7fELF....NimMain\x00")
    c_binary.write_bytes(b"\x7fELF....main\x00")
    assert natlang.language(str(d_binary)) == "d"
    assert natlang.language(str(nim_binary)) == "nim"
    assert natlang.language(str(c_binary)) is None
    assert natlang.language(str(tmp_path / "missing")) is None
    (tmp_path / "empty").write_bytes(b"")
    assert natlang.language(str(tmp_path / "empty")) is None
