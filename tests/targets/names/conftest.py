"""A program's tests for dbg to run (tests/test_names.py copies them out),
not dbg's tests: dbg's own run does not collect them."""

collect_ignore_glob = ["*"]
