"""A multiprocessing.Pool maps square() in two children (start method: argv[1])."""

import multiprocessing
import sys


def square(n):
    result = n * n  # @square
    return result


if __name__ == "__main__":
    multiprocessing.set_start_method(sys.argv[1] if len(sys.argv) > 1 else "fork")
    with multiprocessing.Pool(2) as pool:
        workers = 2  # @ready
        print("squares", pool.map(square, range(4)))  # @after
