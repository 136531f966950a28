"""tests/test_debugpy_end.py: the program's own objects are collected as in
a bare run, its cycles left for the interpreter's end included, though dbg
freezes the objects there were before the program began."""
import gc
import os
import sys


class Cycle:
    def __init__(self, name: str) -> None:
        self.name = name
        self.me = self

    def __del__(self, write=os.write) -> None:
        write(1, f"collected {self.name}\n".encode())


Cycle("during the run")
print("found", gc.collect() > 0, flush=True)
Cycle("at the end")
print("frozen", gc.get_freeze_count(), flush=True)
sys.exit(6)
