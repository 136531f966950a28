"""Two threads: the main one stops at a breakpoint while a worker waits."""

import threading
import time

ready = threading.Event()
release = threading.Event()


def worker():
    ready.set()
    while not release.is_set():
        time.sleep(0.01)  # @worker-wait
    print("worker done", flush=True)


def main():
    thread = threading.Thread(target=worker, name="dap-worker")
    thread.start()
    ready.wait()
    time.sleep(0.2)
    marker = "both threads alive"  # @main-break
    release.set()
    thread.join()
    print(f"main done: {marker}", flush=True)


main()
