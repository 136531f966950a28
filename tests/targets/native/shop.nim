# A till in Nim: the items of a basket and its total, for dbg on gdb.

type Item = object
  name: string
  price: int
  quantity: int

proc total(items: seq[Item]): int =
  var sum = 0
  for item in items:
    let cost = item.price * item.quantity # @loop
    sum += cost # @add
  result = sum

let basket = @[Item(name: "apple", price: 3, quantity: 2),
               Item(name: "pear", price: 5, quantity: 1)]
let shop = "corner"
echo shop, " total: ", total(basket) # @report
