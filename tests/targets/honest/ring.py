"""A ring of numbers: `dbg set` on attributes, list and dict items; a
condition that raises."""


class Ring:
    def __init__(self) -> None:
        self.cap = 4
        self.items = [10, 20, 30]


def twice(x):
    return x * 2  # @twice


def main():
    r = Ring()
    items = [1, 2, 3]
    table = {"a": 1}
    total = twice(r.cap)  # @call
    print(total, r.cap, r.items[2], items[0], table["a"])  # @print


main()
