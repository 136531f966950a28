"""A real jdb behind a pseudo-terminal of its own that prints one thread
prompt too many, as jdb's event thread does now and then under load: after
the first `cont`, "main[1] " right after jdb's "> ", before the breakpoint.

With ``LATE_JDB_MODE=vm-start``, the other order jdb's start has under
load instead: the stopped thread's prompt right after "VM Started: ", and
jdb's greeting ("No frames on the current call stack" and a prompt) after it.

Used as jdb's command (backends.yaml); every other byte passes unchanged.
``LATE_JDB_REAL`` names the real jdb; ``LATE_JDB_MARK``, a file written
once the prompt is sent.
"""

from __future__ import annotations

import os
import pty
import select
import sys
import termios
import time
import tty

real = os.environ.get("LATE_JDB_REAL", "jdb")
if sys.argv[1:] == ["-version"]:
    os.execvp(real, [real, *sys.argv[1:]])

# jdb's terminal gets the settings dbg gave this one (no echo), and this
# one passes bytes through untouched.
settings = termios.tcgetattr(0)
pid, master = pty.fork()
if pid == 0:
    termios.tcsetattr(0, termios.TCSANOW, settings)
    os.execvp(real, [real, *sys.argv[1:]])
tty.setraw(0)
typed = b""
injected = False
at_start = os.environ.get("LATE_JDB_MODE") == "vm-start"
started = b"VM Started: "
while True:
    ready, _, _ = select.select([0, master], [], [])
    if 0 in ready:
        data = os.read(0, 4096)
        if not data:
            break
        typed = (typed + data)[-64:]
        os.write(master, data)
    if master in ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b""
        if not data:
            break
        if at_start and not injected and started in data:
            head, _, rest = data.partition(started)
            injected = True
            os.write(1, head + started + b"main[1] ")
            with open(os.environ["LATE_JDB_MARK"], "w") as mark:
                mark.write("injected\n")
            time.sleep(0.2)
            data = rest[2:] if rest.startswith(b"> ") else rest
            if not data:
                continue
        elif not at_start and not injected and b"cont" in typed and data.startswith(b"> "):
            # Each alone, as jdb printed them: then the rest, a moment later.
            injected = True
            os.write(1, b"> ")
            time.sleep(0.1)
            os.write(1, b"main[1] ")
            with open(os.environ["LATE_JDB_MARK"], "w") as mark:
                mark.write("injected\n")
            time.sleep(0.2)
            data = data[2:]
        os.write(1, data)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
