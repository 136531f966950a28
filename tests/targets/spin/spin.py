"""Runs until interrupted: a loop that never ends, with a short sleep."""

import time

count = 0
while True:
    count += 1  # @loop
    if count % 1000 == 0:
        time.sleep(0.001)
