"""Twenty thousand calls of work(), slow enough to take a minute: each call
writes its number to the progress file (argv[1]) as it begins, so a test
knows how many calls were made when it killed the daemon tracing them."""

import os
import sys
import time


def work(i):
    os.write(PROGRESS, b"%d\n" % i)
    time.sleep(0.002)
    return i * 2  # @work-return


def main(calls):
    total = 0
    for i in range(calls):
        total += work(i)
    print(total)


PROGRESS = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
main(int(sys.argv[2]) if len(sys.argv) > 2 else 20_000)
