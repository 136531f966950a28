"""A stop outside the event loop's thread: asyncio.to_thread's worker, while
the loop's tasks wait for it."""

import asyncio


def blocking(n):
    return n * 2  # @in_thread


async def ticker():
    await asyncio.sleep(30)


async def main():
    tick = asyncio.create_task(ticker(), name="ticker")
    print(await asyncio.to_thread(blocking, 21))
    tick.cancel()


asyncio.run(main())
