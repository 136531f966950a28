"""A frame holding a list of 1,000,000 numbers and a 10 MB string."""


def hold():
    numbers = list(range(1_000_000))
    text = "x" * 10_000_000
    return len(numbers) + len(text)  # @big


print(hold())
