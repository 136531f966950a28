"""A helper module imported by shop.py."""

RATE = 0.2


def with_tax(amount):
    """Adds tax."""
    tax = amount * RATE  # @tax-first
    return amount + tax


class Label:
    def __init__(self, text):
        self.text = text

    def render(self):
        return f"<{self.text}>"  # @render-first
