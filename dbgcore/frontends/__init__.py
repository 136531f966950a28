"""The front ends: the CLI, the MCP server, agent setup, doctor and report."""
