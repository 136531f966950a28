"""dbg watch on Python: a loop's local, a list a callee changes, a recursive
function's local, an expression that sometimes fails, and a loop to time."""

import sys


def grow(items, n):
    items.append(n)  # @grow


def tally(limit):
    total = 0
    items = []  # @tally-items
    for i in range(limit):
        total += i  # @add
        if i % 2:  # @after-add
            grow(items, i)  # @call-grow
        seen = len(items)  # @after-grow
    return total + seen  # @tally-return


def depth(n):
    count = n * 10
    if n > 0:
        depth(n - 1)  # @depth-call
    count += 1  # @depth-bump
    return count  # @depth-return


def spread(values):
    last = values[0]  # @spread-start
    for v in values:  # @spread-loop
        last = v  # @spread-set
    return last  # @spread-return


def spin(rounds):
    acc = 0  # @spin-start
    for i in range(rounds):
        acc = (acc + i) % 7
    return acc  # @spin-return


def main():
    if len(sys.argv) > 1:
        print(spin(int(sys.argv[1])))
        return
    print(tally(5))
    print(depth(3))  # @call-depth
    print(spread([5, 0, 0, 5, 4]))
    print("done")  # @done


main()
