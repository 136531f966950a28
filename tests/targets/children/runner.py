"""Runs child.py in a Python of its own (subprocess.run), then goes on."""

import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
done = subprocess.run([sys.executable, os.path.join(here, "child.py"), "7"], check=False)
print("child exited", done.returncode)  # @after
