"""What every process of dbg shares: where its files are, the status a daemon
writes, the wire protocol and the client that speaks it, errors, bounds."""
