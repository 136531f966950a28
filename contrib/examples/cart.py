"""A small shopping cart with a bug, for trying dbg."""

import sys


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price, quantity=1):
        self.items.append({"name": name, "price": price, "quantity": quantity})

    def total(self):
        total = 0
        for item in self.items:
            cost = item["price"] * item["quantity"]
            total += cost
        return total


def apply_discount(total, percent):
    discount = total * percent / 100
    return total - discount


def main():
    cart = Cart()
    cart.add("apple", 0.5, 6)
    cart.add("bread", 2.25)
    cart.add("coffee", 7.0, 2)
    total = cart.total()
    print(f"subtotal: {total:.2f}")
    final = apply_discount(total, 10)
    print(f"total after discount: {final:.2f}")
    return 0 if final > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
