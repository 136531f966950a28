"""Reports its working directory, an environment variable and its arguments."""

import os
import sys

print("cwd=" + os.getcwd())  # @first
print("DBG_TEST_VAR=" + os.environ.get("DBG_TEST_VAR", "<unset>"))
print("args=" + ",".join(sys.argv[1:]))
