def old():
    return "old"


def new():
    return "new"


def build():
    table = {"k": old}
    table.update(k=new)
    return table["k"]()


build()
