require_relative "../cart"

RSpec.describe Cart do
  it "adds up its items" do
    cart = Cart.new
    cart.add("apple", 3, 2)
    expect(cart.total).to eq(6)
  end

  it "counts the quantity" do
    cart = Cart.new
    cart.add("pear", 5, 2)
    expect(cart.total).to eq(5) # @fails
  end
end
