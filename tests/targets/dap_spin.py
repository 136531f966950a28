"""A busy loop that never ends by itself: for pause and --timeout."""

import time


def work(n):
    return n * 2  # @work


def main():
    count = 0
    while True:
        count += 1  # @count
        work(count)
        if count % 200000 == 0:
            print(f"tick {count}", flush=True)
        if count % 1000 == 0:
            time.sleep(0.001)


main()
