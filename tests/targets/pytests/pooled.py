"""A pool's worker raises; the parent gets the exception back with the
worker's traceback as its cause (multiprocessing's RemoteTraceback, never
raised itself), and raises its own from it (or, run with `bare`, lets the
pool's re-raise end the program)."""

import multiprocessing
import sys


def parse(text):
    return int(text)  # @parse


def run(texts, wrap):
    with multiprocessing.Pool(1) as pool:
        if not wrap:
            return pool.map(parse, texts)  # @bare
        try:
            return pool.map(parse, texts)  # @map
        except ValueError as exc:
            raise RuntimeError("a text is no number") from exc  # @raise


if __name__ == "__main__":
    print(run(["1", "x2"], wrap=sys.argv[1:] != ["bare"]))
