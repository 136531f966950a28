"""The op vocabulary: how an op and its arguments are declared, and the values
ops take and return (stops, frames, breakpoints, call records)."""
