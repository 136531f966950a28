"""The program the benchmark steps through."""


def work(n):
    total = 0
    for i in range(n):
        total += i * i  # @step
    return total


def main():
    values = list(range(10))
    result = work(1000)  # @start
    print("result", result, len(values))


main()
