"""On the test run's PYTHONPATH (`--env`), outside the program's folder."""


def tag(names):
    return list(names)  # @tag
