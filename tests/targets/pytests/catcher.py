"""Exceptions raised and handled in several ways, for `dbg catch`, chained
exceptions, and steps an exception passes through."""

import json

from errpkg.errors import ParseError


def parse(text):
    if not text.isdigit():
        raise ParseError(f"not a number: {text}")  # @raise
    return int(text)


def middle(text):
    return parse(text)  # @middle


def load(key, table):
    try:
        return table[key]  # @lookup
    except KeyError as err:
        raise LookupError(f"no entry {key}") from err  # @chained


def main():
    try:
        json.loads("{bad")  # @json
    except ValueError:
        pass
    try:
        middle("x1")  # @call
    except ValueError as exc:  # @except
        print("caught", exc)
    try:
        int("seven")  # @int
    except ValueError:
        pass
    load("a", {"a": 1})
    load("b", {})  # @uncaught


main()
