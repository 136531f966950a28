"""A slow program for `dbg profile`: each word is checked by a helper that
compiles its regular expression anew on every call (re's cache is bypassed
by a pattern that differs each time), so nearly all the time goes to
``is_word`` under ``check_all``; ``tally`` is a cheap second caller.

Runs for about the seconds given as its first argument (default 1.5),
forever with ``forever`` (for --pid), or a fixed work of N rounds with
``rounds=N`` (bench/profiling.py times it: the work's own wall and CPU time
are printed at its end), printing ``ready`` first; a
second argument ``crash`` ends it with code 3, ``fixed`` makes is_word
cheap (for `dbg profile diff`).
"""

import re
import sys
import time


#: The fix (a third argument ``fixed``): one pattern, compiled once.
FIXED = len(sys.argv) > 2 and sys.argv[2] == "fixed"
WORD = re.compile("^[a-z]+$")


def is_word(text, n):
    if FIXED:
        return WORD.match(text) is not None
    pattern = re.compile("^[a-z]+(?:%d)?$" % n)  # @compile
    return pattern.match(text) is not None


def check_all(words, n):
    found = 0
    for word in words:
        if is_word(word, n):  # @calls_is_word
            found += 1
    return found


def tally(words):
    return sum(len(w) for w in words)


def main():
    seconds = sys.argv[1] if len(sys.argv) > 1 else "1.5"
    words = ["alpha", "beta", "Gamma", "delta", "e5"] * 20
    print("ready", flush=True)
    began, cpu = time.monotonic(), time.process_time()
    n = 0
    rounds = int(seconds[7:]) if seconds.startswith("rounds=") else None
    while (n < rounds if rounds is not None else
           seconds == "forever" or time.monotonic() - began < float(seconds)):
        n += 1
        check_all(words, n)  # @calls_check_all
        tally(words)
    if rounds is not None:
        print(f"{rounds} rounds in {time.monotonic() - began:.4f} s "
              f"(cpu {time.process_time() - cpu:.4f} s)")
    if len(sys.argv) > 2 and sys.argv[2] == "crash":
        raise SystemExit(3)


main()
