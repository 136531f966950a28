"""Closes its stdout, then goes on and ends with its own code."""

import os
import sys

print("before", flush=True)
os.close(1)
sys.stdout = open(os.devnull, "w")
after = 42  # @after
sys.exit(5)
