"""os.fork: the child computes and exits, the parent waits for it and goes on."""

import os


def work(n):
    value = n + 1  # @work
    return value


pid = os.fork()
if pid == 0:
    print("child got", work(41), flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("parent done", os.waitstatus_to_exitcode(status))  # @after
