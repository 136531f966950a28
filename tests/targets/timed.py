"""dbg trace --time's Python target: a slow function called from two sites,
twice from one and once from the other, and a quick one called often."""

import time


def slow(seconds):
    time.sleep(seconds)
    return seconds


def quick(x):
    return x + 1


def main():
    for _ in range(2):
        slow(0.06)  # @site-a
    slow(0.12)  # @site-b
    total = 0
    for i in range(20):
        total = quick(total)
    print("done", total)


main()
