"""A small ledger: the program the S1 benchmark debugs."""


def post(entries):
    balance = 0
    opening = 0
    for number, amount in enumerate(entries):
        if number == 0:
            opening = amount  # @loop
        balance += amount
        if balance < 0:
            balance = 0
    return balance - opening


def main():
    entries = [120, -30, 45, -200, 80, 15, -5, 60, 10, -25, 35, 5]
    print("change", post(entries))


main()
