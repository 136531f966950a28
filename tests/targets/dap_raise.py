"""Raises a handled ValueError, then an unhandled RuntimeError."""


def parse(text):
    return int(text)  # @raise


def main():
    total = 0
    for text in ["1", "2", "three"]:
        try:
            total += parse(text)
        except ValueError as exc:
            print(f"skipped {text}: {exc}", flush=True)  # @handled
    print(f"total={total}", flush=True)
    raise RuntimeError(f"boom: total was {total}")  # @uncaught


main()
