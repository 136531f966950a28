"""Three asyncio tasks waiting on each other: a consumer on a queue, a
sleeper in asyncio.sleep, a waiter awaiting the sleeper's task; main stops
in the reporter, a fourth task that ran already (done) and a cancelled one."""

import asyncio


async def consume(queue):
    item = await queue.get()  # @consume_waits
    return item


async def doze():
    await asyncio.sleep(30)  # @doze_waits


async def wait_for(task):
    return await task  # @wait_for_waits


async def finished():
    return 42


async def report(tasks):
    await asyncio.sleep(0.05)
    pending = [t.get_name() for t in tasks if not t.done()]
    print("pending", pending)  # @report


async def main():
    queue = asyncio.Queue()
    consumer = asyncio.create_task(consume(queue), name="consumer")
    sleeper = asyncio.create_task(doze(), name="sleeper")
    waiter = asyncio.create_task(wait_for(sleeper), name="waiter")
    done = asyncio.create_task(finished(), name="finished")
    cancelled = asyncio.create_task(doze(), name="cancelled")
    await asyncio.sleep(0)
    cancelled.cancel()
    await asyncio.sleep(0)
    await asyncio.create_task(report([consumer, sleeper, waiter, done, cancelled]),
                              name="reporter")
    for task in (consumer, sleeper, waiter):
        task.cancel()
    await asyncio.gather(consumer, sleeper, waiter, return_exceptions=True)


asyncio.run(main())
