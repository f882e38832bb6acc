def ping():
    return "ping"


def pong():
    return "pong"


TABLE = {"ping": ping, "pong": pong}
ORDER = [pong, ping]


def run_table(table):
    table["ping"]()
    return table["pong"]()


def run_first(fns):
    return fns[0]()


run_table(TABLE)
run_first(ORDER)
