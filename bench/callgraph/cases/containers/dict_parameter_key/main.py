def start():
    return "start"


def stop():
    return "stop"


HANDLERS = {"start": start, "stop": stop}


def dispatch(key):
    return HANDLERS[key]()


dispatch("start")
dispatch("stop")
