"""Huge values beside a runaway function: dbg's bounds (tests/faults/test_bounds.py, bench/bounds.py)."""



def spin():
    while True:
        pass


def main():
    items = list(range(1000000))
    text = "a" * 10000000
    x = 1  # @here
    print(x)


if __name__ == "__main__":
    main()
