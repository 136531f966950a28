(* A shopping cart, cart.py's OCaml twin for the conformance suite. *)

type item = { name : string; price : float; quantity : int }

let add items name price quantity = items @ [ { name; price; quantity } ]

let total items =
  let sum = ref 0.0 in (* @total-first *)
  List.iter
    (fun item ->
      let cost = item.price *. float_of_int item.quantity in (* @loop *)
      sum := !sum +. cost)
    items;
  !sum (* @total-return *)

let apply_discount total percent =
  let discount = total *. percent /. 100.0 in (* @discount *)
  total -. discount (* @discount-return *)

let main () =
  let cart = add [] "apple" 0.5 6 in (* @main-first *)
  let cart = add cart "bread" 2.25 1 in
  let cart = add cart "coffee" 7.0 2 in
  let total = total cart in (* @call-total *)
  Printf.printf "subtotal: %.2f\n%!" total;
  let final = apply_discount total 10.0 in (* @call-discount *)
  Printf.printf "total after discount: %.2f\n%!" final; (* @after-discount *)
  prerr_endline "done";
  if final > 0.0 then 0 else 1

let () = exit (main ())
