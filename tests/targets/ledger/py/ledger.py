"""A small ledger: the Python twin of the behaviour targets (ledger.c,
main.go, Ledger.java carry the same @markers)."""

import os
import signal
import sys

from report.fmt import banner
from util.fmt import money


def fee(amount):
    charge = amount * 2 // 100  # @fee
    return amount + charge  # @fee-return


def entries(count):
    yield count * 0  # @yield
    for i in range(1, count):
        yield i * 10


def check_entry(value):
    if value < 0:
        raise ValueError(f"bad entry {value}")  # @raise
    return value


def tri(n):
    result = 0  # @tri
    if n > 0:
        result = n + tri(n - 1)  # @tri-rec
    print(f"tri({n})={result}", flush=True)
    return result  # @tri-return


def audit(total):
    import late  # loaded only here, after the start

    return late.check(total)  # @call-late


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    total = 0  # @main-first
    for i in range(5):
        total += i * 100  # @loop
    # @no-code: a comment, no code on this line
    charged = fee(total)  # @call-fee
    print(money(charged))  # @after-fee
    first = next(entries(3))  # @call-gen
    print(banner(first), audit(charged))  # @after-gen
    if mode == "raise":
        check_entry(-3)  # @call-raise
    if mode == "exit3":
        sys.exit(3)
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)  # @segv
    if mode == "tri":
        tri(int(argv[2]))  # @call-tri
    if mode == "sum":
        added = 0
        for text in argv[2:]:
            added += check_entry(int(text))  # @call-check
        print(f"sum={added}")
    print("done", file=sys.stderr)
    return 0  # @main-return


if __name__ == "__main__":
    sys.exit(main(sys.argv))  # @module-main
