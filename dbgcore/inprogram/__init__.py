"""Code of dbg's core that runs inside the debugged program, not in dbg.

The plugins keep their debuggee-side code in folders of its own
(``dbg_dap/pyboot``, ``dbg_dap/gdbboot``, ``dbg_dap/lldbboot``); this is the
core's: :mod:`pytrace` (`dbg trace`'s profile hook), :mod:`pywatch` (`dbg
watch`'s line-by-line check), :mod:`pyrepr` (values and exceptions as the
program holds them) and :mod:`libfiles` (whether a file is the standard
library's or an installed package's, which dbg's own side asks too).

Each is loaded into the program's interpreter by its file's path (the pdb
launcher, a debugpy evaluate, the tracer itself), under a name of its own
(``_dbg_pytrace``...), since dbg's package is not on the program's path. So
they import only the standard library, nothing of dbg's (not even each
other by package name: a sibling is loaded by its path too), keep to Python
3.8's syntax, and never rely on this package being imported. dbg's own
processes import them only to find their files (``pytrace.__file__``) and
for the few plain helpers they offer dbg's side (``pytrace.install_note``);
tests/unit/test_import_graph.py holds them to it.
"""
