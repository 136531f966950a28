"""A tiny console debugger for testing the PTY layer: a prompt that changes
with its state, slow answers, ANSI colours, program output on its own
terminal, and an exit. Not a mock of dbg's classes: a real program on a real
pseudo-terminal, like pdb or jdb, with behaviour a test can provoke.

Commands: `run` (prints "> ", then after a moment "Stopped at line 7" and
the thread prompt), `slow SECONDS` (answers late), `color` (answers in ANSI
colour), `chatter N` (N lines of program output, then the answer), `echo
TEXT`, `quit`.
"""

import sys
import time

state = "idle"


def prompt() -> None:
    sys.stdout.write("main[1] " if state == "stopped" else "> ")
    sys.stdout.flush()


prompt()
for line in sys.stdin:
    words = line.split()
    if not words:
        prompt()
        continue
    if words[0] == "run":
        sys.stdout.write("> ")
        sys.stdout.flush()
        time.sleep(0.2)
        state = "stopped"
        sys.stdout.write("\r\nStopped at line 7\r\n")
    elif words[0] == "slow":
        time.sleep(float(words[1]))
        sys.stdout.write(f"slept {words[1]}\r\n")
    elif words[0] == "color":
        sys.stdout.write("\x1b[1;31mred\x1b[0m text\r\n")
    elif words[0] == "chatter":
        for i in range(int(words[1])):
            sys.stdout.write(f"program line {i}\r\n")
        sys.stdout.write("chatter done\r\n")
    elif words[0] == "echo":
        sys.stdout.write(" ".join(words[1:]) + "\r\n")
    elif words[0] == "quit":
        sys.stdout.write("bye\r\n")
        sys.stdout.flush()
        sys.exit(0)
    prompt()
