"""Raises an exception nobody catches: pdb stops post-mortem."""


def parse(text):
    value = int(text)  # @raise
    return value


def main():
    numbers = ["1", "2", "three"]  # @main-first
    total = 0
    for text in numbers:
        total += parse(text)  # @call-parse
    print(total)


main()
