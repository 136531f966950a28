"""The ops: the op table, the preparation of each op, its handler in the daemon
and its renderer."""
