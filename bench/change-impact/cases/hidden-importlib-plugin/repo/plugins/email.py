"""E-mail plugin."""


def send(msg):
    return f"email:{msg}"


def setup(registry):
    registry["email"] = send
