"""Never ends and never blocks: a loop that keeps the interpreter busy."""


def spin():
    total = 0
    while True:
        total = (total + 1) % 1000003  # @loop


print("spinning", flush=True)
spin()
