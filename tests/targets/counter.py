"""A loop whose values a debugger can change, and whose output shows it."""


def compute(limit):
    total = 0
    for i in range(limit):
        total += i  # @accumulate
    return total  # @return-total


def main():
    limit = 5  # @limit
    result = compute(limit)  # @call-compute
    print(f"result={result}")
    print(f"limit={limit}")


main()
