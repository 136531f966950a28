"""dbg diff's target: a traced call whose argument is a generator, whose
repr holds its address (different in every run)."""


def device_log():
    yield from ("a", "b")


def usages(lines):
    return sum(1 for _ in lines)


print(usages(device_log()))
