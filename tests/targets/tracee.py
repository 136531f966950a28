"""dbg trace's Python target: a recursive function that prints its own calls,
a function that raises, a loop, and a tiny function called many times."""

import sys


def tri(n):
    print(f"call tri({n})")
    if n <= 1:
        result = n
    else:
        result = n + tri(n - 1)
    print(f"tri({n}) = {result}")  # @tri-result
    return result


def check(entry):
    if entry < 0:
        raise ValueError(f"bad entry {entry}")
    return entry * 2


def tally(prices):
    total = 0  # @tally-first
    count = 0
    for price in prices:
        total += price
        count += 1
    return total


class Meter:
    def read(self, x):
        return x + 1


def tiny(x):
    return x + 1


def main():
    tri(4)  # @call-tri
    for entry in (3, -3):
        try:
            print(f"check({entry}) = {check(entry)}")
        except ValueError as exc:
            print(f"check({entry}) raised {exc}")
    tally([2, 5])
    meter = Meter()
    meter.read(1)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    acc = 0
    for i in range(n):
        acc = tiny(acc)  # @tiny-loop
    print(f"tiny x{n} = {acc}")  # @after-tiny
    return 0


if __name__ == "__main__":
    sys.exit(main())
