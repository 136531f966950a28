(* Counts up for ever, calling itself on one line. *)

let rec spin n = if n < 0 then n else spin (n + 1) (* @spin *)

let () = print_endline "spinning"; ignore (spin 0)
