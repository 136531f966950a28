(* Reads lines from its stdin, a prompt before each: as many as its argument
   says (default 3), or up to the end of the file. For tests/test_stdin.py. *)

let () =
  let wanted = if Array.length Sys.argv > 1 then int_of_string Sys.argv.(1) else 3 in
  let got = ref 0 in (* @before *)
  (try
     while !got < wanted do
       Printf.printf "line %d? %!" (!got + 1);
       let text = input_line stdin in
       incr got; (* @got *)
       Printf.printf "read %d: %s\n%!" !got text
     done
   with End_of_file -> Printf.printf "EOF after %d lines\n%!" !got);
  Printf.printf "done: %d lines\n%!" !got (* @done *)
