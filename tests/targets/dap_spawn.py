"""Starts a child Python process, waits for it and reports its exit code."""

import subprocess
import sys

child = subprocess.run(
    [sys.executable, "-c", "import sys; print('child says hi'); sys.exit(7)"],
    check=False,
)
print(f"child exit {child.returncode}", flush=True)  # @after-child
sys.exit(0)
