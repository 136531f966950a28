"""Sixty asyncio tasks asleep while main stops: more than `dbg tasks` lists."""

import asyncio


async def nap(seconds):
    await asyncio.sleep(seconds)


async def main():
    naps = [asyncio.create_task(nap(30)) for _ in range(60)]
    await asyncio.sleep(0)
    print(len(naps), "napping")  # @crowd
    for task in naps:
        task.cancel()
    await asyncio.gather(*naps, return_exceptions=True)


asyncio.run(main())
