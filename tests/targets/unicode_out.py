"""Prints text beyond ASCII, to both streams."""

import sys

greeting = "héllo wörld ✓ 日本語 🐍"  # @greeting
print(greeting)
print("ошибка: ünïcödé", file=sys.stderr)
name = "naïve"  # @after-print
print(name)
