"""Writes about 100 MB to stdout between two stops."""

import sys

chunk = "x" * 1023 + "\n"
sent = 0  # @start
for _ in range(100 * 1024):
    sys.stdout.write(chunk)
sent = 100  # @flooded
print("done", flush=True)
