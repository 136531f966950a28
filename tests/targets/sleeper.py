"""Sleeps, then says it is done: a start --run whose breakpoint is reached
only after the start's --timeout ran out (argv[1]: the seconds)."""

import sys
import time

time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 8)
print("done")  # @done
