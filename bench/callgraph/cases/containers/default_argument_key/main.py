def save():
    return "saved"


def load():
    return "loaded"


ACTIONS = {"save": save, "load": load}


def act(name="save", table=ACTIONS):
    return table[name]()


act()
act("load")
