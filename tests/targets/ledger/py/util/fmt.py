def money(cents):
    text = f"{cents / 100:.2f}"  # @fmt
    return text
