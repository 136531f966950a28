"""Prints lines, then is killed by a signal: what it printed must not be
lost in a buffer of a stdout that is not a terminal."""
import os
import signal

print("first line")
print("second line")
os.kill(os.getpid(), signal.SIGKILL)  # @crash
