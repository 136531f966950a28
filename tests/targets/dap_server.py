"""Waits for a debugger on the port given as argv[1] (0: one the system
picks), after printing `listening PORT`; then works in a loop, printing a
tick now and then so a test can see that it still runs."""

import sys
import time

import debugpy


def tick(n):
    square = n * n  # @tick
    return square


def main():
    _, port = debugpy.listen(("127.0.0.1", int(sys.argv[1])))
    print(f"listening {port}", flush=True)
    debugpy.wait_for_client()
    n = 0
    while True:
        n += 1
        tick(n)  # @call-tick
        if n % 10 == 0:
            print(f"tick {n}", flush=True)
        time.sleep(0.02)


main()
