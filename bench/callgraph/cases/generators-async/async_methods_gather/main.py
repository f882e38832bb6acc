import asyncio


class Client:
    async def get(self, key):
        return await self._load(key)

    async def _load(self, key):
        return key


async def main_task():
    c = Client()
    return await asyncio.gather(c.get("a"), c.get("b"))


asyncio.run(main_task())
