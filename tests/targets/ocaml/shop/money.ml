(* Money in cents, a module of its own for tests/test_ocaml.py. *)

let cents x = int_of_float (x *. 100.0)

let show c = Printf.sprintf "%d.%02d" (c / 100) (c mod 100) (* @show *)
