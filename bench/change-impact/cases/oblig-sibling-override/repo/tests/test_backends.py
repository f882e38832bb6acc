from streams.backends import AsyncioBackend, TrioBackend


def test_trio_read():
    assert TrioBackend().read(1) == b'a'


def test_asyncio_read():
    assert AsyncioBackend().read(2) == b'ab'
