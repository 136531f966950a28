"""A shopping cart, the main pdb target."""

import sys


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price, quantity=1):
        self.items.append({"name": name, "price": price, "quantity": quantity})

    def total(self):  # @total-def
        total = 0  # @total-first
        for item in self.items:
            cost = item["price"] * item["quantity"]  # @loop
            total += cost
        return total  # @total-return


def apply_discount(total, percent):
    discount = total * percent / 100  # @discount
    return total - discount  # @discount-return


def main():
    cart = Cart()  # @main-first
    cart.add("apple", 0.5, 6)
    cart.add("bread", 2.25)
    cart.add("coffee", 7.0, 2)
    total = cart.total()  # @call-total
    print(f"subtotal: {total:.2f}")
    final = apply_discount(total, 10)  # @call-discount
    print(f"total after discount: {final:.2f}")  # @after-discount
    print("done", file=sys.stderr)
    return 0 if final > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
