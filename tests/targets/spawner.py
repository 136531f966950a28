"""Starts a long-lived child process, then keeps running: for process hygiene."""

import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(f"child {child.pid}", flush=True)  # @spawned
while True:
    time.sleep(0.05)  # @loop
