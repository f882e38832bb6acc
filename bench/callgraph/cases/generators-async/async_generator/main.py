import asyncio


def label(i):
    return "t" + str(i)


async def ticks(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield label(i)


async def collect():
    out = []
    async for t in ticks(2):
        out = out + [t]
    return out


asyncio.run(collect())
