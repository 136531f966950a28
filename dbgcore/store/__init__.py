"""The session store and its queries: stops, traces, runs, diffs."""
