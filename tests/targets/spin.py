"""Runs for a long time, printing as it goes: for pause and --timeout."""

import sys
import time


def work(n):
    return n * 2  # @work


def main():
    count = 0  # @main-first
    while True:
        count += 1
        work(count)  # @call-work
        if count % 10 == 0:
            print(f"tick {count}", flush=True)
        time.sleep(0.01)  # @sleep
    return count


if __name__ == "__main__":
    sys.exit(main())
