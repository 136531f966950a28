# A shopping cart, the Nim twin of cart.c for the conformance kit.
import strformat

type Item = object
  name: string
  price: float
  quantity: int

proc cartTotal(items: seq[Item]): float =
  var total = 0.0 # @total-first
  for item in items:
    total = total + item.price * float(item.quantity) # @loop
  result = total # @total-return

proc apply_discount(total: float, percent: int): float =
  let discount = total * float(percent) / 100 # @discount
  result = total - discount # @discount-return

var items = @[Item(name: "apple", price: 0.5, quantity: 6), # @main-first
              Item(name: "bread", price: 2.25, quantity: 1),
              Item(name: "coffee", price: 7.0, quantity: 2)]
var total = cartTotal(items) # @call-total
echo &"subtotal: {total:.2f}"
var final = apply_discount(total, 10) # @call-discount
echo &"total after discount: {final:.2f}" # @after-discount
stderr.writeLine("done")
