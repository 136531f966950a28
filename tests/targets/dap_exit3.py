"""Prints non-ASCII text to both streams, then ends with sys.exit(3)."""

import sys

print("stdout: héllo wörld ✓ 日本語 🐍", flush=True)  # @first
print("stderr: ошибка ünïcödé 💥", file=sys.stderr, flush=True)
sys.exit(3)  # @exit
