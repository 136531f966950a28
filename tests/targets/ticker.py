"""A worker thread that ticks from the start, and a main thread that
sleeps: a breakpoint set while the worker already runs."""

import threading
import time


def tick(n):
    return n + 1  # @tick


def work():
    n = 0
    while True:
        n = tick(n)
        time.sleep(0.01)


threading.Thread(target=work, name="ticker", daemon=True).start()
while True:
    time.sleep(0.05)  # @sleep
