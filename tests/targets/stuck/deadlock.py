"""Two threads, two locks, each thread holding one and waiting for the
other: deadlocked for good, blocked in C (``lock.acquire``) where no
debugger's pause can reach them; the main thread waits in ``join``."""

import threading
import time

first = threading.Lock()
second = threading.Lock()
both_hold = threading.Barrier(2)


def take_first_then_second():
    with first:
        both_hold.wait()
        second.acquire()  # @waits_for_second


def take_second_then_first():
    with second:
        both_hold.wait()
        first.acquire()  # @waits_for_first


workers = [threading.Thread(target=take_first_then_second, name="holds-first"),
           threading.Thread(target=take_second_then_first, name="holds-second")]
for worker in workers:
    worker.start()
time.sleep(0.1)
print("deadlocked", flush=True)
for worker in workers:
    worker.join()  # @joins
