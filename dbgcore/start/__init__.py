"""Starting daemons: forked, spare, by the fork helper of `dbg mcp`, or anew."""
