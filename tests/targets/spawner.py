"""Starts a long-lived child that ignores SIGHUP, then keeps running: a child
the kernel does not end with the terminal, for process-hygiene tests."""

import subprocess
import sys
import time

CHILD = "import signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); time.sleep(600)"
child = subprocess.Popen([sys.executable, "-c", CHILD])
print(f"child {child.pid}", flush=True)  # @spawned
while True:
    time.sleep(0.05)  # @loop
