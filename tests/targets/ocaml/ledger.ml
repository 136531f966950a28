(* A small ledger: the OCaml twin of tests/targets/ledger's programs, with
   the markers the testing kit's BackendSuite reads. *)

let fee amount =
  let charge = amount * 2 / 100 in (* @fee *)
  amount + charge (* @fee-return *)

let main () =
  let total = ref 0 in (* @main-first *)
  for i = 0 to 4 do
    total := !total + (i * 100) (* @loop *)
  done;
  let charged = fee !total in (* @call-fee *)
  Printf.printf "%d.%02d\n" (charged / 100) (charged mod 100); (* @after-fee *)
  prerr_endline "done"

let () = main ()
