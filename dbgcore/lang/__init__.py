"""Language rules and source files: which line is code, where a file is,
which Python a program runs under."""
