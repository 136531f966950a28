"""Starts a child in a process group of its own (setsid), which outlives the
end of the program's group."""

import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", __file__],
                         start_new_session=True)
print("started", child.pid)  # @started
time.sleep(300)
