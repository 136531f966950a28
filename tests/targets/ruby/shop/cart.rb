# A cart the spec and the minitest file beside it test: one test of each fails.
class Cart
  def initialize
    @items = []
  end

  def add(name, price, quantity)
    @items << [name, price, quantity]
  end

  def total
    @items.sum { |_, price, quantity| price * quantity }
  end
end
