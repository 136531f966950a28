"""A small program whose run `dbg trace --lines` records and `dbg replay` steps through."""


def fee(amount):
    rate = 3  # @fee-first
    return amount * rate // 100  # @fee-return


def main():
    total = 0  # @main-first
    for i in range(4):  # @for
        total += i  # @loop
    cost = fee(total * 100)  # @call-fee
    print("total", total, "cost", cost)  # @after-fee
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
