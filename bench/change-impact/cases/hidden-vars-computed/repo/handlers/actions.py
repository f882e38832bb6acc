def handle_create(payload):
    return {"created": payload}


def handle_delete(payload):
    return {"deleted": payload}
