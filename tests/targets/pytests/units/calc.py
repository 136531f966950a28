def divide(a, b):
    return a / b


def parse(text):
    if not text.isdigit():
        raise ValueError(f"not a number: {text!r}")  # @raise-parse
    return int(text)
