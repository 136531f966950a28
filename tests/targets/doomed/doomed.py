"""Writes its pid to the file named by its argument, then loops until killed."""

import os
import sys

with open(sys.argv[1], "w") as out:
    out.write(str(os.getpid()))
count = 0
while True:
    count += 1  # @loop
