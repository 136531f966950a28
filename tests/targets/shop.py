"""Uses a helper module, for MODULE!FUNCTION breakpoints."""

import pricing


def main():
    price = pricing.with_tax(100)  # @call-tax
    print(f"price {price}")
    label = pricing.Label("sale")
    print(label.render())  # @call-render


main()
