import store
from store import Store


def main_fn():
    s = store.open_store("/tmp/x")
    s.put("k", "v")
    t = Store("/tmp/y")
    t.put("a", "b")
    return store.util.checksum("abc")


main_fn()
