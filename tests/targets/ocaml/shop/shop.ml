(* Two modules, built by the test with ocamlc -g (dbg builds one file). *)

let () =
  let c = Money.cents 19.25 in
  print_endline (Money.show c) (* @call-show *)
