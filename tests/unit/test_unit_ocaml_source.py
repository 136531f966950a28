"""dbg_ocaml.source: what dbg reads from an OCaml file itself, because
ocamldebug does not say it (the function a line is in, the names it may
see, where a function is defined)."""

from __future__ import annotations

from pathlib import Path

from dbg_ocaml import source

CART = Path(__file__).resolve().parents[1] / "targets" / "ocaml" / "cart.ml"


def line_of(lines: list[str], text: str) -> int:
    raw = CART.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(raw, 1) if text in line)


def test_the_definition_that_holds_a_line_names_the_function() -> None:
    lines = source.read_lines(CART)
    assert source.function_name(lines, "Cart", line_of(lines, "@discount ")) == \
        "Cart.apply_discount"
    assert source.function_name(lines, "Cart", line_of(lines, "@loop")) == "Cart.total"
    # The module's own initialisation is the module, as OCaml's backtraces say.
    assert source.function_name(lines, "Cart", line_of(lines, "exit (main ())")) == "Cart"
    assert source.definition_line(lines, "apply_discount") == \
        line_of(lines, "let apply_discount")
    assert source.definition_line(lines, "nosuch") is None


def test_names_in_scope_are_the_parameters_lets_and_funs_up_to_the_line() -> None:
    lines = source.read_lines(CART)
    assert source.names_in_scope(lines, line_of(lines, "@discount-return")) == \
        ["total", "percent", "discount"]
    # A comment or a string never names anything.
    assert source.names_in_scope(lines, line_of(lines, "@loop")) == \
        ["items", "sum", "cost", "item"]
    assert source.names_in_scope(lines, line_of(lines, "@main-first")) == ["cart"]


def test_comments_strings_and_other_forms(tmp_path: Path) -> None:
    path = tmp_path / "forms.ml"
    path.write_text('let rec walk (x : int) acc = (* let hidden = 1 *)\n'
                    '  let label = "let fake = 2" in\n'
                    '  match x with\n'
                    '  | 0 -> acc\n'
                    '  | n -> walk (n - 1) (label :: acc)\n'
                    'and other y = y\n'
                    'type t = A\n'
                    'let () = ignore (walk 3 [])\n', encoding="utf-8")
    lines = source.read_lines(path)
    assert source.names_in_scope(lines, 5) == ["x", "int", "acc", "label", "n"]
    assert source.function_name(lines, "Forms", 5) == "Forms.walk"
    assert source.function_name(lines, "Forms", 6) == "Forms.other"
    assert source.function_name(lines, "Forms", 7) == "Forms"  # a type: no definition
    assert source.module_name(path) == "Forms"
