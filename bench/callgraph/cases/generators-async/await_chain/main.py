import asyncio


def parse(i):
    return i


async def fetch(i):
    await asyncio.sleep(0)
    return parse(i)


async def gather_all():
    a = await fetch(1)
    b = await fetch(2)
    return a + b


asyncio.run(gather_all())
