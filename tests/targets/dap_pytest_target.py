"""A tiny test file run as `dbg start -m pytest dap_pytest_target.py -q`."""


def add(a, b):
    return a + b  # @add


def test_add():
    assert add(2, 3) == 5
