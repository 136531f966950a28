"""`dbg mcp`: the MCP server over stdio."""
