from cache.core import Cache


def test_sync():
    assert Cache().sync() == 0
