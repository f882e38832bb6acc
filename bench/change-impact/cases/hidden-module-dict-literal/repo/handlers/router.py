from handlers import actions


def create(payload):
    return actions.__dict__["handle_create"](payload)
