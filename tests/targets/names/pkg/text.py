def normalize(s):
    out = s.strip().lower()  # @normalize
    return out
