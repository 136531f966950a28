"""Catches the error a parse raises, and goes on: a stop inside the except
block is where `dbg exception` names the exception being handled."""


def parse(text):
    return int(text)  # @raise


def main():
    try:
        parse("forty-two")
    except ValueError as err:
        fallback = 42  # @handler
        print("fell back to %d after %s" % (fallback, err), flush=True)
    done = True  # @after
    print("done", done, flush=True)


main()
