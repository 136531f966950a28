"""Entry point of `python -m dap_pkg`: echoes its arguments."""

import sys


def main(argv):
    joined = ",".join(argv)  # @pkg-main
    print(f"pkg args={joined}", flush=True)
    return 0


sys.exit(main(sys.argv[1:]))
