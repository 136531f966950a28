"""A decorated function, for breakpoints on `def` and decorator lines."""

import functools


def logged(func):
    @functools.wraps(func)
    def wrapper(*args):
        return func(*args)

    return wrapper


@logged  # @decorator
def scale(values, factor):  # @scale-def
    """Multiplies every value."""
    result = [v * factor for v in values]  # @scale-first
    return result


def main():
    out = scale([1, 2, 3], 2)  # @call-scale
    print(out)


main()
