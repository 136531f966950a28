"""Prints far more than dbg keeps in memory, then a last line on each stream."""

import sys

for i in range(40000):
    print(f"line {i:05d} " + "x" * 40)  # @print
print("last on stdout")
print("last on stderr", file=sys.stderr)
