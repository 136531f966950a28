"""A package run with `dbg start -m dap_pkg`."""
