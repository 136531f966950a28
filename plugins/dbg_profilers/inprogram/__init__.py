"""The code of the profilers that runs inside the profiled program, in the
program's own interpreter (the standard library only): ``heapboot.py``,
tracemalloc's snapshots for `dbg heap`. It is run by its path, never
imported by the plugin."""
