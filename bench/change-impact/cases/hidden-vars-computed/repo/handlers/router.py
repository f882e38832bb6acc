from handlers import actions


def route(kind, payload):
    return vars(actions)["handle_" + kind](payload)
