def process():
    return "global"


def worker():
    def process():
        return "local"

    return process()


def other():
    return process()


worker()
other()
