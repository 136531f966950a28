"""Helpers the tests call: one raises from deeper down."""


def total(entries):
    return sum(entries)


def check_entry(entry):
    if entry < 0:
        raise ValueError(f"bad entry {entry}")  # @raise-helper
    return entry


def check_all(entries):
    return [check_entry(e) for e in entries]  # @call-check
