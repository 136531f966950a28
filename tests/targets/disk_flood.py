"""Writes 50 MB to stdout, then stops at a marked line: a flood for a disk
that is nearly full."""

import sys

chunk = "y" * 1023 + "\n"  # @begin
for _ in range(50 * 1024):
    sys.stdout.write(chunk)
sys.stdout.flush()
flooded = 50  # @flooded
print("after the flood", flush=True)  # @after
print("last on stderr", file=sys.stderr)
