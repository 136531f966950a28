"""A cache that grows without bound in one function: lookup() keeps every
answer it makes and never evicts one. Runs about a second (argv[1]: the
number of lookups, default 4000); argv[2] "crash" raises at the end."""

import sys
import time

_answers = {}


def lookup(key):
    if key not in _answers:
        _answers[key] = ("v" * 1000) + str(key)  # @grows
    return _answers[key]


def scratch(key):
    words = [str(key)] * 20
    return len("".join(words))


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    total = 0
    for key in range(count):
        total += len(lookup(key)) + scratch(key)
        if key % 100 == 0:
            time.sleep(0.02)
    if sys.argv[2:] == ["crash"]:
        raise RuntimeError("the cache is full")
    print(total)


main()
