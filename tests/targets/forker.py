"""Forks and execs a long sleeper, then waits at a breakpoint."""

import subprocess

child = subprocess.Popen(["sleep", "300"])
print(f"child {child.pid}", flush=True)
ready = True  # @ready
child.wait()
