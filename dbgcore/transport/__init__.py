"""Transports to a debugger: DAP, a PTY, the program output, the transcript."""
