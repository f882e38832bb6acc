def on_create():
    return "c"


def on_delete():
    return "d"


ACTIONS = {"create": on_create, "delete": on_delete}


def handle_create():
    return ACTIONS["create"]()


handle_create()
