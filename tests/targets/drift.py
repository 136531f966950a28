"""A running total that goes bad partway, for `dbg history`: the ninth step
adds 100 too many. Argument 1: seconds to sleep each step; argument 2 (any):
raise at the end, as a failed check would."""

import sys
import time


def main():
    pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    total = 0
    count = 0
    for i in range(1, 21):
        step = i + 100 if i == 9 else i
        total += step
        count += 1  # @sample
        time.sleep(pause)
    if len(sys.argv) > 2 and total != sum(range(1, 21)):
        raise ValueError(f"total drifted: {total}")  # @raise
    print(total)


main()
