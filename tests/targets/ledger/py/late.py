def check(total):
    ok = total > 0  # @late
    return ok
