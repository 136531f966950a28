import sys


def triple(n):
    value = n * 3  # @triple
    return value


print("tripled", triple(int(sys.argv[1])))
