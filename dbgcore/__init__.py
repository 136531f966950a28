"""dbg: one debugger vocabulary for agents and people, over many real debuggers."""

__version__ = "0.1.0"
