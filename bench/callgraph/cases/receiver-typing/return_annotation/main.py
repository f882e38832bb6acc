class Conn:
    def __init__(self, name):
        self.name = name

    def query(self, sql):
        return [sql]

    def close(self):
        return None


class Pool:
    def __init__(self):
        self._conns = {}

    def acquire(self, name) -> Conn:
        if name not in self._conns:
            self._conns[name] = Conn(name)
        return self._conns[name]


def use(pool):
    conn = pool.acquire("db")
    conn.query("select 1")
    conn.close()


use(Pool())
