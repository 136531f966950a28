"""A recursion a hundred calls deep, for the folding of `dbg stack`."""


def depth(n):
    if n == 0:
        return 0  # @base
    return 1 + depth(n - 1)  # @recurse


def main():
    print(depth(100))


main()
