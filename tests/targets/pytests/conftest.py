"""These are a program's tests for dbg to run (tests/test_python_tests.py
copies them out), not dbg's tests: dbg's own run does not collect them."""

collect_ignore_glob = ["*"]
