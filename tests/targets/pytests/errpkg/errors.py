class ParseError(ValueError):
    """A subclass of ValueError, caught by `dbg catch ValueError` too."""
