"""The pdb launcher: the code of the pdb backend that runs inside the
debugged program, in the program's own interpreter (Python 3.8 to 3.13, the
standard library only), apart from the backend that runs in dbg's daemon.

launch.py loads :mod:`launcher` by its path as the package
``_dbg_pdb_launcher`` (dbg's packages are not on the program's path, and the
program must not see them), so these modules import each other relatively
and nothing of dbg's; this file itself is not loaded there (one file less
to read at each start) and holds nothing but this note. :mod:`launcher`
starts the program under :mod:`debugger` (pdb.Pdb with dbg's commands and
stops: pdb's hooks, each of dbg's commands handed to the module whose rules
it asks) and hooks into its test runners; :mod:`stops` (whose code a frame
runs; what makes a stop: breakpoints, conditions, watches, catches, sources
read with a bound; what a stop is at: its stack, its reason, its exception)
and :mod:`values` (reprs, locals, `print`, `set`) are the rules they share.
Every module is one more file found and read at each start, so they are few.
tests/unit/test_import_graph.py holds the folder to the standard library.
"""
