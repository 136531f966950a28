"""Reads lines from its stdin, a prompt before each: as many as its argument
says (default 3), or up to the end of the file. For tests/test_stdin.py."""

import sys


def main() -> None:
    wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    got = 0  # @before
    while got < wanted:
        print(f"line {got + 1}? ", end="", flush=True)
        text = sys.stdin.readline()
        if not text:
            print(f"EOF after {got} lines")
            break
        got += 1  # @got
        print(f"read {got}: {text.rstrip()}")
    print(f"done: {got} lines")  # @done


main()
