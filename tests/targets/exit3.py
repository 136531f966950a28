"""Ends with sys.exit(3) after printing to both streams."""

import sys

print("about to exit")  # @first
print("exiting with 3", file=sys.stderr)
sys.exit(3)  # @exit
