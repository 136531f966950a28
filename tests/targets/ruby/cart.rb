# A shopping cart, cart.py's Ruby twin for the conformance suite.

class Cart
  def initialize
    @items = []
  end

  def add(name, price, quantity = 1)
    @items << { name: name, price: price, quantity: quantity }
  end

  def total
    total = 0 # @total-first
    @items.each do |item|
      cost = item[:price] * item[:quantity] # @loop
      total += cost
    end
    total # @total-return
  end
end

def apply_discount(total, percent)
  discount = total * percent / 100.0 # @discount
  total - discount # @discount-return
end

def main
  cart = Cart.new # @main-first
  cart.add("apple", 0.5, 6)
  cart.add("bread", 2.25)
  cart.add("coffee", 7.0, 2)
  total = cart.total # @call-total
  puts format("subtotal: %.2f", total)
  final = apply_discount(total, 10) # @call-discount
  puts format("total after discount: %.2f", final) # @after-discount
  warn "done"
  final.positive? ? 0 : 1
end

exit(main) if __FILE__ == $PROGRAM_NAME
