import os
import sys

# `python -m dbgcore` puts the current folder first on sys.path: a program's
# own secrets.py or json.py there would be imported in dbg's place.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.getcwd():
    del sys.path[0]

from dbgcore.entry import main

main()
