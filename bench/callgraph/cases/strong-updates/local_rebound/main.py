def draft():
    return "draft"


def final():
    return "final"


def publish():
    handler = draft
    handler = final
    return handler()


publish()
