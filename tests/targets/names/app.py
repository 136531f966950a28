"""A program of several modules whose functions share names: for `dbg
break`, `list` and `trace` naming code by a bare name (tests/test_names.py)."""

from other.fmt import Fmt
from pkg import text
from pkg.render import Renderer


def divide(a, b):
    q = a / b  # @divide
    return q


def main():
    r = Renderer()
    r._load_templates()
    print(text.normalize(" Hi "))
    print(Fmt().normalize("x"))
    print(divide(6, 3))


if __name__ == "__main__":
    main()
