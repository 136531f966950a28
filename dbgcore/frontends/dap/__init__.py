"""`dbg dap`: dbg as a Debug Adapter Protocol server (docs/dap.md)."""
