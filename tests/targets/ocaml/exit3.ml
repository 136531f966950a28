(* Ends with exit code 3 after printing a line; with an argument "raise",
   by an uncaught exception instead. *)

let check n = if n > 2 then raise Not_found else n (* @check *)

let () =
  print_endline "before the end";
  if Array.length Sys.argv > 1 then ignore (check 3); (* @maybe-raise *)
  exit 3 (* @exit *)
