def banner(value):
    line = f"== {value} =="  # @banner
    return line
